import BenchCore
import Foundation
import XCTest
import BenchModel
@testable import Reporters

/// The fidelity column: per cell the built-in client's median page load ÷ the browser's, judged
/// against ±5% on the mobile median page and ±10% elsewhere (issue #31), in summary.md, report.html
/// and fidelity.csv.
final class FidelityTests: XCTestCase {
    /// Built-in and Chromium runs with chosen medians: 5 runs per cell at median − 2 … median + 2 ms.
    /// `medians` maps scenario → transport → (built-in median, Chromium median or nil for no Chromium runs).
    static func results(_ medians: [(String, TransportKind, Double, Double?)]) -> ResultsFile {
        var rng = SeededRandom(seed: 11)
        var runs: [RunRecord] = []
        for index in 0..<5 {
            for (scenario, transport, builtin, chromium) in medians {
                for (client, median) in [(RunClient.builtin, Optional(builtin)), (.chromium, chromium)] {
                    guard let median else { continue }
                    var run = SampleResults.pageRun(
                        &rng, scenario: scenario, profile: "4g", transport: transport, index: index, rtt: 170)
                    run.client = client
                    run.metrics.pltMs = median + Double(index - 2)
                    runs.append(run)
                }
            }
        }
        var file = SampleResults.file(
            runs: runs, scenarios: Array(Set(medians.map(\.0))).sorted(), perCell: 5)
        file.suite.client = "builtin,chromium"
        return file
    }

    static let sample = results([
        ("mobile-median", .h1, 1000, 1060),  // 0.943: outside ±5%
        ("mobile-median", .h2, 1000, 1040),  // 0.962: within ±5%
        ("mobile-median", .h3, 1050, 1000),  // 1.050: on the bound, within
        ("news", .h1, 1000, 1100),  // 0.909: within ±10%
        ("news", .h2, 4946, 6849),  // 0.722: outside ±10% (the issue's news page)
        ("news", .h3, 4274, nil),  // no browser runs: no fidelity row
    ])
    static let analysis = ResultsAnalysis(sample, resamples: 200)

    func testTolerancesAreTheIssuesFivePercentForTheMobileMedianPageAndTenElsewhere() {
        XCTAssertEqual(Fidelity.tolerance(scenario: "mobile-median"), 0.05)
        XCTAssertEqual(Fidelity.tolerance(scenario: "news-cnn"), 0.10)
        XCTAssertEqual(Fidelity.tolerance(scenario: "mobile-median-2"), 0.10, "only the mobile median page itself")
    }

    func testTheBoundCountsAsInsideAndAnythingBeyondAsOutside() {
        XCTAssertFalse(Fidelity.isOutside(ratio: 950.0 / 1000, tolerance: 0.05), "0.95 is on the ±5% bound")
        XCTAssertFalse(Fidelity.isOutside(ratio: 1050.0 / 1000, tolerance: 0.05))
        XCTAssertTrue(Fidelity.isOutside(ratio: 949.0 / 1000, tolerance: 0.05))
        XCTAssertTrue(Fidelity.isOutside(ratio: 1051.0 / 1000, tolerance: 0.05))
        XCTAssertFalse(Fidelity.isOutside(ratio: 0.9, tolerance: 0.10))
        XCTAssertTrue(Fidelity.isOutside(ratio: 0.89, tolerance: 0.10))
        XCTAssertFalse(Fidelity.isOutside(ratio: 1, tolerance: 0))
        XCTAssertTrue(Fidelity.isOutside(ratio: .infinity, tolerance: 0.10))
        XCTAssertTrue(Fidelity.isOutside(ratio: .nan, tolerance: 0.10))
    }

    func testOneCellPerTransportMeasuredByBothClients() throws {
        let cells = Fidelity.cells(Self.analysis)
        XCTAssertEqual(
            cells.map { "\($0.scenario) \($0.transport.rawValue)" },
            ["mobile-median h1", "mobile-median h2", "mobile-median h3", "news h1", "news h2"])
        XCTAssertEqual(cells.map(\.browser), Array(repeating: .chromium, count: 5))
        XCTAssertEqual(cells.map(\.isOutside), [true, false, false, false, true])
        let news = try XCTUnwrap(cells.last)
        XCTAssertEqual(news.builtinMedianMs, 4946)
        XCTAssertEqual(news.browserMedianMs, 6849)
        XCTAssertEqual(news.ratio, 4946.0 / 6849, accuracy: 1e-12)
        XCTAssertEqual(news.tolerance, 0.10)
        XCTAssertEqual([news.builtinRuns, news.browserRuns], [5, 5])
        XCTAssertEqual(cells[0].tolerance, 0.05)
    }

    func testNoFidelityWithoutBothClients() throws {
        let builtinOnly = ResultsAnalysis(SampleResults.demo(), resamples: 200)
        XCTAssertTrue(Fidelity.cells(builtinOnly).isEmpty)
        XCTAssertEqual(Fidelity.markdown(builtinOnly), "")
        XCTAssertEqual(Fidelity.html(builtinOnly), "")
        XCTAssertFalse(try ReportWriter.render(SampleResults.demo()).map(\.fileName).contains("fidelity.csv"))
        // A browser alone: nothing to hold the built-in client to.
        var browserOnly = SampleResults.demo()
        for i in browserOnly.runs.indices { browserOnly.runs[i].client = .chromium }
        XCTAssertTrue(Fidelity.cells(ResultsAnalysis(browserOnly, resamples: 200)).isEmpty)
    }

    func testMarkdownSectionGolden() throws {
        try GoldenTests.assertGolden(Fidelity.markdown(Self.analysis), "fidelity-section.md")
        XCTAssertTrue(MarkdownSummary.render(Self.analysis).contains(Fidelity.markdown(Self.analysis)))
    }

    func testHTMLSectionGolden() throws {
        try GoldenTests.assertGolden(Fidelity.html(Self.analysis), "fidelity-section.html")
        XCTAssertTrue(HTMLReport.render(Self.analysis).contains(Fidelity.html(Self.analysis)))
    }

    func testCSVGolden() throws {
        try GoldenTests.assertGolden(FidelityCSV.render(Self.analysis), "fidelity.csv")
        let files = try ReportWriter.render(Self.sample, formats: [.csv], resamples: 200)
        XCTAssertEqual(files.map(\.fileName), ["summary.csv", "runs.csv", "fidelity.csv"])
    }
}
