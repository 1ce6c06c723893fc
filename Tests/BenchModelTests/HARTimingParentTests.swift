import XCTest
@testable import BenchModel

/// Parents inferred from timing (no initiator) can reveal the child as what it is: a stylesheet
/// reveals stylesheets, fonts and images, never a script, an XHR or a frame (which Chromium could
/// only fetch as an image, and never run).
final class HARTimingParentTests: XCTestCase {
    func node(_ type: Scenario.ResourceType, _ start: Double, _ end: Double) -> HARDependencies.Node {
        .init(type: type, start: start, firstByte: start + 1, end: end, bytes: 1000, initiatorKeys: [])
    }

    func testAStylesheetRevealsOnlyWhatCSSLoads() {
        let nodes = [
            node(.document, 0, 100),  // 0
            node(.script, 10, 40),  // 1
            node(.stylesheet, 20, 50),  // 2: the latest to finish before 60
            node(.script, 60, 90),  // 3: after the stylesheet, but a stylesheet cannot load a script
            node(.image, 61, 90),  // 4: a background image of the stylesheet
            node(.xhr, 62, 90),  // 5
            node(.font, 63, 90),  // 6
            node(.document, 64, 90),  // 7: a frame
        ]
        let links = HARDependencies.resolve(nodes) { _ in nil }
        XCTAssertEqual(links.map(\.parent), [nil, 0, 0, 1, 2, 1, 2, 1])
        XCTAssertTrue(links.allSatisfy { !$0.fromInitiator })
    }

    func testCanReveal() {
        for child in Scenario.ResourceType.allCases {
            XCTAssertTrue(HARDependencies.canReveal(.document, child))
            XCTAssertTrue(HARDependencies.canReveal(.script, child))
            XCTAssertFalse(HARDependencies.canReveal(.image, child))
            XCTAssertEqual(
                HARDependencies.canReveal(.stylesheet, child), [.stylesheet, .font, .image].contains(child), "\(child)")
        }
    }
}
