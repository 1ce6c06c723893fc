import XCTest
import BenchCore
import BenchModel
@testable import Reporters

/// The flows' throughput over time, drawn beside the waterfall of a run with cross traffic.
final class CrossTrafficChartTests: XCTestCase {
    func testChartDrawsEveryFlowWithItsShare() {
        let svg = CrossTrafficChart.render(SampleResults.crossTraffic(), pltMs: 640, label: "x")
        XCTAssertNil(HTMLReportTests.balanceProblem(svg))
        XCTAssertEqual(svg.components(separatedBy: "<path").count - 1, 2, "one line per flow")
        XCTAssertTrue(svg.contains("tcp-cubic: TCP cubic"), svg)
        XCTAssertTrue(svg.contains("quic-bbr: QUIC bbr"), svg)
        XCTAssertTrue(svg.contains("share "), svg)
        XCTAssertTrue(svg.contains("Jain&#39;s fairness index") || svg.contains("Jain's fairness index"), svg)
        XCTAssertTrue(svg.contains("page load"), "the page's load is shaded")
    }

    func testReportShowsTheChartWhenTheMedianRunHadCrossTraffic() {
        var run = SampleResults.demo(perCell: 2).runs.first {
            $0.profile == "cable" && $0.transport == .h2 && $0.index == 1
        }!
        run.warmup = nil
        let file = SampleResults.file(runs: [run], profiles: [SampleResults.cable], transports: [.h2], perCell: 1)
        let html = HTMLReport.render(ResultsAnalysis(file))
        XCTAssertTrue(html.contains("Cross traffic during"), "chart next to the waterfall")
        XCTAssertNil(HTMLReportTests.balanceProblem(html))
    }
}
