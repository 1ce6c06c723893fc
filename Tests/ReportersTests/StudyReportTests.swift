import XCTest
import BenchCore
import BenchModel
import Statistics
@testable import Reporters

/// `netbench study` on the golden-file results: one claim per profile group, goodput rows, and
/// the text and Markdown renderings against golden files.
final class StudyReportTests: XCTestCase {
    static let claims = [
        StudyClaim(
            name: "all networks", source: "a made-up claim", baseline: .h2, candidate: .h3, minSpeedup: 1.15,
            profiles: ["4g", "cable"], scenarios: ["news"]),
        StudyClaim(name: "h1 against h3", baseline: .h1, candidate: .h3, minSpeedup: 1.0, scenarios: ["news"]),
    ]
    static let analysis = StudyAnalysis(results: GoldenTests.demo, claims: claims, resamples: 500)

    func testCellsRatiosAndVerdicts() throws {
        let a = Self.analysis
        XCTAssertEqual(a.claims.count, 2)
        let first = a.claims[0]
        XCTAssertEqual(first.cells.map(\.profile), ["4g", "cable"])
        // Warm-ups are out: 12 counted runs per transport.
        XCTAssertEqual(first.cells.map(\.baseline.count), [12, 12])
        let r = try XCTUnwrap(first.result)
        XCTAssertTrue(r.interval.contains(r.geometricMean))
        XCTAssertEqual(first.verdict, SpeedupClaim.verdict(r.interval, minSpeedup: 1.15))
        // First views only: nothing resumed, no early data, but the connections are counted.
        XCTAssertEqual(first.resumedRuns, 0)
        XCTAssertEqual(first.earlyDataConnections, 0)
        XCTAssertGreaterThan(first.connections, first.runs)
        // h1 failed once on cable: counted as failed and left out of the median.
        let h1 = a.claims[1].cells.first { $0.profile == "cable" }
        XCTAssertEqual(h1?.baselineFailed, 1)
        XCTAssertEqual(h1?.baseline.count, 11)
        // The demo's bulk transfer: goodput per transport in kbit/s, mean and sample sd.
        XCTAssertEqual(a.goodput.map(\.transport), [.h2, .h3])
        let g = try XCTUnwrap(a.goodput.first)
        XCTAssertEqual(g.kbps.count, 12)
        XCTAssertEqual(try XCTUnwrap(g.mean), 4750, accuracy: 60)
        XCTAssertGreaterThan(try XCTUnwrap(g.standardDeviation), 0)
    }

    func testGoldenText() throws {
        try GoldenTests.assertGolden(StudyReport.render(Self.analysis, format: .text), "study.txt")
    }

    func testGoldenMarkdown() throws {
        try GoldenTests.assertGolden(StudyReport.render(Self.analysis, format: .md), "study.md")
    }

    func testAClaimCountsTheSuitesClientByDefault() {
        var r = GoldenTests.demo
        r.suite.client = "chromium"
        XCTAssertTrue(
            StudyAnalysis(results: r, claims: Self.claims, resamples: 100).claims[0].cells.allSatisfy {
                $0.baseline.isEmpty
            })
        for i in r.runs.indices { r.runs[i].client = .chromium }
        XCTAssertEqual(
            StudyAnalysis(results: r, claims: Self.claims, resamples: 100).claims[0].cells.map(\.baseline.count),
            [12, 12])
    }

    func testNothingToStudy() {
        let empty = StudyAnalysis(results: SampleResults.file(runs: []), claims: [])
        XCTAssertTrue(StudyReport.render(empty, format: .text).contains("nothing to study"))
    }

    /// Five pages whose exact speedups spread from 1.0 to 1.4: undecided against 1.15, and the report
    /// says that more runs cannot change it on these pages.
    func testAnUndecidedClaimSaysWhetherMoreRunsCanDecideIt() {
        var runs: [RunRecord] = []
        for p in 0..<5 {
            for i in 0..<3 {
                for (t, plt) in [(TransportKind.h2, 1000.0), (.h3, 1000 / (1 + 0.1 * Double(p)))] {
                    var r = RunRecord(
                        scenario: "page\(p)", profile: SampleResults.fourG.name, transport: t, index: i, status: .ok)
                    r.metrics.pltMs = plt
                    runs.append(r)
                }
            }
        }
        let results = SampleResults.file(runs: runs, scenarios: (0..<5).map { "page\($0)" })
        let claim = StudyClaim(name: "spread", baseline: .h2, candidate: .h3, minSpeedup: 1.15)
        let text = StudyReport.render(StudyAnalysis(results: results, claims: [claim], resamples: 500), format: .text)
        XCTAssertTrue(text.contains("verdict: UNDECIDED"), text)
        XCTAssertTrue(text.contains("more runs cannot decide the claim on these 5 pages; more pages can"), text)
    }
}
