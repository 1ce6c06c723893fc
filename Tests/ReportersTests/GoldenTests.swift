import Foundation
import XCTest
import BenchModel
@testable import Reporters

/// Every renderer against a golden file in `Fixtures/golden/`, byte for byte.
///
/// Regenerate after an intended change of output, then review the diff:
///
///     NETBENCH_UPDATE_GOLDENS=1 swift test --filter ReportersTests.GoldenTests
///
/// (writes the files into the source tree, next to this test).
final class GoldenTests: XCTestCase {
    static let goldenDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/golden")

    func assertGolden(_ text: String, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try Self.assertGolden(text, name, file: file, line: line)
    }

    static func assertGolden(_ text: String, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws
    {
        let url = Self.goldenDirectory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["NETBENCH_UPDATE_GOLDENS"] != nil {
            try FileManager.default.createDirectory(at: Self.goldenDirectory, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
            return
        }
        let expected = try XCTUnwrap(
            try? String(contentsOf: url, encoding: .utf8),
            "missing golden \(name): run with NETBENCH_UPDATE_GOLDENS=1", file: file, line: line)
        if text != expected {
            let a = text.split(separator: "\n", omittingEmptySubsequences: false)
            let b = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
            XCTFail(
                "\(name) differs from its golden file at line \(first + 1):\n  got:      "
                    + "\(first < a.count ? String(a[first]) : "(end)")\n"
                    + "  expected: \(first < b.count ? String(b[first]) : "(end)")\n(NETBENCH_UPDATE_GOLDENS=1 "
                    + "regenerates)",
                file: file, line: line)
        }
    }

    static let demo = SampleResults.demo()
    static let analysis = ResultsAnalysis(demo)

    func testSummaryCSV() throws { try assertGolden(SummaryCSV.render(Self.analysis), "summary.csv") }
    func testRunsCSV() throws { try assertGolden(RunsCSV.render(Self.demo), "runs.csv") }
    func testMarkdown() throws { try assertGolden(MarkdownSummary.render(Self.analysis), "summary.md") }
    func testTextSummary() throws { try assertGolden(TextSummary.render(Self.analysis), "summary.txt") }
    func testHTML() throws { try assertGolden(HTMLReport.render(Self.analysis), "report.html") }

    func testJSONIsJSONFileSave() throws {
        let files = try ReportWriter.render(Self.demo, formats: [.json])
        XCTAssertEqual(files.map(\.fileName), ["results.json"])
        XCTAssertEqual(files[0].data, try JSONFile.encode(Self.demo))
    }

    func testJUnit() throws {
        let outcomes = [
            CheckOutcome(
                kind: .regression, name: "news · 4g · h3 · pltMs", status: .passed, message: "median 1000 ms -> 990 "
                    + "ms"),
            CheckOutcome(
                kind: .regression, name: "news · 4g · h1 · pltMs", status: .failed,
                message: "regression beyond 5% <&\">"),
            CheckOutcome(
                kind: .regression, name: "news · cable · h1 · *", status: .skipped,
                message: "no counted runs in the baseline"),
            CheckOutcome(
                kind: .threshold, name: "pltMs.p95 < 3000 [news · 4g · h2]", status: .passed,
                message: "pltMs.p95 = 1400 ms"),
        ]
        try assertGolden(JUnitReport.render(outcomes), "junit.xml")
    }

    func testRenderingIsDeterministic() throws {
        let again = ResultsAnalysis(SampleResults.demo())
        XCTAssertEqual(HTMLReport.render(again), HTMLReport.render(Self.analysis))
        XCTAssertEqual(SummaryCSV.render(again), SummaryCSV.render(Self.analysis))
    }

    /// Every report of a larger sample is written (into a temporary directory, or into
    /// `NETBENCH_SAMPLE_REPORT=DIR` to look at them) and none is empty.
    func testWriteSampleReport() throws {
        let dir =
            ProcessInfo.processInfo.environment["NETBENCH_SAMPLE_REPORT"]
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("netbench-sample-\(getpid())").path
        defer {
            if ProcessInfo.processInfo.environment["NETBENCH_SAMPLE_REPORT"] == nil {
                try? FileManager.default.removeItem(atPath: dir)
            }
        }
        let files = try ReportWriter.render(SampleResults.demo(perCell: 30))
        XCTAssertEqual(files.map(\.fileName), ["results.json", "summary.csv", "runs.csv", "summary.md", "report.html"])
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (name, data) in files {
            XCTAssertGreaterThan(data.count, 100, name)
            try data.write(to: URL(fileURLWithPath: dir + "/" + name))
        }
    }
}
