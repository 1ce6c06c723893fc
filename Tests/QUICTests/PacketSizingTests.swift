import BenchCore
import QUIC
import XCTest

/// What sets QUIC's bytes on the wire per payload byte: datagram sizes (PMTU discovery or a fixed
/// size) and the client's connection ID length (in every server packet).
final class PacketSizingTests: XCTestCase {
    private let body = 600_000

    /// One download of `body` bytes with the same settings at both ends; the network after it.
    private func download(_ config: QUICConfiguration) throws -> VirtualNetwork {
        let net = VirtualNetwork(
            server: try makeServer(config, now: Instant(nanoseconds: 1_000_000_000)), at: serverAddress)
        let probe = net.add(try makeClient(config, now: net.now), at: clientAddress)
        let stream = try probe.client.submitRequest(authority: "localhost", path: "/bytes/\(body)")
        XCTAssertTrue(net.run(for: .seconds(30)) { probe.finished.contains(stream) || probe.closedWith != nil })
        XCTAssertNil(probe.closedWith)
        XCTAssertEqual(probe.bytes[stream], body)
        return net
    }

    func testDefaultDiscoveryStartsAt1200AndTopsOutAt1444() throws {
        let sizes = try download(QUICConfiguration()).serverDatagramSizes
        XCTAssertEqual(QUICConfiguration.engineDefaultMaxUDPPayloadSize, 1452)
        XCTAssertEqual(sizes.max(), 1444, "ngtcp2 0.12.1's largest probe under its 1,452 cap")
        XCTAssertTrue(sizes.contains(1200), "full datagrams before discovery are 1,200 bytes")
    }

    func testFixedPayloadFillsEveryFullDatagramFromTheStart() throws {
        let config = QUICConfiguration().with { $0.fixedUDPPayloadSize = 1472 }
        let sizes = try download(config).serverDatagramSizes
        XCTAssertEqual(sizes.max(), 1472)
        let discovered = sizes.filter { $0 == 1200 || $0 == 1406 || $0 == 1444 }
        XCTAssertLessThanOrEqual(discovered.count, 2, "\(sizes.prefix(40))")
        XCTAssertGreaterThan(sizes.filter { $0 == 1472 }.count, body / 1472 * 9 / 10)
        XCTAssertEqual(config.effectiveMaxUDPPayloadSize, 1472)
        XCTAssertEqual(config.udpPayloadSizing, "fixed")
        XCTAssertEqual(QUICConfiguration().udpPayloadSizing, "pmtud")
    }

    /// Each server packet carries the client's connection ID: 17 bytes more per datagram at 17.
    func testClientConnectionIDCostsItsLengthInEveryServerDatagram() throws {
        let fixed = QUICConfiguration().with { $0.fixedUDPPayloadSize = 1472 }
        let short = try download(fixed).serverDatagramSizes
        let long = try download(fixed.with { $0.clientConnectionIDLength = 17 }).serverDatagramSizes
        XCTAssertEqual(QUICConfiguration().clientConnectionIDLength, 0)
        // The same body in more datagrams: the payload per full datagram shrinks by 17 bytes.
        let perDatagram = Double(body) / Double(short.count)
        XCTAssertGreaterThan(long.count, short.count)
        let expectedExtra = Double(body) / (perDatagram - 17) - Double(body) / perDatagram
        XCTAssertEqual(Double(long.count - short.count), expectedExtra, accuracy: max(4, expectedExtra * 0.35))
    }

    /// A padded ClientHello (`clientHelloPadding`, a GREASE extension the server ignores) no longer
    /// fits one Initial datagram: the client's handshake costs one more full datagram, as a
    /// browser's with its post-quantum key share does, and the transfer completes as before.
    func testClientHelloPaddingAddsAnInitialDatagramAndTheServerIgnoresIt() throws {
        func firstFlight(_ config: QUICConfiguration) throws -> [Int] {
            let net = VirtualNetwork(
                server: try makeServer(QUICConfiguration(), now: Instant(nanoseconds: 1_000_000_000)),
                at: serverAddress)
            let probe = net.add(try makeClient(config, now: net.now), at: clientAddress)
            let stream = try probe.client.submitRequest(authority: "localhost", path: "/bytes/1000")
            XCTAssertTrue(net.run(for: .seconds(10)) { probe.finished.contains(stream) || probe.closedWith != nil })
            XCTAssertNil(probe.closedWith)
            XCTAssertEqual(probe.bytes[stream], 1000)
            return net.clientDatagramSizes
        }
        let plain = try firstFlight(QUICConfiguration())
        let padded = try firstFlight(QUICConfiguration().with { $0.clientHelloPadding = 1_650 })
        let full = { (sizes: [Int]) in sizes.filter { $0 >= 1200 }.count }
        XCTAssertEqual(full(padded), full(plain) + 1, "plain \(plain), padded \(padded)")
        XCTAssertEqual(QUICConfiguration().clientHelloPadding, 0)
    }
}
