import Foundation
import XCTest
import BenchCore
import BenchModel
import Statistics
@testable import Reporters

/// The "Across pages" report parts (`CorpusSummary`, `corpus.csv`, the HTML section with its CDF,
/// the Markdown table) on a crafted 12-page corpus whose decisions are known by construction, and
/// against golden files (`NETBENCH_UPDATE_GOLDENS=1` regenerates them).
final class CorpusReportTests: XCTestCase {
    /// 12 pages on one profile, h2 (baseline) and h3, 5 runs each; page k's h2 runs are
    /// 1000 + 100k + {0, 10, 20, 30, 40} ms. h3 is 0.8× on pages 1–6 and 1.1× on pages 10–12
    /// (5 against 5 runs completely separated: Mann-Whitney p 0.0122 each, 0.0163 after
    /// Benjamini–Hochberg over 12 pages: decided), and on pages 7–9 interleaved with h2
    /// (+5 ms each: p 0.60, undecided). A 4-page second profile stays below `minimumPages`.
    static func corpus(pages: Int = 12) -> ResultsFile {
        var runs: [RunRecord] = []
        func run(_ page: Int, _ profile: String, _ t: TransportKind, _ i: Int, _ ms: Double) -> RunRecord {
            var r = RunRecord(scenario: name(page), profile: profile, transport: t, index: i, status: .ok)
            r.metrics.pltMs = ms
            return r
        }
        for k in 1...pages {
            let base = 1000 + 100 * Double(k)
            let factor = k <= 6 ? 0.8 : k >= 10 && k <= 12 ? 1.1 : 1
            for i in 0..<5 {
                runs.append(run(k, "4g", .h2, i, base + 10 * Double(i)))
                runs.append(run(k, "4g", .h3, i, base * factor + 10 * Double(i) + (factor == 1 ? 5 : 0)))
            }
        }
        for k in 1...4 {
            for i in 0..<5 {
                runs.append(run(k, "cable", .h2, i, 900)); runs.append(run(k, "cable", .h3, i, 800 + Double(i)))
            }
        }
        return SampleResults.file(
            runs: runs, profiles: [SampleResults.fourG, SampleResults.cable], transports: [.h2, .h3],
            name: "corpus", scenarios: (1...pages).map(name), perCell: 5)
    }

    static func name(_ page: Int) -> String { "page-\(page < 10 ? "0" : "")\(page)" }

    static let analysis = ResultsAnalysis(corpus(), resamples: 200)

    func testDecisionsAndQuantilesByConstruction() throws {
        let c = try XCTUnwrap(CorpusSummary(Self.analysis))
        XCTAssertEqual(c.series.count, 1, "cable has 4 pages, fewer than \(CorpusSummary.minimumPages)")
        let s = c.series[0]
        XCTAssertEqual(s.profile, "4g")
        XCTAssertEqual(s.transport, .h3)
        XCTAssertEqual(s.baseline, .h2)
        XCTAssertEqual(s.pages.count, 12)
        XCTAssertEqual([s.count(.faster), s.count(.slower), s.count(.undecided)], [6, 3, 3])
        XCTAssertEqual(s.uncorrectedDecided, 9)
        let separated = MannWhitney.test([0, 1, 2, 3, 4], [10, 11, 12, 13, 14])!.pValue
        let expected = FalseDiscoveryRate.benjaminiHochberg(s.pages.map(\.pValue))
        XCTAssertEqual(s.pages.map(\.adjustedP), expected)
        XCTAssertEqual(s.pages.first { $0.scenario == "page-01" }!.adjustedP, 12 * separated / 9, accuracy: 1e-12)
        XCTAssertEqual(s.pages.map(\.ratio), s.pages.map(\.ratio).sorted())
        // Page 1: h2 runs 1100 + {0..40} (median 1120), h3 runs 880 + {0..40} (median 900).
        let p1 = s.pages.first { $0.scenario == "page-01" }!
        XCTAssertEqual(p1.ratio, 900 / 1120, accuracy: 1e-12)
        XCTAssertEqual(s.quantile(50)!, (s.pages[5].ratio + s.pages[6].ratio) / 2, accuracy: 1e-12)
        // 12 pages at floor 0.0122: 12 · 0.0122 / k ≤ 0.05 from k = 3 (2.92): one page alone cannot be decided.
        XCTAssertTrue(s.pages.allSatisfy { $0.smallestPossibleP == separated })
        XCTAssertEqual(s.pagesNeededToDecide, 3)
        XCTAssertNotNil(CorpusReport.powerNote(s))
    }

    func testFewPagesGiveNoSectionAndNoFile() throws {
        let demo = ResultsAnalysis(SampleResults.demo())
        XCTAssertNil(CorpusSummary(demo))
        XCTAssertEqual(CorpusReport.html(demo), "")
        XCTAssertEqual(CorpusCSV.render(demo), "")
        XCTAssertFalse(
            try ReportWriter.render(SampleResults.demo(), formats: [.csv]).map(\.fileName).contains("corpus.csv"))
        XCTAssertTrue(
            try ReportWriter.render(Self.corpus(), formats: [.csv], resamples: 200).map(\.fileName).contains(
                "corpus.csv"))
    }

    func testReportsCarryTheSection() {
        XCTAssertTrue(HTMLReport.render(Self.analysis).contains(CorpusReport.html(Self.analysis)))
        XCTAssertTrue(MarkdownSummary.render(Self.analysis).contains(CorpusReport.markdown(Self.analysis)))
    }

    /// 45 pages on 4g and 4 on cable: 49 panels, more than `CorpusReport.maxPanels`: the reports keep
    /// the across-pages figures and leave the page-by-page panels out, saying so.
    func testLargeCorpusLeavesPanelsOut() {
        let a = ResultsAnalysis(Self.corpus(pages: 45), resamples: 50)
        XCTAssertFalse(CorpusReport.showsPanels(a))
        let html = HTMLReport.render(a)
        XCTAssertTrue(html.contains("The 49 page × profile panels are left out (more than 40)"))
        XCTAssertFalse(html.contains("id=\"panel-1-"), "no panels")
        XCTAssertTrue(html.contains("id=\"across-pages\""))
        let md = MarkdownSummary.render(a)
        XCTAssertFalse(md.contains("### page-01 · 4g"))
        XCTAssertTrue(md.contains("| 4g | h3 vs h2 | 45 |"))
        // 45 pages at floor 0.0122: 45 · 0.0122 / 0.05 = 10.97, so 11 pages must reach it.
        XCTAssertTrue(
            md.contains("Benjamini–Hochberg over 45 pages decides none unless at least 11 pages have p ≤ 0.0122"), md)
        XCTAssertTrue(CorpusReport.showsPanels(Self.analysis))
        XCTAssertTrue(HTMLReport.render(Self.analysis).contains("id=\"panel-1-"))
    }

    func testCorpusCSVGolden() throws { try GoldenTests.assertGolden(CorpusCSV.render(Self.analysis), "corpus.csv") }
    func testCorpusHTMLGolden() throws {
        try GoldenTests.assertGolden(CorpusReport.html(Self.analysis), "corpus-section.html")
    }
    func testCorpusMarkdownGolden() throws {
        try GoldenTests.assertGolden(CorpusReport.markdown(Self.analysis), "corpus-section.md")
    }
}
