import XCTest
import BenchCore
import BenchModel
@testable import Reporters

final class CSVTests: XCTestCase {
    func testRFC4180Quoting() {
        XCTAssertEqual(CSV.field("plain"), "plain")
        XCTAssertEqual(CSV.field("a,b"), "\"a,b\"")
        XCTAssertEqual(CSV.field("say \"hi\""), "\"say \"\"hi\"\"\"")
        XCTAssertEqual(CSV.field("two\nlines"), "\"two\nlines\"")
        XCTAssertEqual(CSV.field("cr\r\nlf"), "\"cr\r\nlf\"")
        XCTAssertEqual(CSV.record(["a", "b,c", ""]), "a,\"b,c\",\n")
    }

    func testSummaryHeaderIsTheContract() {
        let first = SummaryCSV.render(GoldenTests.analysis).split(separator: "\n").first
        XCTAssertEqual(first, "scenario,profile,transport,metric,n,median,p90,p95,mean,sd,ci95_low,ci95_high")
    }

    func testSummaryCountsOnlyCountedRuns() {
        // news/cable/h1: 13 runs recorded, one warm-up and one failed.
        let rows = SummaryCSV.render(GoldenTests.analysis).split(separator: "\n")
        let row = rows.first { $0.hasPrefix("news,cable,h1,pltMs,") }
        XCTAssertEqual(row?.split(separator: ",")[4], "11")
        let h2 = rows.first { $0.hasPrefix("news,cable,h2,pltMs,") }
        XCTAssertEqual(h2?.split(separator: ",")[4], "12")
    }

    func testRunsCSVHasEveryRunWithItsError() {
        let text = RunsCSV.render(GoldenTests.demo)
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.count, GoldenTests.demo.runs.count + 1)
        XCTAssertTrue(
            text.contains("failed,\"connection to static.example reset by peer after 3 retries, \"\"ECONNRESET\"\"\""))
    }

    /// Visual metrics get their columns only when a run has them, after the browser's.
    func testRunsCSVCarriesVisualMetrics() {
        var rng = SeededRandom(seed: 5)
        var runs = (0..<2).map {
            SampleResults.pageRun(&rng, scenario: "s", profile: "4G", transport: .h2, index: $0, rtt: 10)
        }
        XCTAssertFalse(RunsCSV.render(SampleResults.file(runs: runs)).contains("speedIndexMs"))
        runs[1].client = .chromium
        runs[1].metrics.speedIndexMs = 712.5
        runs[1].metrics.firstVisualChangeMs = 401
        runs[1].metrics.visuallyComplete85Ms = 1000
        runs[1].metrics.visuallyCompleteMs = 1001
        let text = RunsCSV.render(SampleResults.file(runs: runs))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let header = lines[0].split(separator: ",").map(String.init)
        XCTAssertEqual(Array(header.suffix(6)), RunsCSV.visualHeader)
        XCTAssertEqual(header.count, RunsCSV.header.count + 4 + 6)
        let row = lines[2].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(Array(row.suffix(6)), ["712.5", "401", "1000", "", "", "1001"])
        XCTAssertEqual(lines[1].split(separator: ",", omittingEmptySubsequences: false).suffix(6).joined(), "")
    }

    func testNamesWithCommasAreQuotedInTheSummary() {
        var rng = SeededRandom(seed: 3)
        let runs = (0..<3).map {
            SampleResults.pageRun(&rng, scenario: "a,b", profile: "x\"y", transport: .h2, index: $0, rtt: 10)
        }
        let text = SummaryCSV.render(ResultsAnalysis(SampleResults.file(runs: runs), resamples: 10))
        XCTAssertTrue(text.contains("\n\"a,b\",\"x\"\"y\",h2,pltMs,3,"))
    }
}
