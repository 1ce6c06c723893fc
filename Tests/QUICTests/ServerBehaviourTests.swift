import BenchCore
import QUIC
import XCTest

final class ServerBehaviourTests: XCTestCase {
    private func newNetwork(_ config: QUICConfiguration = QUICConfiguration()) throws -> VirtualNetwork {
        VirtualNetwork(server: try makeServer(config, now: Instant(nanoseconds: 1_000_000_000)), at: serverAddress)
    }

    func testServerReapsIdleConnectionWhenClientVanishes() throws {
        let config = QUICConfiguration().with { $0.idleTimeout = .seconds(1) }
        let net = try newNetwork(config)
        let probe = net.add(try makeClient(config, now: net.now), at: clientAddress)
        XCTAssertTrue(net.run(for: .seconds(5)) { probe.handshakeDone })
        XCTAssertEqual(net.server.connectionCount, 1)
        net.allProbes.removeAll()  // the client stops sending and receiving
        net.probes.removeAll()
        XCTAssertTrue(net.run(for: .seconds(10)) { net.server.connectionCount == 0 })
        guard case .connectionClosed(_, .idleTimeout?)? = net.serverEvents.last else {
            return XCTFail("expected an idle close, got \(String(describing: net.serverEvents.last))")
        }
        XCTAssertNil(net.server.expiry)
    }

    func testResponseSubmittedLaterThanRequest() throws {
        let net = try newNetwork()
        net.respond = false
        let probe = net.add(try makeClient(now: net.now), at: clientAddress)
        let stream = try probe.client.submitRequest(
            authority: "localhost", path: "/page", headers: [("User-Agent", "netbench")])
        XCTAssertTrue(
            net.run(for: .seconds(5)) {
                net.serverEvents.contains { if case .request = $0 { return true } else { return false } }
            })
        guard
            case .request(let conn, let s, let method, let authority, let path, let headers, let body)? =
                net.serverEvents.first(where: { if case .request = $0 { return true } else { return false } })
        else { return XCTFail() }
        XCTAssertEqual(s, stream)
        XCTAssertEqual(method, "GET")
        XCTAssertEqual(authority, "localhost")
        XCTAssertEqual(path, "/page")
        XCTAssertEqual(headers.first { $0.0 == "user-agent" }?.1, "netbench")
        XCTAssertEqual(body, 0)
        net.run(for: .milliseconds(300)) { false }  // server think time
        XCTAssertTrue(probe.finished.isEmpty)
        try net.server.submitResponse(
            connection: conn, stream: stream, status: 404,
            headers: [("x-think", "300ms")], bodyLength: 12_345)
        XCTAssertTrue(net.run(for: .seconds(5)) { probe.finished.contains(stream) })
        XCTAssertEqual(probe.status[stream], 404)
        XCTAssertEqual(probe.bytes[stream], 12_345)
        XCTAssertEqual(probe.headers[stream]?.first { $0.0 == "x-think" }?.1, "300ms")
        XCTAssertThrowsError(
            try net.server.submitResponse(
                connection: HTTP3ConnectionHandle(rawValue: 999),
                stream: 0, status: 200, bodyLength: 1))
    }

    func testMoreRequestsThanStreamCreditAreQueued() throws {
        let config = QUICConfiguration().with { $0.maxStreamsBidi = 10 }
        let net = try newNetwork(config)
        let probe = net.add(try makeClient(config, now: net.now), at: clientAddress)
        var streams: [Int64] = []
        for i in 0..<150 {
            streams.append(try probe.client.submitRequest(authority: "localhost", path: "/bytes/\(i * 100)"))
        }
        XCTAssertEqual(streams, (0..<150).map { Int64($0 * 4) }, "stream IDs follow submission order")
        XCTAssertTrue(net.run(for: .seconds(30)) { probe.finished.count == 150 || probe.closedWith != nil })
        for (i, s) in streams.enumerated() { XCTAssertEqual(probe.bytes[s] ?? 0, i * 100) }
    }

    func testTwoClientsShareOneServer() throws {
        let net = try newNetwork()
        let a = net.add(try makeClient(now: net.now), at: clientAddress)
        let bAddress = Endpoint(address: 0x0A00_0104, port: 50_004)
        let b = net.add(try makeClient(local: bAddress, now: net.now), at: bAddress)
        let sa = try a.client.submitRequest(authority: "localhost", path: "/bytes/3000000")
        let sb = try b.client.submitRequest(authority: "localhost", path: "/bytes/2000000")
        XCTAssertTrue(net.run(for: .seconds(30)) { a.finished.contains(sa) && b.finished.contains(sb) })
        XCTAssertEqual(a.bytes[sa], 3_000_000)
        XCTAssertEqual(b.bytes[sb], 2_000_000)
        XCTAssertEqual(net.server.connectionCount, 2)
        let opened = net.serverEvents.compactMap { e -> Endpoint? in
            if case .connectionOpened(_, let remote) = e { return remote } else { return nil }
        }
        XCTAssertEqual(Set(opened), [clientAddress, bAddress])
    }

    func testServerPicksCertificateBySNI() throws {
        let other = try TestPKI.make(name: "other.test")
        let server = try HTTP3Server(
            config: QUICConfiguration(),
            credentials: [TestPKI.shared.credentials, other.credentials],
            now: Instant(nanoseconds: 1_000_000_000))
        let net = VirtualNetwork(server: server, at: serverAddress)
        let a = net.add(try makeClient(now: net.now), at: clientAddress)
        let bAddress = Endpoint(address: 0x0A00_0104, port: 50_004)
        let b = net.add(
            try HTTP3Client(
                config: QUICConfiguration(), trustedRootsPEM: other.caPEM,
                serverName: "other.test", local: bAddress, remote: serverAddress,
                now: net.now), at: bAddress)
        XCTAssertTrue(
            net.run(for: .seconds(5)) {
                (a.handshakeDone || a.closedWith != nil) && (b.handshakeDone || b.closedWith != nil)
            })
        XCTAssertNil(a.closedWith, "localhost gets the first certificate")
        XCTAssertNil(b.closedWith, "other.test gets its own certificate")
    }
}
