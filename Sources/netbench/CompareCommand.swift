import BenchCore
import BenchModel
import Reporters

struct CompareCommand: Command {
    static let name = "compare"
    static let summary = "compare two result sets: change, 95% CI, verdict per metric"
    static let help = """
    usage: netbench compare DIR_A DIR_B [--noise 2%] [--format text|md|csv] [--metrics pltMs,ttfbMs,...]

    For every scenario/profile/transport with runs in both A (before) and B (after), and every metric
    (pltMs, ttfbMs, handshakeMs, and goodputMbps where present): the medians, the relative change
    B/A - 1 with its 95% percentile-bootstrap CI, the Mann-Whitney U p-value (two-sided), and a
    verdict: improved / regressed / no significant change. A verdict needs the CI to exclude 0 and
    p < 0.05; a change whose whole CI lies within +/- --noise (default 0%) is no significant change.
    Times: lower is better; goodput: higher is better. DIR_A and DIR_B may be results.json files.
    Always exits 0 when both inputs load; 'netbench check' is the gate for CI.

    examples:
      netbench compare results/main results/branch
      netbench compare results/main results/branch --noise 2% --format md
    """

    static func run(_ args: inout Arguments) throws -> ExitCode {
        let noiseText = try args.option("--noise")
        guard let noise = Percent.parse(noiseText ?? "0") else {
            throw BenchError.usage("--noise '\(noiseText ?? "")' is not a percentage (e.g. 2%)")
        }
        let formatText = try args.option("--format", "-f") ?? "text"
        guard let format = ComparisonReport.OutputFormat(rawValue: formatText == "markdown" ? "md" : formatText) else {
            throw BenchError.usage("--format '\(formatText)' is not one of text, md, csv")
        }
        let metrics = try MetricList.parse(try args.option("--metrics"))
        let positionals = try args.positionals()
        guard positionals.count == 2 else {
            throw BenchError.usage("give two results directories (netbench compare DIR_A DIR_B)")
        }
        let (a, _) = try ResultsInput.load(positionals[0], role: "results A")
        let (b, _) = try ResultsInput.load(positionals[1], role: "results B")
        let comparison = ResultsComparison(a: a, b: b, metrics: metrics, noise: noise)
        print(ComparisonReport.render(comparison, format: format), terminator: "")
        return .success
    }
}

/// `--metrics pltMs,ttfbMs`: names of the metrics compare and check test.
enum MetricList {
    static func parse(_ text: String?) throws -> [Metric] {
        guard let text else { return Metric.compared }
        var out: [Metric] = []
        for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let m = Metric.named(name) else {
                throw BenchError.usage("--metrics: unknown metric '\(name)' (known: \(Metric.all.map(\.name).joined(separator: ", ")))")
            }
            out.append(m)
        }
        guard !out.isEmpty else { throw BenchError.usage("--metrics needs at least one metric name") }
        return out
    }
}
