import BenchCore
import Foundation
import XCTest
import BenchCore
import BenchModel
@testable import Reporters

/// Runs of netbench's own client and of a browser in one results file: the client joins the cell
/// key, each client keeps its own transport comparison, and every report sets the clients side by side.
final class ClientsReportTests: XCTestCase {
    /// Two clients × h2, h3 on one profile; the browser is 30% slower.
    func mixed(perCell: Int = 12) -> ResultsFile {
        var rng = SeededRandom(seed: 7)
        var runs: [RunRecord] = []
        for index in 0..<perCell {
            for t in [TransportKind.h2, .h3] {
                for (client, factor) in [(RunClient.builtin, 1.0), (.chromium, 1.3)] {
                    var run = SampleResults.pageRun(
                        &rng, scenario: "news", profile: "4g", transport: t, index: index, rtt: 170)
                    run.client = client
                    run.metrics.pltMs = run.metrics.pltMs.map { $0 * factor }
                    if client == .chromium { run.metrics.loadEventMs = run.metrics.pltMs.map { $0 - 5 } }
                    runs.append(run)
                }
            }
        }
        var file = SampleResults.file(runs: runs, transports: [.h2, .h3], perCell: perCell)
        file.suite.client = "builtin,chromium"
        return file
    }

    func testTheClientJoinsTheKeyOnlyWhenThereAreSeveral() {
        let a = ResultsAnalysis(mixed(), resamples: 200)
        XCTAssertEqual(a.clients, [.builtin, .chromium])
        XCTAssertTrue(a.comparesClients)
        XCTAssertEqual(
            a.cells(scenario: "news", profile: "4g").map(\.label),
            ["h2 · builtin", "h2 · chromium", "h3 · builtin", "h3 · chromium"])
        let one = ResultsAnalysis(SampleResults.demo(), resamples: 200)
        XCTAssertFalse(one.comparesClients)
        XCTAssertTrue(one.cells.allSatisfy { $0.client == nil })
    }

    func testEachClientIsComparedWithTheBuiltInOneTransportByTransport() throws {
        let a = ResultsAnalysis(mixed(), resamples: 400)
        let browser = CellKey(scenario: "news", profile: "4g", transport: .h2, client: .chromium)
        let c = try XCTUnwrap(a.clientComparison("pltMs", browser))
        XCTAssertEqual(try XCTUnwrap(c.relativeChange), 0.3, accuracy: 0.08)
        XCTAssertEqual(c.verdict(higherIsBetter: false), .worse)
        XCTAssertNil(a.clientComparison("pltMs", a.cell(browser, client: .builtin)), "the reference has no comparison")
        // Transports are still compared within each client.
        XCTAssertNotNil(
            a.comparison("pltMs", CellKey(scenario: "news", profile: "4g", transport: .h3, client: .chromium)))
        XCTAssertNotNil(
            a.comparison("pltMs", CellKey(scenario: "news", profile: "4g", transport: .h3, client: .builtin)))
    }

    func testReportsSetTheClientsSideBySide() throws {
        let a = ResultsAnalysis(mixed(), resamples: 200)
        let csv = SummaryCSV.render(a)
        XCTAssertTrue(
            csv.hasPrefix("scenario,profile,transport,metric,n,median,p90,p95,mean,sd,ci95_low,ci95_high,client\n"))
        XCTAssertTrue(csv.contains("news,4g,h2,pltMs,12,"))
        XCTAssertEqual(
            csv.split(separator: "\n").filter { $0.hasPrefix("news,4g,h2,pltMs,") }.map {
                $0.split(separator: ",").last!
            },
            ["builtin", "chromium"])
        let runs = RunsCSV.render(a.results)
        XCTAssertTrue(
            runs.split(separator: "\n")[0].hasSuffix(
                ",client,loadEventMs,firstContentfulPaintMs,largestContentfulPaintMs"))
        let text = TextSummary.render(a)
        XCTAssertTrue(text.contains("Δ PLT vs builtin"))
        XCTAssertTrue(text.contains("h2 · chromium"))
        let md = MarkdownSummary.render(a)
        XCTAssertTrue(md.contains("Median PLT by client, against builtin"))
        let html = HTMLReport.render(a)
        XCTAssertTrue(html.contains("Clients side by side: against builtin"))
        XCTAssertTrue(html.contains("h2 · chromium"))
        XCTAssertTrue(html.contains("slower</span> than builtin"), "the at-a-glance line names the client verdict")
    }

    func testSingleClientReportsAreUnchanged() {
        let a = ResultsAnalysis(SampleResults.demo(), resamples: 200)
        XCTAssertTrue(SummaryCSV.render(a).hasPrefix(SummaryCSV.header.joined(separator: ",") + "\n"))
        XCTAssertFalse(RunsCSV.render(a.results).split(separator: "\n")[0].contains("client"))
        XCTAssertFalse(HTMLReport.render(a).contains("Clients side by side"))
    }
}
