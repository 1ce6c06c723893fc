import XCTest
import BenchCore
import BenchModel
import Transport
@testable import Replay

/// HTTP/1.1 binds late: a connection opened for a waiting request may find it served by one that
/// freed first. Its record says it carried nothing, so a connection closed before its handshake
/// (no `handshakeEnd`, no `alpn`) reads as what it is.
final class UnusedConnectionTests: XCTestCase {
    func testAConnectionNoRequestWentOnIsMarkedUnused() throws {
        let page = Scenario(
            name: "late", origins: [.init(id: "o", host: "o.test")],
            resources: [
                .init(id: "html", origin: "o", path: "/", bytes: 1_000, type: .document),
                .init(
                    id: "css", origin: "o", path: "/a.css", bytes: 100, type: .stylesheet, parent: "html",
                    revealAfterBytes: 100, renderBlocking: true),
            ])
        var opened: [FakeConnection] = []
        let loader = PageLoader(scenario: page, kind: .h1) { _, _ in
            let c = FakeConnection(kind: .h1, slots: 1)
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

    /// Each request's record names the priority it went out with (the HTTP/2 weight and dependency
    /// Chromium would give it), so a run can be set beside a browser's, request by request.
    func testRecordsNameThePrioritySentWithEachRequest() throws {
        let page = Scenario(
            name: "prio", origins: [.init(id: "o", host: "o.test")],
            resources: [
                .init(id: "html", origin: "o", path: "/", bytes: 1_000, type: .document),
                .init(
                    id: "css", origin: "o", path: "/a.css", bytes: 100, type: .stylesheet, parent: "html",
                    revealAfterBytes: 100, renderBlocking: true),
                .init(
                    id: "print", origin: "o", path: "/p.css", bytes: 100, type: .stylesheet, parent: "html",
                    revealAfterBytes: 100, renderBlocking: false),
                .init(id: "img", origin: "o", path: "/i.png", bytes: 100, type: .image, parent: "html"),
                .init(
                    id: "js", origin: "o", path: "/a.js", bytes: 100, type: .script, parent: "html",
                    renderBlocking: true),
            ])
        var opened: [FakeConnection] = []
        let loader = PageLoader(scenario: page, kind: .h2) { _, _ in
            let c = FakeConnection(kind: .h2)
            opened.append(c)
            return c
        }
        loader.start()
        opened[0].ready()
        var answered = 0
        while answered < opened[0].paths.count {
            let path = opened[0].paths[answered]
            opened[0].finish(path, bytes: path == "/" ? 1_000 : 100)
            answered += 1
        }
        XCTAssertTrue(loader.isFinished)
        let records = loader.records()
        let byID = Dictionary(uniqueKeysWithValues: records.requests.map { ($0.id, $0.priority) })
        XCTAssertEqual(byID, ["html": "highest", "css": "highest", "js": "medium", "print": "idle", "img": "lowest"])
        for r in page.resources {
            XCTAssertEqual(byID[r.id], opened[0].sentPriorities[r.path]?.description, r.id)
            // The document and the image incremental (RFC 9218 `i`), stylesheets and the script not.
            XCTAssertEqual(opened[0].sentIncremental[r.path], r.type == .document || r.type == .image, r.id)
        }
    }
}
