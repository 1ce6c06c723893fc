import Foundation
import XCTest
import BenchCore
import BenchModel
@testable import Reporters

/// `netbench history` over three crafted results (golden history.html and history.csv;
/// NETBENCH_UPDATE_GOLDENS=1 regenerates) and its ordering and marks.
final class HistoryTests: XCTestCase {
    /// A results file of page runs whose PLT centres on `plt` per transport (h3 a fixed 20% faster).
    static func crafted(
        seed: UInt64, plt: Double, commit: String, date: String, label: String? = nil,
        hostname: String = "bench-1", version: String = "0.1.0"
    ) -> ResultsFile {
        var rng = SeededRandom(seed: seed)
        var runs: [RunRecord] = []
        for index in 0..<15 {
            for t in [TransportKind.h2, .h3] {
                var run = RunRecord(scenario: "news", profile: "4g", transport: t, index: index, status: .ok)
                let centre = t == .h3 ? plt * 0.8 : plt
                run.metrics.pltMs = SampleResults.normal(&rng, mean: centre, sd: centre * 0.03)
                run.metrics.ttfbMs = SampleResults.normal(&rng, mean: 400, sd: 12)
                runs.append(run)
            }
        }
        var r = SampleResults.file(runs: runs, transports: [.h2, .h3], perCell: 15)
        r.netbenchVersion = version
        r.host.hostname = hostname
        r.startedAt = date.replacingOccurrences(of: "T09", with: "T10")
        r.source = SourceInfo(commit: commit, branch: "main", commitDate: date, dirty: false, label: label)
        return r
    }

    /// Given out of order: B (same speed, other host), C (PLT 25% lower, new version), A (first).
    static func entries() -> [History.Entry] {
        [
            History.Entry(
                name: "results/b",
                results: crafted(
                    seed: 2, plt: 1000, commit: String(repeating: "b", count: 40), date: "2024-06-02T09:00:00Z",
                    hostname: "bench-2")),
            History.Entry(
                name: "results/c",
                results: crafted(
                    seed: 3, plt: 750, commit: String(repeating: "c", count: 40), date: "2024-06-03T09:00:00Z",
                    label: "v0.2", hostname: "bench-2", version: "0.2.0")),
            History.Entry(
                name: "results/a",
                results: crafted(
                    seed: 1, plt: 1000, commit: String(repeating: "a", count: 40), date: "2024-06-01T09:00:00Z")),
        ]
    }

    static let history = History(entries(), resamples: 2000)

    func testGoldenCSV() throws { try GoldenTests.assertGolden(HistoryCSV.render(Self.history), "history.csv") }
    func testGoldenHTML() throws { try GoldenTests.assertGolden(HistoryHTML.render(Self.history), "history.html") }

    func testOrderedByCommitDate() {
        XCTAssertEqual(Self.history.entries.map(\.name), ["results/a", "results/b", "results/c"])
        XCTAssertEqual(Self.history.entries.map(\.shortName), ["aaaaaaa", "bbbbbbb", "v0.2"])
    }

    func testSignificantChangesAndHostAndVersionMarks() throws {
        let h = Self.history
        XCTAssertEqual(
            h.series.map { "\($0.cell.transport.rawValue) \($0.metric.name)" },
            ["h2 pltMs", "h2 ttfbMs", "h3 pltMs", "h3 ttfbMs"])
        for s in h.series {
            XCTAssertEqual(s.points.map(\.entry), [0, 1, 2])
            XCTAssertNil(s.points[0].change)
            XCTAssertEqual(s.points.map(\.hostChanged), [false, true, false])
            XCTAssertEqual(s.points.map(\.versionChanged), [false, false, true])
            // a → b: the same page speed; b → c: PLT 25% lower (improved), TTFB unchanged.
            XCTAssertEqual(s.points[1].verdict, .noSignificantChange, "\(s.cell.label) \(s.metric.name)")
            XCTAssertEqual(
                s.points[2].verdict, s.metric == .plt ? .better : .noSignificantChange,
                "\(s.cell.label) \(s.metric.name)")
        }
        // The verdicts are compare's: the same two files through ResultsComparison.
        let direct = ResultsComparison(
            a: h.entries[1].results, b: h.entries[2].results, metrics: History.metrics, resamples: 2000)
        for row in direct.rows {
            let p = h.series.first { $0.cell == row.cell && $0.metric == row.metric }!.points[2]
            XCTAssertEqual(p.verdict, row.verdict)
            XCTAssertEqual(p.change?.relativeChange, row.comparison.relativeChange)
        }
    }

    func testHTMLRingsOnlySignificantPoints() {
        let html = HistoryHTML.render(Self.history)
        XCTAssertEqual(html.components(separatedBy: "class=\"significant "
            + "improved\"").count - 1, 2)  // PLT of h2 and h3 at c
        XCTAssertFalse(html.contains("significant regressed"))
        XCTAssertEqual(html.components(separatedBy: "host changed</text>").count - 1, 2)  // one per chart (PLT, TTFB)
        XCTAssertEqual(html.components(separatedBy: "version changed</text>").count - 1, 2)
        XCTAssertFalse(html.contains("<script"))
    }

    func testOrderIsByTimeAcrossCommitDatesAndStartTimes() {
        var early = Self.crafted(seed: 4, plt: 1000, commit: "d", date: "2024-06-01T09:00:00Z")
        early.source = SourceInfo(label: "no commit")  // ordered by its start time
        early.startedAt = "2024-06-01T09:00:00.500Z"  // half a second after a's commit date
        var a = Self.crafted(seed: 1, plt: 1000, commit: "a", date: "2024-06-01T09:00:00Z")
        a.startedAt = "2024-06-01T12:00:00Z"
        let h = History(
            [History.Entry(name: "x", results: early), History.Entry(name: "a", results: a)], resamples: 100)
        XCTAssertEqual(h.entries.map(\.name), ["a", "x"])
    }

    func testACellMissingFromADirectoryIsComparedWithItsPreviousPoint() {
        var entries = Self.entries()
        entries[0].results.runs.removeAll { $0.transport == .h3 }  // b has no h3
        let h = History(entries, resamples: 500)
        let h3 = h.series.first { $0.cell.transport == .h3 && $0.metric == .plt }!
        XCTAssertEqual(h3.points.map(\.entry), [0, 2])
        XCTAssertEqual(h3.points[1].verdict, .better)
        XCTAssertEqual(h3.points[1].change?.baselineCount, 15)
        XCTAssertTrue(h3.points[1].hostChanged)
    }
}
