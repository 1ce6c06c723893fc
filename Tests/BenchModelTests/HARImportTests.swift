import Foundation
import XCTest
import BenchCore
@testable import BenchModel

/// HAR import from hand-written fixtures with the fields each tool emits (Fixtures/har/).
final class HARImportTests: XCTestCase {
    func har(_ name: String, _ options: HARImporter.Options = .init()) throws -> HARImporter.Result {
        try HARImporter.load(path: fixtures.appendingPathComponent("har/\(name).har").path, options: options)
    }

    func resource(_ s: Scenario, path: String) throws -> Scenario.Resource {
        try XCTUnwrap(s.resources.first { $0.path == path }, "no resource with path \(path)")
    }

    func testChromeInitiatorsSizesAndThinkTimes() throws {
        let r = try har("chrome")
        let s = r.scenario
        XCTAssertEqual(s.name, "chrome")
        XCTAssertEqual(s.resources.count, 10)
        XCTAssertEqual(
            s.origins.map(\.host),
            ["www.shop.test", "static.shop.test", "cdn.images.test", "fonts.cdn.test", "analytics.tracker.test"])
        XCTAssertEqual(s.origins.map(\.id), s.origins.map(\.host))
        let root = try XCTUnwrap(s.root)
        XCTAssertEqual(root.id, "document")
        XCTAssertEqual(root.path, "/")
        XCTAssertEqual(root.bytes, 20_000)  // bodySize, not content.size
        // Recorded RTT: the fastest TCP handshake, connect − ssl = 22 − 11 ms.
        XCTAssertEqual(r.report.roundTripMs, 11)
        XCTAssertEqual(root.thinkTimeMs, 69)  // wait 80 − 11
        let css = try resource(s, path: "/css/main.css")
        XCTAssertEqual(css.parent, "document")
        // The HTML's body arrived from 156.5 to 186.5 ms; the CSS started at 170: 45% of 20,000 bytes.
        XCTAssertEqual(css.revealAfterBytes, 9_000)
        XCTAssertEqual(css.renderBlocking, true)
        XCTAssertEqual(try resource(s, path: "/js/app.js").renderBlocking, true)  // _priority High, from the document
        let font = try resource(s, path: "/inter.woff2")
        XCTAssertEqual(font.parent, "main.css")  // parser initiator: the stylesheet
        XCTAssertEqual(font.bytes, 24_000)  // bodySize -1 → content.size
        XCTAssertEqual(font.type, .font)
        XCTAssertNil(font.revealAfterBytes)
        let cart = try resource(s, path: "/api/cart")
        XCTAssertEqual(cart.parent, "app.js")  // script initiator: top call frame
        XCTAssertEqual(cart.type, .xhr)  // _resourceType fetch
        XCTAssertEqual(cart.bytes, 1_200)  // bodySize 0 (cache) → content.size
        XCTAssertEqual(try resource(s, path: "/t.js").parent, "app.js")  // async parent stack
        let beacon = try resource(s, path: "/collect?v=1&t=pageview")
        XCTAssertEqual(beacon.parent, "t.js")
        XCTAssertEqual(beacon.bytes, 0)  // a 204: not the _transferSize of its headers
        // The initiator (missing.css) is not in the HAR: timing decides (app.js ended last before it started).
        XCTAssertEqual(try resource(s, path: "/img/bg.png").parent, "app.js")
        XCTAssertEqual(r.report.parentsFromInitiator, 8)
        XCTAssertEqual(r.report.parentsFromTiming, 1)
        XCTAssertEqual(r.report.creator, "WebInspector 537.36")
    }

    func testChromeRedirectDataURLDuplicateAndPost() throws {
        let r = try har("chrome")
        XCTAssertEqual(
            r.report.redirects,
            [.init(entry: 0, status: 301, from: "http://www.shop.test/", to: "https://www.shop.test/", targetEntry: 1)])
        XCTAssertEqual(r.report.skipped.map(\.entry), [7, 8])
        assertContains(r.report.skipped[0].description, "log.entries[7]: data: URL")
        assertContains(r.report.skipped[1].description, "log.entries[8]: duplicate of log.entries[6]")
        XCTAssertEqual(
            r.report.notes.map(\.description),
            ["log.entries[5]: POST request: its 256-byte body was not recorded; sent without one"])
        XCTAssertEqual(try resource(r.scenario, path: "/api/cart").method, "POST")
        XCTAssertNil(try resource(r.scenario, path: "/api/cart").requestBody)
        // Nothing about the redirect or the duplicate leaks into the scenario.
        XCTAssertEqual(r.scenario.resources.filter { $0.path == "/hero.jpg" }.count, 1)
        XCTAssertFalse(r.scenario.resources.contains { $0.path.hasPrefix("data:") })
    }

