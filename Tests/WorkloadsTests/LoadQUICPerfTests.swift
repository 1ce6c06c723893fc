import XCTest
import BenchCore
import BenchModel
import SystemIO
import Transport
import QUIC
import Testbed
@testable import Workloads

/// The load generator over raw QUIC perf streams (`-t quic-perf`) against netbench's perf server in
/// this process, on loopback: every due request is one stream, answered with exactly its size.
final class LoadQUICPerfTests: XCTestCase {
    var quic: QUICConfiguration {
        var q = QUICConfiguration()
        q.initialRTT = .milliseconds(1)
        return q
    }

    func perfServer(_ credentials: RunCredentials) throws -> ServerHost {
        var options = ServerHost.ServerOptions(quic: quic)
        options.quic.alpn = QUICPerf.alpn
        let scenario = Scenario(
            name: "perf", origins: [.init(id: "o", host: "localhost")],
            resources: [.init(id: "obj", origin: "o", path: "/obj", bytes: 1, type: .other)])
        return try ServerHost(
            scenarios: [scenario], credentials: credentials, address: Endpoint.loopbackAddress, namespace: nil,
            withTCP: false, withQUIC: true, options: options)
    }

    func load(
        _ model: LoadSettings.Model, targets: [LoadTarget], server: ServerHost, credentials: RunCredentials
    ) throws -> LoadOutcome {
        let settings = LoadSettings(transport: .quicPerf, model: model, connections: 2, streams: 4)
        let client = ClientSettings(tls: nil, quic: quic, trustedRootsPEM: credentials.caPEM)
        let generator = try LoadGenerator(
            settings: settings, targets: targets, remote: try XCTUnwrap(server.endpoints[0].udp), client: client)
        return try generator.run()
    }

    /// Open model, 400 req/s for 0.5 s over two sizes (one of them empty): 200 streams due, 200 answered
    /// with their exact bytes, no error, on the two connections asked for.
    func testOpenModelAnswersEveryDueStreamWithItsBytes() throws {
        let credentials = try RunCredentials(hosts: ["localhost"])
        let server = try perfServer(credentials)
        defer { server.stop() }
        let targets = [
            LoadTarget(serverName: "localhost", path: "/obj", expectedBytes: 2500).perf!,
            LoadTarget(serverName: "localhost", path: "/empty", expectedBytes: 0).perf!,
        ]
        XCTAssertEqual(targets.map(\.path), ["/2500", "/0"])
        let o = try load(
            .open([.init(rate: 400, duration: .milliseconds(500))]), targets: targets, server: server,
            credentials: credentials)
        XCTAssertEqual(o.scheduled, 200)
        XCTAssertEqual(o.sent, 200)
        XCTAssertEqual(o.ok, 200, "\(o.errorExamples)")
        XCTAssertEqual(o.errors, [:])
        XCTAssertEqual(o.bytes, 100 * 2500)
        XCTAssertEqual(o.connectionsOpened, 2)
        XCTAssertEqual(o.latency.totalCount, 200)
    }

    /// Closed model, and a size check that can fail: the server sends the 3,000 bytes the stream asks
    /// for while the target expects 3,001, so every answer is a `length` error and none is ok.
    func testClosedModelCountsWrongSizesAsLengthErrors() throws {
        let credentials = try RunCredentials(hosts: ["localhost"])
        let server = try perfServer(credentials)
        defer { server.stop() }
        let right = try load(
            .closed(duration: .milliseconds(300)), targets: [LoadTarget(serverName: "localhost", path: "/3000",
                expectedBytes: 3000)], server: server, credentials: credentials)
        XCTAssertGreaterThan(right.ok, 0)
        XCTAssertEqual(right.errors, [:])
        XCTAssertEqual(right.bytes, Int64(right.ok) * 3000)
        let wrong = try load(
            .closed(duration: .milliseconds(300)), targets: [LoadTarget(serverName: "localhost", path: "/3000",
                expectedBytes: 3001)], server: server, credentials: credentials)
        XCTAssertEqual(wrong.ok, 0)
        XCTAssertGreaterThan(wrong.errors["length"] ?? 0, 0, "\(wrong.errors)")
        XCTAssertTrue(wrong.errorExamples["length"]?.contains("3000 body bytes, expected exactly 3001") ?? false)
    }

    /// A server name the certificate does not carry: every connection fails its handshake (`connect`),
    /// as the h3 path checks certificates.
    func testCertificateIsChecked() throws {
        let credentials = try RunCredentials(hosts: ["localhost"])
        let server = try perfServer(credentials)
        defer { server.stop() }
        var settings = LoadSettings(
            transport: .quicPerf, model: .closed(duration: .milliseconds(200)), connections: 1, streams: 1)
        settings.grace = .milliseconds(500)
        let other = try RunCredentials(hosts: ["localhost"])  // a CA of its own
        let client = ClientSettings(tls: nil, quic: quic, trustedRootsPEM: other.caPEM)
        let generator = try LoadGenerator(
            settings: settings, targets: [LoadTarget(serverName: "localhost", path: "/10", expectedBytes: 10)],
            remote: try XCTUnwrap(server.endpoints[0].udp), client: client)
        let o = try generator.run()
        XCTAssertEqual(o.ok, 0)
        XCTAssertEqual(Set(o.errors.keys).subtracting(["connect", "timeout"]), [], "\(o.errorExamples)")
        XCTAssertGreaterThan(o.errors["connect"] ?? 0, 0, "\(o.errorExamples)")
    }
}
