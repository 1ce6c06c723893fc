import XCTest
import BenchCore
import BenchModel
@testable import Reporters

final class HTMLReportTests: XCTestCase {
    static let voidElements: Set<String> = [
        "meta", "br", "hr", "img", "input", "link", "col", "wbr", "area", "base", "source",
    ]

    /// Checks that every opened element is closed in order; returns the first problem.
    static func balanceProblem(_ html: String) -> String? {
        var stack: [String] = []
        var rest = Substring(html)
        while let open = rest.firstIndex(of: "<") {
            rest = rest[open...]
            if rest.hasPrefix("<!--") {
                guard let end = rest.range(of: "-->") else { return "unterminated comment" }
                rest = rest[end.upperBound...]; continue
            }
            guard let close = rest.firstIndex(of: ">") else { return "unterminated tag" }
            let tag = rest[rest.index(after: open)..<close]
            rest = rest[rest.index(after: close)...]
            if tag.hasPrefix("!") { continue }
            if tag.hasPrefix("/") {
                let name = tag.dropFirst().lowercased()
                guard let top = stack.popLast() else { return "</\(name)> without an open element" }
                if top != name { return "</\(name)> closes <\(top)>" }
                continue
            }
            let name = String(tag.prefix { $0.isLetter || $0.isNumber }).lowercased()
            if name.isEmpty { return "'<' not starting a tag: <\(tag.prefix(20))" }
            if tag.hasSuffix("/") || voidElements.contains(name) { continue }
            if name == "style" {  // raw text up to </style>
                guard let end = rest.range(of: "</style>") else { return "unterminated <style>" }
                rest = rest[end.upperBound...]; continue
            }
            stack.append(name)
        }
        return stack.isEmpty ? nil : "unclosed <\(stack.joined(separator: "> <"))>"
    }

    func testCheckerCatchesProblems() {
        XCTAssertNil(Self.balanceProblem("<div><p>a<br>b</p><svg><line x1=\"1\"/></svg></div>"))
        XCTAssertNotNil(Self.balanceProblem("<div><p>a</div>"))
        XCTAssertNotNil(Self.balanceProblem("<div>"))
        XCTAssertNotNil(Self.balanceProblem("<p>1 < 2</p>"))
    }

    func testReportIsWellFormed() {
        XCTAssertNil(Self.balanceProblem(HTMLReport.render(GoldenTests.analysis)))
    }

    func testReportIsSelfContained() {
        let html = HTMLReport.render(GoldenTests.analysis)
        XCTAssertFalse(html.contains("http://"))
        XCTAssertFalse(html.contains("https://"))
        for forbidden in ["<script", "<link", "<img", "<iframe", "@import", "url(", "src="] {
            XCTAssertFalse(html.contains(forbidden), "report.html contains \(forbidden)")
        }
        XCTAssertTrue(html.contains("RTT = round trip; each direction gets RTT/2"))
    }

    func testEverythingFromTheResultsIsEscaped() {
        var rng = SeededRandom(seed: 1)
        var runs: [RunRecord] = []
        let evil = "<script>alert('x')</script>"
        for i in 0..<5 {
            for t in [TransportKind.h2, .h3] {
                var run = SampleResults.pageRun(
                    &rng, scenario: evil, profile: "p\"&<b>", transport: t, index: i, rtt: 20)
                run.requests[0].id = "/a?<img src=x onerror=alert(1)>"
                run.pathEvents = [PathEventRecord(at: 10, type: "<rebind>", from: "a&b", to: "</svg>")]
                runs.append(run)
            }
        }
        runs.append(
            RunRecord(
                scenario: evil, profile: "p\"&<b>", transport: .h2, index: 9, status: .failed,
                error: "</td></tr><script>x</script>"))
        var file = SampleResults.file(runs: runs, name: "</title><script>", scenarios: [evil])
        file.host.hostname = "<b>host</b>"
        let html = HTMLReport.render(ResultsAnalysis(file, resamples: 50))
        XCTAssertFalse(html.contains("<script"), "unescaped <script> in report.html")
        XCTAssertFalse(html.contains("<img"))
        XCTAssertFalse(html.contains("<rebind>"))
        XCTAssertTrue(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
        XCTAssertNil(Self.balanceProblem(html))
        let md = MarkdownSummary.render(ResultsAnalysis(file, resamples: 50))
        XCTAssertFalse(md.contains("<script"))
        XCTAssertFalse(md.contains("</td>"))
    }

    func testEveryFormatRendersAndResultsReadBack() throws {
        let files = try ReportWriter.render(GoldenTests.demo, resamples: 100)
        XCTAssertEqual(files.map(\.fileName), ["results.json", "summary.csv", "runs.csv", "summary.md", "report.html"])
        let json = try XCTUnwrap(files.first { $0.fileName == "results.json" }).data
        XCTAssertEqual(
            try JSONFile.decode(ResultsFile.self, from: json, file: "results.json").runs.count,
            GoldenTests.demo.runs.count)
        XCTAssertEqual(try ReportWriter.render(GoldenTests.demo, formats: [.json]).map(\.fileName), ["results.json"])
    }

    func testSetupSaysAdaptiveRunsWithTheirMaximumAndWhatEachCellMade() {
        var results = SampleResults.demo(perCell: 12)
        let fixed = HTMLReport.runsPlanned(ResultsAnalysis(results, resamples: 10))
        XCTAssertTrue(fixed.hasPrefix("\(results.suite.runs) per scenario"))
        results.suite.adaptive = AdaptiveSettings(precision: 0.02, minRuns: 5, maxRuns: 30)
        let runs = HTMLReport.runsPlanned(ResultsAnalysis(results, resamples: 10))
        XCTAssertTrue(runs.hasPrefix("adaptive, ≤ 30 per scenario × profile × transport"), runs)
        XCTAssertTrue(runs.contains("±2%; 12 made"), runs)
        results.runs.removeLast()
        XCTAssertTrue(HTMLReport.runsPlanned(ResultsAnalysis(results, resamples: 10)).contains("11–12 made"))
    }
}
