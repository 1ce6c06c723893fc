import BenchModel
import Statistics

/// Two results files compared cell by cell (scenario × profile × transport) and metric by metric:
/// what `netbench compare` prints and `netbench check` gates on. A is the baseline, B the candidate.
public struct ResultsComparison: Sendable {
    public struct Row: Sendable {
        public var cell: CellKey
        public var metric: Metric
        public var comparison: Comparison
        /// With the noise band applied (`Comparison.verdict`).
        public var verdict: Verdict
    }

    public var rows: [Row]
    /// Cells with counted runs in only one of the files.
    public var onlyInA: [CellKey]
    public var onlyInB: [CellKey]
    /// The relative band within which a change counts as none (0.02 = ±2%).
    public var noise: Double

    /// Bootstraps are seeded from the labels of each figure alone, so comparing the same two files
    /// always prints the same intervals.
    public init(
        a: ResultsFile, b: ResultsFile, metrics: [Metric] = Metric.compared, noise: Double = 0,
        resamples: Int = Bootstrap.defaultResamples
    ) {
        let aa = ResultsAnalysis(a, resamples: 1), bb = ResultsAnalysis(b, resamples: 1)
        let cellsA = aa.cells.filter { !aa.countedRuns($0).isEmpty }
        let cellsB = bb.cells.filter { !bb.countedRuns($0).isEmpty }
        let setA = Set(cellsA), setB = Set(cellsB)
        onlyInA = cellsA.filter { !setB.contains($0) }
        onlyInB = cellsB.filter { !setA.contains($0) }
        self.noise = noise
        var rows: [Row] = []
        for cell in cellsB where setA.contains(cell) {
            for metric in metrics {
                let xa = aa.values(metric.name, cell), xb = bb.values(metric.name, cell)
                let seed = Bootstrap.seed(0, ["compare"] + cell.labels + [metric.name])
                guard let c = Comparison(baseline: xa, candidate: xb, seed: seed, resamples: resamples) else {
                    continue
                }
                rows.append(
                    Row(
                        cell: cell, metric: metric, comparison: c,
                        verdict: c.verdict(higherIsBetter: metric.higherIsBetter, noise: noise)))
            }
        }
        self.rows = rows
    }
}

/// `netbench compare` output as text, Markdown or CSV.
public enum ComparisonReport {
    public enum OutputFormat: String, CaseIterable, Sendable { case text, md, csv }

    static let header = [
        "scenario", "profile", "transport", "metric", "n_a", "n_b", "median_a", "median_b",
        "change", "ci95_low", "ci95_high", "p", "verdict",
    ]

    public static func render(_ c: ResultsComparison, format: OutputFormat) -> String {
        switch format {
        case .csv:
            var out = CSV.record(header)
            for r in c.rows {
                let cmp = r.comparison
                out += CSV.record([
                    r.cell.scenario, r.cell.profile, r.cell.transport.rawValue, r.metric.name,
                    String(cmp.baselineCount), String(cmp.candidateCount),
                    Format.number(cmp.baselineMedian), Format.number(cmp.candidateMedian),
                    cmp.relativeChange.map { Format.fraction($0) } ?? "",
                    cmp.interval.map { Format.fraction($0.low) } ?? "",
                    cmp.interval.map { Format.fraction($0.high) } ?? "",
                    String(cmp.pValue), r.verdict.changeWord,
                ])
            }
            return out
        case .text, .md:
            let head = [
                "scenario", "profile", "transport", "metric", "n A/B", "median A", "median B", "change", "95% CI", "p",
                "verdict",
            ]
            func esc(_ text: String) -> String { format == .md ? MarkdownSummary.escape(text) : text }
            let body = c.rows.map { (r: ResultsComparison.Row) -> [String] in
                let cmp = r.comparison
                var verdict = r.verdict.changeWord
                if format == .md && r.verdict != .noSignificantChange { verdict = "**\(verdict)**" }
                return [
                    esc(r.cell.scenario), esc(r.cell.profile), r.cell.transport.rawValue, r.metric.name,
                    "\(cmp.baselineCount)/\(cmp.candidateCount)",
                    Format.value(cmp.baselineMedian, unit: r.metric.unit),
                    Format.value(cmp.candidateMedian, unit: r.metric.unit),
                    cmp.relativeChange.map { Format.percent($0) } ?? "-",
                    cmp.interval.map { Format.percentInterval($0) } ?? "-",
                    Format.pValue(cmp.pValue), verdict,
                ]
            }
            var out =
                format == .md
                ? markdownTable(head, body) : TextTable.render([head] + body, rightAligned: [4, 5, 6, 7, 8, 9])
            if c.rows.isEmpty { out += "no cell (scenario, profile, transport) has counted runs in both results\n" }
            for (side, cells) in [("A", c.onlyInA), ("B", c.onlyInB)] where !cells.isEmpty {
                out += (format == .md ? "\n" : "") + "only in \(side): "
                out +=
                    cells.map { "\($0.scenario)/\($0.profile)/\($0.transport.rawValue)" }.joined(separator: ", ") + "\n"
            }
            out += (format == .md ? "\n" : "")
            out += "change = median B / median A - 1; 95% CI: percentile bootstrap; p: Mann-Whitney U (two-sided); "
            out += "a verdict needs the CI to exclude 0 and p < 0.05"
            out += c.noise > 0 ? ", and a CI reaching beyond ±\(Format.number(c.noise * 100))%\n" : "\n"
            return out
        }
    }

    static func markdownTable(_ head: [String], _ body: [[String]]) -> String {
        var out = "| " + head.joined(separator: " | ") + " |\n"
        out += "|" + head.indices.map { $0 >= 4 && $0 <= 9 ? "--:|" : "---|" }.joined() + "\n"
        for row in body { out += "| " + row.joined(separator: " | ") + " |\n" }
        return out
    }
}
