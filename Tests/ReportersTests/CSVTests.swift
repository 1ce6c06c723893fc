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

    func testNamesWithCommasAreQuotedInTheSummary() {
        var rng = SeededRandom(seed: 3)
        let runs = (0..<3).map {
            SampleResults.pageRun(&rng, scenario: "a,b", profile: "x\"y", transport: .h2, index: $0, rtt: 10)
        }
        let text = SummaryCSV.render(ResultsAnalysis(SampleResults.file(runs: runs), resamples: 10))
        XCTAssertTrue(text.contains("\n\"a,b\",\"x\"\"y\",h2,pltMs,3,"))
    }
}
