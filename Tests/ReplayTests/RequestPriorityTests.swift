import XCTest
import BenchModel
import BenchCore
@testable import Replay
import TestSupport

/// The built-in client asks for each resource with the priority Chromium gives it (the testbed's
/// LateBindingTests show what that buys with `--late-binding`).
final class RequestPriorityTests: XCTestCase {
    func testChromiumsPrioritiesPerResourceAsTheRendererPresentsThem() throws {
        let s = try Scenario.load(from: packageRoot + "/Scenarios/pages/mobile-median.json")
        let byID = Dictionary(uniqueKeysWithValues: s.resources.map { ($0.id, $0) })
        func p(_ id: String) -> RequestPriority {
            PageLoader.priority(byID[id]!, parent: byID[id]!.parent.flatMap { byID[$0] })
        }
        XCTAssertEqual(p("html"), .highest)
        XCTAssertEqual(p("css-1"), .highest, "render-blocking stylesheet: VeryHigh")
        XCTAssertEqual(p("css-2"), .idle, "a stylesheet that does not block is rendered media=print: VeryLow")
        XCTAssertEqual(p("js-4"), .medium, "parser-blocking script: High")
        XCTAssertEqual(p("js-1"), .lowest, "async script: Low")
        XCTAssertEqual(p("js-14"), .lowest, "a script another script inserts is async")
        XCTAssertEqual(p("font-1"), .highest)
        XCTAssertEqual(p("img-3"), .lowest)
    }

    /// Incremental (RFC 9218 `i`) as Chromium 156 asked for this page's resources over HTTP/3:
    /// documents, images, fetches and the rest, but no stylesheet, script or font.
    func testChromiumsIncrementalFlagPerResourceType() throws {
        let s = try Scenario.load(from: packageRoot + "/Scenarios/pages/mobile-median.json")
        for r in s.resources {
            let expected = ![.stylesheet, .script, .font].contains(r.type)
            XCTAssertEqual(r.chromiumIncremental, expected, "\(r.id) (\(r.type))")
        }
        XCTAssertEqual(Set(s.resources.map(\.type)), Set(Scenario.ResourceType.allCases), "every type checked")
    }
}
