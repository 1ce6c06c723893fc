import XCTest
import BenchModel
@testable import Reporters

/// `netbench report` reads a large log skimmed: requests and connections only of the runs
/// `ResultsAnalysis.runsDrawnWhole` names. Every report must come out the same as from whole runs.
final class SkimmedReportTests: XCTestCase {
    func testTheRunsDrawnWholeAreAllAReportNeeds() throws {
        let full = SampleResults.demo()
        let whole = Set(ResultsAnalysis.runsDrawnWhole(full))
        XCTAssertFalse(whole.isEmpty)
        XCTAssertLessThan(whole.count, full.runs.count / 2)
        var skimmed = full
        for i in skimmed.runs.indices where !whole.contains(i) {
            skimmed.runs[i].requests = []
            skimmed.runs[i].connections = []
        }
        for format in [ReportFormat.html, .csv, .md, .prometheus, .influx] {
            let a = try ReportWriter.render(full, formats: [format], resamples: 200)
            let b = try ReportWriter.render(skimmed, formats: [format], resamples: 200)
            XCTAssertEqual(a.map(\.fileName), b.map(\.fileName))
            for (x, y) in zip(a, b) {
                XCTAssertTrue(x.data == y.data, "\(x.fileName) differs when the other runs are skimmed")
            }
        }
    }
}
