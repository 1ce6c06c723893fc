import Foundation
import BenchCore
import BenchModel
import Reporters
import Statistics
import CommandLineKit

struct CompareCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "compare",
            abstract: "compare two result sets: change, 95% CI, verdict per metric",
            discussion: """
                For every scenario/profile/transport with runs in both A (before) and B (after), and every metric \
                (pltMs, ttfbMs, handshakeMs, and goodputMbps where present): the medians, the relative change \
                B/A - 1 with its 95% percentile-bootstrap CI, the Mann-Whitney U p-value (two-sided), and a \
                verdict: improved / regressed / no significant change. A verdict needs the CI to exclude 0 and \
                p < 0.05; a change whose whole CI lies within +/- --noise is no significant change. \
                Times: lower is better; goodput: higher is better. DIR_A and DIR_B may be results.json files. \
                'netbench check' is the gate for CI.
                """,
            examples: [
                "netbench compare results/main results/branch",
                "netbench compare results/main results/branch --noise 2% --format md",
                "netbench compare results/main results/branch --quiet",
            ],
            exitCodes: [
                ExitCodeDoc(.success, "both inputs loaded (whatever the verdicts)"), Netbench.usageExit,
                ExitCodeDoc(.dataError, "missing or unreadable results, or results of another schema version"),
            ])
    }

    @Argument("DIR_A", help: "results before (the baseline)", completion: .directory) var a: String
    @Argument("DIR_B", help: "results after (the candidate)", completion: .directory) var b: String
    @Option(
        "--noise", value: "PCT", default: 0, defaultText: "0%",
        help: "changes whose whole CI lies within ±PCT count as no change", parse: .percent) var noise: Double
    @Option("--format", "-f", value: "F", default: .text, help: "text, md or csv", parse: .comparisonFormat) var format:
        ComparisonReport.OutputFormat
    @Option(
        "--metrics", value: "LIST", help: "metrics to compare (default: pltMs, ttfbMs, handshakeMs, goodputMbps)",
        parse: .metrics) var metrics: [Metric]?
    @Flag("--json", help: "print every row as JSON (medians, change, CI, p-value, verdict)") var json: Bool
    @Flag("--quiet", "-q", help: "print only the rows with a significant change (improved or regressed)") var quiet:
        Bool

    func validate() throws { _ = try OutputMode.from(json: json, quiet: quiet) }

    func run() throws -> ExitCode {
        let (ra, _) = try ResultsInput.load(a, role: "results A")
        let (rb, _) = try ResultsInput.load(b, role: "results B")
        let comparison = ResultsComparison(a: ra, b: rb, metrics: metrics ?? Metric.compared, noise: noise)
        switch try OutputMode.from(json: json, quiet: quiet) {
        case .table: print(ComparisonReport.render(comparison, format: format), terminator: "")
        case .json: try OutputMode.printJSON(comparison.rows.map(ComparisonRowJSON.init))
        case .quiet:
            for r in comparison.rows where r.verdict != .noSignificantChange {
                let change = r.comparison.relativeChange.map { String(format: "%+.1f%%", $0 * 100) } ?? "-"
                let cell = [r.cell.scenario, r.cell.profile, r.cell.label].joined(separator: " · ")
                print("\(cell) \(r.metric.name): \(change) \(r.verdict.rawValue)")
            }
        }
        return .success
    }
}

/// One `compare --json` row; unknown figures are null.
struct ComparisonRowJSON: Encodable {
    var scenario: String, profile: String, transport: String, client: String?, metric: String
    var medianA: Double, medianB: Double, relativeChange: Double?, ciLow: Double?, ciHigh: Double?
    var pValue: Double, nA: Int, nB: Int, verdict: String

    init(_ r: ResultsComparison.Row) {
        scenario = r.cell.scenario; profile = r.cell.profile; transport = r.cell.transport.rawValue;
        client = r.cell.client?.rawValue
        metric = r.metric.name
        let c = r.comparison
        medianA = c.baselineMedian; medianB = c.candidateMedian; relativeChange = c.relativeChange
        ciLow = c.interval?.low; ciHigh = c.interval?.high
        pValue = c.pValue; nA = c.baselineCount; nB = c.candidateCount; verdict = r.verdict.rawValue
    }
}

extension ValueParser where T == ComparisonReport.OutputFormat {
    static var comparisonFormat: ValueParser<ComparisonReport.OutputFormat> {
        .init(expected: "one of text, md, csv", completion: .choices(["text", "md", "csv"])) {
            ComparisonReport.OutputFormat(rawValue: $0 == "markdown" ? "md" : $0)
        }
    }
}

extension ValueParser where T == [Metric] {
    static var metrics: ValueParser<[Metric]> {
        .init(
            expected: "metric names (" + Metric.all.map(\.name).joined(separator: ", ") + ")",
            completion: .choices(Metric.all.map(\.name))
        ) { try MetricList.parse($0) }
    }
}

/// `--metrics pltMs,ttfbMs`: names of the metrics compare and check test.
enum MetricList {
    static func parse(_ text: String) throws -> [Metric] {
        var out: [Metric] = []
        for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let m = Metric.named(name) else {
                throw BenchError.usage(
                    "--metrics: unknown metric '\(name)' (known: \(Metric.all.map(\.name).joined(separator: ", ")))")
            }
            out.append(m)
        }
        guard !out.isEmpty else { throw BenchError.usage("--metrics needs at least one metric name") }
        return out
    }
}
