import XCTest
import BenchCore
import SystemIO
import TLS
import Transport

/// Requests handed to an HTTP/2 client connection in one event-loop turn are submitted together
/// at the end of the turn (one TLS record of HEADERS frames, one write), as browsers and h2load
/// batch them: each request is marked sent exactly once, all at the batch's instant, and each is
/// answered. A request sent from a response callback joins the next batch.
final class HTTP2ClientBatchingTests: XCTestCase {
    private struct Trace {
        var sent: [Instant] = []
        var heads = 0
        var ends = 0
        var failures: [String] = []
        var sentBeforeHead = true
    }

    /// A TLS HTTP/2 server on loopback answering every request with `bodyLength` bytes, and an
    /// HTTP/2 client connection to it (handshake not yet made).
    private static func open(bodyLength: Int64) throws -> (EventLoop, TCPServer, ClientConnection) {
        let ca = try CertificateAuthority(commonName: "h2 batching test CA")
        let serverTLS = try TLSServerContext(
            TLSServerConfiguration(identities: [try ca.issue(hostNames: ["origin.test"])], alpn: ["h2"]))
        let loop = try EventLoop()
        let server = try TCPServer(
            loop: loop, endpoint: Endpoint(address: Endpoint.loopbackAddress, port: 0), tls: serverTLS
        ) { _ in ServerResponse(status: 200, bodyLength: bodyLength) }
        do {
            let settings = ClientSettings(
                tls: try TLSClientContext(TLSClientConfiguration(trustedRootsPEM: ca.certificatePEM, alpn: ["h2"])))
            let connection = try ClientConnector.open(
                .h2, loop: loop, remote: server.endpoint, local: nil, serverName: "origin.test", settings: settings)
            return (loop, server, connection)
        } catch {
            server.close()
            throw error
        }
    }

    func testRequestsOfOneTurnLeaveTogetherAndEachIsSentOnce() throws {
        let (loop, server, connection) = try Self.open(bodyLength: 100)
        defer { connection.close(); server.close() }  // the client first, as it may still write

        let first = 30, second = 5
        var traces = Array(repeating: Trace(), count: first + second)
        func send(_ i: Int) {
            connection.send(ClientRequest(authority: "origin.test", path: "/r\(i)")) { event in
                switch event {
                case .sent(let t): traces[i].sent.append(t)
                case .head(let status, _, _):
                    traces[i].heads += 1
                    if traces[i].sent.isEmpty || status != 200 { traces[i].sentBeforeHead = false }
                case .data: break
                case .end:
                    traces[i].ends += 1
                    // The first response's end sends the second batch, from inside a callback.
                    if i == 0 { for j in first..<(first + second) { send(j) } }
                case .failed(let why, _): traces[i].failures.append(why)
                }
            }
        }
        for i in 0..<first { send(i) }  // before the handshake: they wait in the connection
        let deadline = Instant.now() + .seconds(10)
        try loop.run(until: deadline) { traces.allSatisfy { $0.ends + $0.failures.count > 0 } }

        for (i, t) in traces.enumerated() {
            XCTAssertEqual(t.failures, [], "request \(i)")
            XCTAssertEqual(t.sent.count, 1, "request \(i) is marked sent once")
            XCTAssertEqual(t.heads, 1, "request \(i)")
            XCTAssertEqual(t.ends, 1, "request \(i)")
            XCTAssertTrue(t.sentBeforeHead, "request \(i): sent before its response head")
        }
        let firstBatch = Set(traces[0..<first].compactMap(\.sent.first))
        let secondBatch = Set(traces[first...].compactMap(\.sent.first))
        XCTAssertEqual(firstBatch.count, 1, "the requests of one turn leave in one batch")
        XCTAssertEqual(secondBatch.count, 1, "the requests sent from one callback leave in one batch")
        XCTAssertNotEqual(firstBatch, secondBatch)
        XCTAssertEqual(server.counters.requests, first + second)
    }

    /// Requests sent on an open connection within one turn (not only those waiting for the
    /// handshake) leave together too.
    func testRequestsSentAfterTheHandshakeInOneTurnLeaveTogether() throws {
        let (loop, server, connection) = try Self.open(bodyLength: 10)
        defer { connection.close(); server.close() }  // the client first, as it may still write
        var ready = false
        connection.onStateChange = { ready = ready || connection.info.handshakeEnd != nil }
        try loop.run(until: Instant.now() + .seconds(10)) { ready }
        XCTAssertTrue(ready, "handshake: \(connection.info.error ?? "timed out")")

        var sent: [Instant] = [], ends = 0
        for i in 0..<20 {
            connection.send(ClientRequest(authority: "origin.test", path: "/s\(i)")) { event in
                if case .sent(let t) = event { sent.append(t) }
                if case .end = event { ends += 1 }
            }
        }
        XCTAssertEqual(sent.count, 0, "nothing leaves before the turn ends")
        try loop.run(until: Instant.now() + .seconds(10)) { ends == 20 }
        XCTAssertEqual(ends, 20)
        XCTAssertEqual(sent.count, 20)
        XCTAssertEqual(Set(sent).count, 1, "one batch")
    }
}
