import XCTest
import BenchCore
import BenchModel
@testable import Reporters

/// Runs made with `--visual-metrics` carry Speed Index: the Markdown summary and the HTML report
/// show it (SI) beside FCP and LCP, `check` thresholds and regressions can name it; runs without it
/// keep their tables as they were.
final class SpeedIndexReportTests: XCTestCase {
    static func withSpeedIndex(h3Slower: Double = 0) -> ResultsFile {
        var file = BrowserMetricsReportTests.browserRuns()
        for i in file.runs.indices {
            let fcp = file.runs[i].metrics.firstContentfulPaintMs!
            file.runs[i].metrics.speedIndexMs =
                fcp + 300 + Double(i % 5) + (file.runs[i].transport == .h3 ? h3Slower : 0)
        }
        return file
    }

    func testMarkdownAndHTMLShowSpeedIndexBesideFCPAndLCP() {
        let a = ResultsAnalysis(Self.withSpeedIndex())
        let md = MarkdownSummary.render(a)
        XCTAssertTrue(md.contains("| transport | FP | FCP | LCP | SI | load event | PLT |"), md)
        let html = HTMLPaint.render(a, a.cells(scenario: "news", profile: "4g"), scenario: "news", profile: "4g")
        XCTAssertTrue(html.contains("Speed Index ms</th>"), html)
        XCTAssertTrue(html.contains("Speed Index (SI)"), html)
        let without = MarkdownSummary.render(BrowserMetricsReportTests.analysis)
        XCTAssertFalse(without.contains("| SI |"), "no SI column when no run carries it")
    }

    func testCheckThresholdsAndRegressionsNameSpeedIndex() throws {
        let t = try Threshold(parsing: "speedIndexMs.median < 100")
        let failed = CheckRun.thresholds([t], results: Self.withSpeedIndex(), resamples: 200)
        XCTAssertEqual(failed.count, 3, "one per transport")
        XCTAssertTrue(failed.allSatisfy { $0.status == .failed }, "\(failed)")
        let ok = CheckRun.thresholds(
            [try Threshold(parsing: "speedIndexMs.median < 100000")], results: Self.withSpeedIndex(), resamples: 200)
        XCTAssertTrue(ok.allSatisfy { $0.status == .passed }, "\(ok)")
        XCTAssertTrue(Metric.compared.contains { $0.name == "speedIndexMs" })
    }
}
