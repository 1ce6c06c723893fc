import XCTest
import BenchCore
import BenchModel
@testable import Reporters

/// The browser's page metrics (first paint, FCP, LCP, load event) beside PLT, per transport, in
/// the HTML report, the Markdown summary and summary.csv — only where the runs carry them.
final class BrowserMetricsReportTests: XCTestCase {
    /// A real browser's runs over h1, h2, h3 on 4G: paints after the first byte, the largest one
    /// when the images have arrived, the load event just before the last byte.
    static func browserRuns(perCell: Int = 8) -> ResultsFile {
        var rng = SeededRandom(seed: 99)
        var runs: [RunRecord] = []
        for index in 0..<perCell {
            for t in [TransportKind.h1, .h2, .h3] {
                var run = SampleResults.pageRun(
                    &rng, scenario: "news", profile: "4g", transport: t, index: index, rtt: 170)
                run.client = .chromium
                let ttfb = run.metrics.ttfbMs!, plt = run.metrics.pltMs!
                let fp = ttfb + SampleResults.normal(&rng, mean: 400, sd: 30)
                run.metrics.firstPaintMs = fp
                run.metrics.firstContentfulPaintMs = fp + SampleResults.normal(&rng, mean: 8, sd: 2)
                run.metrics.largestContentfulPaintMs = plt - SampleResults.normal(&rng, mean: 60, sd: 10)
                run.metrics.loadEventMs = plt + SampleResults.normal(&rng, mean: 12, sd: 2)
                runs.append(run)
            }
        }
        var file = SampleResults.file(runs: runs, name: "browser", perCell: perCell)
        file.suite.client = "chromium"
        return file
    }

    static let analysis = ResultsAnalysis(browserRuns())

    func testGoldenMarkdown() throws {
        try GoldenTests.assertGolden(MarkdownSummary.render(Self.analysis), "browser-summary.md")
    }
    func testGoldenSummaryCSV() throws {
        try GoldenTests.assertGolden(SummaryCSV.render(Self.analysis), "browser-summary.csv")
    }
    func testGoldenHTML() throws {
        try GoldenTests.assertGolden(HTMLReport.render(Self.analysis), "browser-report.html")
    }

    func testMilestonesArePerTransportWithThePLTInterval() throws {
        let a = Self.analysis
        let md = MarkdownSummary.render(a)
        XCTAssertTrue(md.contains("| transport | FP | FCP | LCP | load event | PLT |"))
        let csv = SummaryCSV.render(a)
        for t in ["h1", "h2", "h3"] {
            let cell = CellKey(scenario: "news", profile: "4g", transport: TransportKind(rawValue: t)!)
            for name in ["firstPaintMs", "firstContentfulPaintMs", "largestContentfulPaintMs", "loadEventMs"] {
                let s = try XCTUnwrap(a.summary(name, cell), "\(t) \(name)")
                XCTAssertTrue(
                    csv.contains("news,4g,\(t),\(name),8,\(Format.number(s.median)),"), "\(t) \(name) in summary.csv")
                // The same interval method as PLT: the percentile bootstrap CI of the median, around it.
                XCTAssertLessThanOrEqual(s.ci95Low, s.median)
                XCTAssertGreaterThanOrEqual(s.ci95High, s.median)
                XCTAssertTrue(
                    md.contains("\(Format.value(s.median)) (\(Format.value(s.ci95Low))–\(Format.value(s.ci95High)))"),
                    "\(t) \(name) in summary.md")
            }
        }
        let html = HTMLReport.render(a)
        XCTAssertTrue(html.contains("Browser page metrics: median, 95% CI"))
        XCTAssertTrue(html.contains("Browser milestones by transport, news, 4g"))
    }

    func testNothingIsShownWhereRunsCarryNone() {
        // The built-in client measures no paints: no browser section, no invented rows.
        let a = ResultsAnalysis(SampleResults.demo(), resamples: 200)
        XCTAssertFalse(HTMLReport.render(a).contains("Browser page metrics"))
        XCTAssertFalse(MarkdownSummary.render(a).contains("Browser page metrics"))
        XCTAssertFalse(SummaryCSV.render(a).contains("PaintMs"))
    }
}
