import XCTest
import BenchCore
import BenchModel
import Transport
@testable import Replay

/// HTTP/1.1 binds late: a connection opened for a waiting request may find it served by one that
/// freed first. Its record says it carried nothing, so a connection closed before its handshake
/// (no `handshakeEnd`, no `alpn`) reads as what it is.
final class UnusedConnectionTests: XCTestCase {
    /// One request at a time; ready when the test says so.
    final class Fake: ClientConnection {
        var info = ConnectionInfo(
            kind: .h1, connectStart: Instant.now(), remote: Endpoint(address: 0x7f00_0001, port: 443))
        var isUsable = true
        var freeSlots = 1
        var onStateChange: (() -> Void)?
        var bytesAcknowledged: Int64? { nil }
        var requests: [(path: String, events: (ClientEvent) -> Void)] = []
        func send(_ request: ClientRequest, _ events: @escaping (ClientEvent) -> Void) {
            freeSlots -= 1
            requests.append((request.path, events))
        }
        func networkChanged(_ change: NetworkChange) {}
        func close() {
            isUsable = false
            info.closedAt = Instant.now()
        }
        func ready() {
            info.connectEnd = Instant.now()
            info.handshakeEnd = Instant.now()
            info.alpn = "http/1.1"
            onStateChange?()
        }
        func finish(_ path: String, bytes: Int) {
            let e = requests.first { $0.path == path }!.events
            let t = Instant.now()
            e(.sent(t))
            e(.head(status: 200, headers: [], t))
            e(.data(count: bytes, t))
            freeSlots += 1
            e(.end(t))
        }
    }

    func testAConnectionNoRequestWentOnIsMarkedUnused() throws {
        let page = Scenario(
            name: "late", origins: [.init(id: "o", host: "o.test")],
            resources: [
                .init(id: "html", origin: "o", path: "/", bytes: 1_000, type: .document),
                .init(
                    id: "css", origin: "o", path: "/a.css", bytes: 100, type: .stylesheet, parent: "html",
                    revealAfterBytes: 100, renderBlocking: true),
            ])
        var opened: [Fake] = []
        let loader = PageLoader(scenario: page, kind: .h1) { _, _ in
            let c = Fake()
            opened.append(c)
            return c
        }
        loader.start()
        XCTAssertEqual(opened.count, 1)
        opened[0].ready()
        XCTAssertEqual(opened[0].requests.map(\.path), ["/"])
        opened[0].requests[0].events(.data(count: 500, Instant.now()))
        XCTAssertEqual(opened.count, 2, "the stylesheet waits: a second connection is opened for it")
        opened[0].finish("/", bytes: 500)
        XCTAssertEqual(opened[0].requests.map(\.path), ["/", "/a.css"], "the freed connection takes it")
        XCTAssertTrue(opened[1].requests.isEmpty)
        opened[0].finish("/a.css", bytes: 100)
        XCTAssertTrue(loader.isFinished)
        loader.closeConnections()
        let records = loader.records()
        XCTAssertEqual(records.connections.count, 2)
        XCTAssertNil(records.connections[0].unused)
        XCTAssertEqual(records.connections[0].alpn, "http/1.1")
        XCTAssertEqual(records.connections[1].unused, true)
        XCTAssertNil(records.connections[1].handshakeEnd)
        XCTAssertNil(records.connections[1].alpn)
        XCTAssertEqual(Set(records.requests.compactMap(\.connection)), [0])
    }
}