    func testFirefoxTimingDependencies() throws {
        let r = try har("firefox")
        let s = r.scenario
        XCTAssertEqual(
            s.resources.map(\.path),
            ["/", "/style.css", "/main.js", "/fonts/serif.woff2", "/v1/headlines.json", "/photo1.webp", "/photo2.webp"])
        XCTAssertEqual(r.report.parentsFromInitiator, 0)
        // Nothing had finished when the CSS and JS started: children of the root, revealed while
        // the HTML streamed in (first byte at 100 ms, last at 150 ms, 30,000 bytes).
        let css = try resource(s, path: "/style.css")
        XCTAssertEqual(css.parent, "document")
        XCTAssertEqual(css.revealAfterBytes, 12_000)  // started at 120 ms: 40%
        XCTAssertEqual(try resource(s, path: "/main.js").revealAfterBytes, 15_000)
        XCTAssertEqual(try resource(s, path: "/fonts/serif.woff2").parent, "style.css")  // CSS ended at 180, JS at 230
        XCTAssertEqual(try resource(s, path: "/v1/headlines.json").parent, "main.js")
        XCTAssertEqual(try resource(s, path: "/photo1.webp").parent, "main.js")  // an XHR cannot reveal
        XCTAssertEqual(try resource(s, path: "/photo2.webp").bytes, 38_000)  // bodySize -1
        XCTAssertEqual(s.depth, 3)
        XCTAssertEqual(
            r.report.skipped.map(\.description),
            ["log.entries[7]: belongs to page 'page_2'; netbench imports the first page, 'page_1'"])
        XCTAssertEqual(r.report.roundTripMs, 15)  // connect 30 − ssl 15
    }

    func testWebPageTestStringInitiatorLocationRedirectAndRepeatView() throws {
        let r = try har("webpagetest", .init(name: "travel"))
        let s = r.scenario
        XCTAssertEqual(s.name, "travel")
        XCTAssertEqual(s.root?.path, "/")
        XCTAssertEqual(s.origins.map(\.host), ["www.travel.test", "tiles.maps.test"])
        XCTAssertEqual(r.report.redirects.first?.to, "https://www.travel.test/")  // from the Location header
        XCTAssertEqual(r.report.redirects.first?.targetEntry, 1)
        XCTAssertEqual(try resource(s, path: "/app.css").parent, "document")
        XCTAssertEqual(try resource(s, path: "/img/beach.jpg").parent, "app.js")  // _initiator is a URL string
        XCTAssertEqual(try resource(s, path: "/tile/1/2/3.png").parent, "app.js")  // no initiator: timing
        XCTAssertEqual(r.report.parentsFromInitiator, 4)
        XCTAssertEqual(r.report.skipped.map(\.entry), [7])  // the repeat view
        XCTAssertEqual(r.report.notes.map(\.entry), [])  // the POST is kept as one (bodySize -1: no body to note)
        let search = try resource(s, path: "/api/search")
        XCTAssertEqual(search.method, "POST")
        XCTAssertEqual(search.thinkTimeMs, 103)  // wait 120 − RTT 17
    }

    func testRawWaitKeepsTheRecordedRoundTrip() throws {
        let r = try har("webpagetest", .init(subtractRoundTrip: false))
        XCTAssertNil(r.report.roundTripMs)
        XCTAssertEqual(try resource(r.scenario, path: "/api/search").thinkTimeMs, 120)
    }

    func testImportedScenarioRoundTripsThroughJSON() throws {
        for name in ["chrome", "firefox", "webpagetest"] {
            let s = try har(name).scenario
            let back = try JSONFile.decode(Scenario.self, from: try JSONFile.encode(s), file: name)
            XCTAssertEqual(back, s)
            XCTAssertNoThrow(try back.validate(file: name))
        }
    }

    func testTruncatedHARNamesTheEntry() {
        let path = fixtures.appendingPathComponent("har/truncated.har").path
        let m = errorMessage { _ = try HARImporter.load(path: path) }
        assertContains(m, path + ": log.entries[5]", "truncated")
    }

    func testMissingURLNamesTheEntry() {
        let path = fixtures.appendingPathComponent("har/missing-url.har").path
        XCTAssertEqual(
            errorMessage { _ = try HARImporter.load(path: path) }, "\(path): log.entries[2].request.url: missing")
    }

