import Foundation
import XCTest
import BenchCore
@testable import BenchModel

/// The shapes of HARs recorded from real pages (Fixtures/har-shapes/real-world.har): what the
/// importer does with each kind, and that the report counts them.
final class HARShapesTests: XCTestCase {
    private func realWorld() throws -> HARImporter.Result {
        try HARImporter.load(path: fixtures.appendingPathComponent("har-shapes/real-world.har").path)
    }

    func testEachShapeIsHandledAndCounted() throws {
        let r = try realWorld()
        let shapes = r.report.shapes
        XCTAssertEqual(r.report.entries, 10)
        XCTAssertEqual(r.report.imported, 6)
        XCTAssertEqual(r.report.skipped, [], "shapes are reported per kind, not as skipped entries")
        let byKind = Dictionary(uniqueKeysWithValues: shapes.lines.map { ($0.kind, $0.entries) })
        XCTAssertEqual(byKind[.cached], [1, 2])  // _fromCache: disk, and a 304
        XCTAssertEqual(byKind[.preflight], [3])
        XCTAssertEqual(byKind[.afterOnLoad], [9])  // started at 900 ms, onLoad at 800 ms
        XCTAssertEqual(byKind[.serviceWorker], [8])
        XCTAssertEqual(byKind[.pseudoHeaders], [0])
        XCTAssertEqual(byKind[.sizeFromContent], [6])
        XCTAssertEqual(byKind[.sizeFromTransfer], [7])
        XCTAssertEqual(byKind[.query], [4, 5])
        XCTAssertEqual(byKind[.fragment], [7])
        XCTAssertEqual(byKind[.encodedURL], [6])
        XCTAssertEqual(byKind[.notApplicableTimings]?.first, 0)
        XCTAssertEqual(shapes.lines.map(\.kind), HARShapes.Kind.allCases, "every kind occurs in the fixture")
        XCTAssertTrue(shapes.lines[0].description.hasPrefix("2 × from the browser cache"), shapes.lines[0].description)
    }

    func testPathsKeepTheirIdentity() throws {
        let s = try realWorld().scenario
        let byPath = Dictionary(uniqueKeysWithValues: s.resources.map { ($0.path, $0) })
        // Two URLs that differ only in their query: two resources, each with its own size.
        XCTAssertEqual(byPath["/v1/comments?id=42"]?.bytes, 1_234)
        XCTAssertEqual(byPath["/v1/comments?id=43"]?.bytes, 2_345)
        // Raw non-ASCII and spaces: percent-encoded as UTF-8, as a browser sends them.
        XCTAssertEqual(byPath["/images/caf%C3%A9%20au%20lait.jpg"]?.bytes, 5_000)  // content.size (bodySize -1)
        // Percent-encoding kept as recorded; the fragment dropped.
        XCTAssertEqual(byPath["/fonts/%E6%96%87.woff2"]?.bytes, 7_000)  // _transferSize only
        XCTAssertEqual(byPath["/app.js"]?.bytes, 20_000)  // service worker: replayed
        XCTAssertNil(byPath["/styles/main.css"], "a cache hit is not a transfer")
        XCTAssertNil(s.resources.first { $0.origin == "analytics.real.test" }, "the beacon after onLoad")
        XCTAssertEqual(s.root?.path, "/")
    }

    func testTheRequestAfterAPreflightIsImportedNotTheOptions() throws {
        let s = try realWorld().scenario
        let comments = try XCTUnwrap(s.resources.first { $0.path == "/v1/comments?id=42" })
        XCTAssertEqual(comments.type, .xhr)
        XCTAssertEqual(comments.bytes, 1_234, "the GET after the preflight, not the OPTIONS (204, 0 bytes)")
    }

    func testEncodedURLs() {
        XCTAssertEqual(
            HARShapes.encodedURL("https://a.test/café au lait.jpg?q=ü#x"),
            "https://a.test/caf%C3%A9%20au%20lait.jpg?q=%C3%BC#x")
        XCTAssertEqual(
            HARShapes.encodedURL("https://a.test/%E6%96%87?a=1&b=%20"), "https://a.test/%E6%96%87?a=1&b=%20",
            "escapes stay as they are")
        XCTAssertEqual(HARShapes.encodedURL("https://a.test/{x}|\"y\""), "https://a.test/%7Bx%7D%7C%22y%22")
        XCTAssertEqual(HARScenarioBuilder.key("https://WWW.a.test:8443/p?q=1#frag"), "www.a.test/p?q=1")
        XCTAssertNotEqual(
            HARScenarioBuilder.key("https://a.test/p?q=1"), HARScenarioBuilder.key("https://a.test/p?q=2"))
        XCTAssertEqual(HARScenarioBuilder.key("https://a.test/é"), "a.test/%C3%A9")
    }

    func testOnLoadUnknownKeepsLateRequests() throws {
        // Without pageTimings.onLoad nothing is "after onLoad": the beacon is imported.
        var text = try String(contentsOf: fixtures.appendingPathComponent("har-shapes/real-world.har"), encoding: .utf8)
        text = text.replacingOccurrences(of: "\"onLoad\": 800", with: "\"onLoad\": -1")
        let r = try HARImporter.importHAR(Data(text.utf8), file: "no-onload.har")
        XCTAssertEqual(r.report.shapes.count(.afterOnLoad), 0)
        XCTAssertNotNil(r.scenario.resources.first { $0.origin == "analytics.real.test" })
    }
}
