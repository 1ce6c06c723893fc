import XCTest
import BenchCore
import BenchModel
import Transport
@testable import Replay

/// Blink's tight mode in the built-in loader: until the root document's head is through, at most
/// two requests below `net::MEDIUM` are in flight; render-blocking ones are never held.
final class TightModeTests: XCTestCase {
    private func page(headScript: Bool = true) -> Scenario {
        var r: [Scenario.Resource] = [
            .init(id: "html", origin: "o", path: "/", bytes: 10_000, type: .document),
            .init(
                id: "css", origin: "o", path: "/a.css", bytes: 100, type: .stylesheet, parent: "html",
                revealAfterBytes: 100, renderBlocking: true),
        ]
        if headScript {
            r.append(
                .init(
                    id: "js", origin: "o", path: "/a.js", bytes: 100, type: .script, parent: "html",
                    revealAfterBytes: 200, renderBlocking: true))
        }
        for i in 1...5 {
            r.append(
                .init(
                    id: "img\(i)", origin: "o", path: "/i\(i).gif", bytes: 100, type: .image, parent: "html",
                    revealAfterBytes: Int64(1000 * i)))
        }
        return Scenario(name: "tight", origins: [.init(id: "o", host: "o.test")], resources: r)
    }

    func testImagesWaitTwoAtATimeUntilTheHeadIsThrough() {
        let conn = FakeConnection()
        let loader = PageLoader(scenario: page(), kind: .h2) { _, _ in conn }
        loader.start()
        XCTAssertEqual(conn.paths, ["/"])
        conn.finish("/", bytes: 10_000)
        XCTAssertEqual(
            Set(conn.paths), ["/", "/a.css", "/a.js", "/i1.gif", "/i2.gif"], "the head's resources, and two images")
        conn.finish("/i1.gif", bytes: 100)
        XCTAssertEqual(conn.paths.last, "/i3.gif", "one image ended, the next one starts")
        XCTAssertEqual(conn.paths.count, 6)
        conn.finish("/a.css", bytes: 100)
        XCTAssertEqual(conn.paths.count, 6, "the head's script is still out")
        conn.finish("/a.js", bytes: 100)
        XCTAssertEqual(Set(conn.paths.suffix(2)), ["/i4.gif", "/i5.gif"], "the body is reached: every image may go")
        for p in ["/i2.gif", "/i3.gif", "/i4.gif", "/i5.gif"] { conn.finish(p, bytes: 100) }
        XCTAssertTrue(loader.isFinished)
        XCTAssertNil(loader.failure)
    }

    /// A stylesheet that does not block rendering (written `media="print"`) is not preloaded: the
    /// parser asks for it when it reaches its tag, after the parser-blocking script before it.
    func testANonBlockingStylesheetWaitsForTheScriptBeforeIt() {
        let conn = FakeConnection()
        var s = page()
        s.resources.append(
            .init(
                id: "print", origin: "o", path: "/p.css", bytes: 100, type: .stylesheet, parent: "html",
                revealAfterBytes: 300, renderBlocking: false))
        let loader = PageLoader(scenario: s, kind: .h2) { _, _ in conn }
        loader.start()
        conn.finish("/", bytes: 10_000)
        XCTAssertFalse(conn.paths.contains("/p.css"), "the parser waits for /a.js: \(conn.paths)")
        conn.finish("/a.js", bytes: 100)
        XCTAssertFalse(
            conn.paths.contains("/p.css"), "reached, but the tight mode holds it (two images out): \(conn.paths)")
        conn.finish("/a.css", bytes: 100)
        XCTAssertTrue(conn.paths.contains("/p.css"), "the head is through: \(conn.paths)")
    }

    func testAHeadWithNothingBlockingHoldsNothing() {
        let conn = FakeConnection()
        var s = page(headScript: false)
        s.resources[1].renderBlocking = false
        let loader = PageLoader(scenario: s, kind: .h2) { _, _ in conn }
        loader.start()
        conn.finish("/", bytes: 10_000)
        XCTAssertEqual(conn.paths.count, 7, "the root's bytes are in and its head blocks nothing: \(conn.paths)")
    }
}