    func testBrokenHARsAreDataErrors() {
        func message(_ text: String) -> String {
            errorMessage { _ = try HARImporter.importHAR(Data(text.utf8), file: "x.har") }
        }
        XCTAssertEqual(
            message(
                #"{"log": {"entries": [{"startedDateTime": "2024-10-01T12:00:00Z", "request": {"url": "#
                    + #""https://a.test/"}}]}}"#
            ),
            "x.har: log.entries[0].response: missing")
        XCTAssertEqual(
            message(
                #"{"log": {"entries": [{"startedDateTime": "2024-10-01T12:00:00Z", "request": {"url": "#
                    + #""https://a.test/"}, "response": {"status": "ok"}}]}}"#
            ),
            "x.har: log.entries[0].response.status: wrong type (expected a number)")
        XCTAssertEqual(
            message(
                #"{"log": {"entries": [{"startedDateTime": "yesterday", "request": {"url": "https://a.test/"}, "#
                    + #""response": {"status": 200, "bodySize": 5, "content": {"mimeType": "text/html"}}}]}}"#
            ),
            "x.har: log.entries[0].startedDateTime: 'yesterday' is not an ISO 8601 date-time")
        XCTAssertEqual(message(#"{"log": {"entries": [}}"#), "x.har: log.entries: mismatched '}' at byte 21")
        XCTAssertEqual(message(#"{"log": {}}"#), "x.har: log.entries: missing")
        XCTAssertEqual(message(""), "x.har: (top level): the file is empty")
        assertContains(
            message(
                #"{"log": {"entries": [{"startedDateTime": "2024-10-01T12:00:00Z", "request": {"url": "#
                    + #""https://a.test/x.png"}, "response": {"status": 200, "bodySize": 5}}]}}"#
            ),
            "x.har: no HTML document among the 1 entries")
        do { _ = try HARImporter.importHAR(Data("{".utf8), file: "x.har") } catch let err as BenchError {
            XCTAssertEqual(err.exitCode, .dataError)
        } catch { XCTFail("\(error)") }
    }

    func testLenientFields() throws {
        // Numbers as strings, -1 timings, no timings at all, an unknown _initiator shape.
        let text = #"""
            {"log": {"entries": [
              {"startedDateTime": "2024-10-01T12:00:00.5+0000", "time": "100", "request": {"method": "GET", "url": \#
              "https://www.a.test/"},
               "response": {"status": "200", "bodySize": "5000", "content": {"size": 9000, "mimeType": "text/html; \#
               charset=utf-8"}},
               "timings": {"blocked": -1, "dns": -1, "connect": -1, "send": 0, "wait": 40, "receive": 60}, \#
               "_initiator": 42},
              {"startedDateTime": "2024-10-01T12:00:00.700Z", "request": {"url": "https://www.a.test/a.js#frag"},
               "response": {"status": 200, "_transferSize": 700}}
            ]}}
            """#
        let r = try HARImporter.importHAR(Data(text.utf8), file: "lenient.har")
        XCTAssertEqual(r.scenario.resources.map(\.bytes), [5000, 700])
        XCTAssertEqual(r.scenario.resources.map(\.type), [.document, .script])  // MIME, then extension
        XCTAssertEqual(r.scenario.resources[1].path, "/a.js")  // fragment dropped
        XCTAssertEqual(r.scenario.resources[1].parent, "document")
        XCTAssertNil(r.scenario.resources[1].revealAfterBytes)  // after the HTML's end
    }

    func testHARTime() {
        XCTAssertEqual(HARTime.milliseconds("1970-01-01T00:00:00Z"), 0)
        XCTAssertEqual(HARTime.milliseconds("2024-10-01T12:00:00.123Z") ?? 0, 1_727_784_000_123, accuracy: 1e-3)
        XCTAssertEqual(HARTime.milliseconds("2024-10-01T14:00:00.123+02:00") ?? 0, 1_727_784_000_123, accuracy: 1e-3)
        XCTAssertEqual(
            HARTime.milliseconds("2024-10-01T07:00:00.123456-0500") ?? 0, 1_727_784_000_123.456, accuracy: 1e-3)
        XCTAssertNil(HARTime.milliseconds("2024-13-01T00:00:00Z"))
        XCTAssertNil(HARTime.milliseconds("Tue, 01 Oct 2024"))
    }

    func testJSONLocator() {
        XCTAssertNil(JSONLocator.structuralError(in: Data(#"{"a": [1, {"b": "x]"}]}"#.utf8)))
        XCTAssertEqual(
            JSONLocator.structuralError(in: Data(#"{"log": {"entries": [{}, {"request": {"url": "ht"#.utf8))?.path,
            "log.entries[1].request.url")
        XCTAssertEqual(
            JSONLocator.structuralError(in: Data(#"{"log": {"entries": [{}, {}, "#.utf8))?.path, "log.entries[2]")
    }
}
