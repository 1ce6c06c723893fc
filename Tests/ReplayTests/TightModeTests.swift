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

    /// Blink's first-images boost: the first five images a document's HTML names that are not small
    /// (over 10,000 px² at `PageImage`'s size) are Medium (`net::LOW`); small ones neither get it nor
    /// count, a stylesheet's image never does (it is raised to High instead, being in view), an iframe's
    /// document has five of its own, and a recorded page's images (size unknown) are not small.
    func testTheFirstFiveImagesThatAreNotSmallAreBoosted() {
        var r: [Scenario.Resource] = [
            .init(id: "html", origin: "o", path: "/", bytes: 10_000, type: .document),
            .init(
                id: "css", origin: "o", path: "/a.css", bytes: 100, type: .stylesheet, parent: "html",
                revealAfterBytes: 100, renderBlocking: true),
            .init(id: "bg", origin: "o", path: "/bg.gif", bytes: 50_000, type: .image, parent: "css"),
            .init(
                id: "tiny", origin: "o", path: "/t.gif", bytes: 1_000, type: .image, parent: "html",
                revealAfterBytes: 150),
            .init(
                id: "frame", origin: "o", path: "/f.html", bytes: 1_000, type: .document, parent: "html",
                revealAfterBytes: 160),
            .init(id: "in-frame", origin: "o", path: "/f.gif", bytes: 50_000, type: .image, parent: "frame"),
        ]
        // Named out of HTML order: the order is the HTML's, and the last one has no offset (the end).
        for i in [6, 2, 1, 5, 3, 4] {
            r.append(
                .init(
                    id: "img\(i)", origin: "o", path: "/i\(i).gif", bytes: 50_000, type: .image, parent: "html",
                    revealAfterBytes: i == 6 ? nil : Int64(200 * i)))
        }
        let s = Scenario(name: "boost", origins: [.init(id: "o", host: "o.test")], resources: r)
        XCTAssertEqual(DispatchPolicy.boostedImages(s), ["img1", "img2", "img3", "img4", "img5", "in-frame"])
        let policy = DispatchPolicy(scenario: s, maxConnectionsPerOrigin: 6)
        XCTAssertEqual(policy.priority(of: "img1"), .low)
        XCTAssertEqual(policy.priority(of: "img6"), .lowest)
        XCTAssertEqual(policy.priority(of: "tiny"), .lowest)
        XCTAssertEqual(policy.priority(of: "bg"), .medium, "a stylesheet's image is in view: High")
        XCTAssertEqual(policy.priority(of: "in-frame"), .low, "a frame's images are not raised to High")

        var recorded = s
        recorded.resources[0].body = .init(sha256: "00")
        XCTAssertEqual(
            DispatchPolicy.boostedImages(recorded), ["img1", "img2", "img3", "img4", "tiny", "in-frame"],
            "a recorded page's image sizes are unknown: none is small")
        XCTAssertEqual(
            DispatchPolicy(scenario: recorded, maxConnectionsPerOrigin: 6).priority(of: "bg"), .lowest,
            "a recorded page's elements are not the renderer's: its stylesheet images stay Low")
    }

    /// In the tight mode a boosted (Medium) image starts while fewer than two Medium requests are in
    /// flight, even when the two-request tight limit is taken by others (Chromium 156: the mobile median
    /// page's second image leaves as its origin's connection is up, beside an async script and the first).
    func testBoostedImagesGoTwoAtATimeBesideTheTightLimit() {
        var r: [Scenario.Resource] = [
            .init(id: "html", origin: "o", path: "/", bytes: 10_000, type: .document),
            .init(
                id: "js", origin: "o", path: "/a.js", bytes: 100, type: .script, parent: "html",
                revealAfterBytes: 100, renderBlocking: true),
        ]
        for i in 1...2 {
            r.append(
                .init(
                    id: "async\(i)", origin: "o", path: "/async\(i).js", bytes: 100, type: .script,
                    parent: "html", revealAfterBytes: Int64(100 + i), renderBlocking: false))
        }
        for i in 1...3 {
            r.append(
                .init(
                    id: "img\(i)", origin: "o", path: "/i\(i).gif", bytes: 50_000, type: .image, parent: "html",
                    revealAfterBytes: Int64(1000 * i)))
        }
        let conn = FakeConnection()
        let loader = PageLoader(
            scenario: Scenario(name: "medium", origins: [.init(id: "o", host: "o.test")], resources: r), kind: .h2
        ) { _, _ in conn }
        loader.start()
        conn.requests[0].events(.data(count: 500, Instant.now()))
        XCTAssertEqual(conn.paths, ["/", "/a.js", "/async1.js", "/async2.js"], "two async scripts take the tight limit")
        conn.finish("/", bytes: 9_500)
        XCTAssertEqual(
            Array(conn.paths.dropFirst(4)), ["/i1.gif", "/i2.gif"], "two Medium images go beside them, not a third")
        conn.finish("/i1.gif", bytes: 50_000)
        XCTAssertEqual(conn.paths.last, "/i3.gif", "a Medium one ended: the next one goes")
        for p in ["/a.js", "/async1.js", "/async2.js"] { conn.finish(p, bytes: 100) }
        for p in ["/i2.gif", "/i3.gif"] { conn.finish(p, bytes: 50_000) }
        XCTAssertNil(loader.failure)
        XCTAssertTrue(loader.isFinished)
    }

    /// A stylesheet's font and image load only for the elements its rules style, which come after
    /// the head: they wait until the parser is past the head's script, however early the stylesheet
    /// ended; an `@import` does not wait, and a stylesheet that ends after that is not held.
    func testAStylesheetsFontsAndImagesWaitForTheBody() {
        var s = page()
        s.resources += [
            .init(id: "font", origin: "o", path: "/f.woff2", bytes: 100, type: .font, parent: "css"),
            .init(id: "bg", origin: "o", path: "/bg.gif", bytes: 100, type: .image, parent: "css"),
            .init(id: "import", origin: "o", path: "/i.css", bytes: 100, type: .stylesheet, parent: "css"),
            .init(
                id: "late", origin: "o", path: "/late.css", bytes: 100, type: .stylesheet, parent: "html",
                revealAfterBytes: 300, renderBlocking: false),
            .init(id: "late-font", origin: "o", path: "/lf.woff2", bytes: 100, type: .font, parent: "late"),
        ]
        let conn = FakeConnection()
        let loader = PageLoader(scenario: s, kind: .h2) { _, _ in conn }
        loader.start()
        conn.finish("/", bytes: 10_000)
        conn.finish("/a.css", bytes: 100)
        XCTAssertTrue(conn.paths.contains("/i.css"), "an @import goes at once: \(conn.paths)")
        XCTAssertFalse(conn.paths.contains("/f.woff2"), "the parser is still in the head: \(conn.paths)")
        conn.finish("/i1.gif", bytes: 100)
        XCTAssertFalse(conn.paths.contains("/bg.gif"), "the stylesheet's image is not known yet: \(conn.paths)")
        let before = conn.paths.count
        conn.finish("/a.js", bytes: 100)
        let sent = Array(conn.paths.dropFirst(before))
        XCTAssertEqual(
            sent, ["/i4.gif", "/i5.gif", "/f.woff2", "/bg.gif", "/late.css"],
            "the images the tight mode held as the parser reaches <body>, then what it and layout find, most "
                + "urgent first: the font, the stylesheet's image (High), the stylesheet after the script")
        conn.finish("/late.css", bytes: 100)
        XCTAssertEqual(conn.paths.last, "/lf.woff2", "a stylesheet that ends after the head: its font goes at once")
        for p in conn.paths where !["/", "/a.css", "/i1.gif", "/a.js", "/late.css"].contains(p) {
            conn.finish(p, bytes: 100)
        }
        XCTAssertNil(loader.failure)
        XCTAssertTrue(loader.isFinished, "\(conn.paths)")
    }
}
