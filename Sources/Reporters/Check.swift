import BenchCore
import BenchModel
import Statistics

/// One check of `netbench check`: a test case in the JUnit file, a line on the terminal.
public struct CheckOutcome: Sendable, Hashable {
    public enum Status: String, Sendable { case passed, failed, skipped }
    public enum Kind: String, Sendable { case regression, threshold }
    public var kind: Kind
    /// What was checked, e.g. `news · 4g · h3 · pltMs` or `pltMs.p95 < 3000 [news · 4g · h3]`.
    public var name: String
    public var status: Status
    /// Observed against expected, in words.
    public var message: String
    public init(kind: Kind, name: String, status: Status, message: String) {
        self.kind = kind; self.name = name; self.status = status; self.message = message
    }
}

/// `netbench check`: the current results against a baseline and thresholds. Fails (exit 1) only on
/// a statistically significant regression larger than `maxRegression` — the whole 95% CI of the
/// relative change of the median beyond it in the bad direction AND Mann-Whitney p < 0.05 — or on a
/// threshold that does not hold.
public struct CheckRun: Sendable {
    public var outcomes: [CheckOutcome]
    public var failed: Bool { outcomes.contains { $0.status == .failed } }

    public init(outcomes: [CheckOutcome]) { self.outcomes = outcomes }

    /// Regression checks, one per (cell, metric) present in both files.
    /// Throws a data error when the files have no cell in common (a wrong baseline would otherwise pass).
    public static func regressions(
        current: ResultsFile, baseline: ResultsFile, maxRegression: Double,
        metrics: [Metric] = Metric.compared, alpha: Double = 0.05,
        resamples: Int = Bootstrap.defaultResamples
    ) throws -> [CheckOutcome] {
        let c = ResultsComparison(a: baseline, b: current, metrics: metrics, resamples: resamples)
        if c.rows.isEmpty {
            throw BenchError.data(
                "the baseline and the current results have no scenario × profile × transport with counted runs in "
                    + "common"
            )
        }
        var out: [CheckOutcome] = []
        for r in c.rows {
            let cmp = r.comparison
            let regressed = cmp.isRegression(
                beyond: maxRegression, higherIsBetter: r.metric.higherIsBetter, alpha: alpha)
            var msg =
                "median \(Format.value(cmp.baselineMedian, unit: r.metric.unit)) -> "
                    + "\(Format.value(cmp.candidateMedian, unit: r.metric.unit))"
            var details: [String] = []
            if let rel = cmp.relativeChange { details.append(Format.percent(rel)) }
            if let ci = cmp.interval { details.append("95% CI " + Format.percentInterval(ci)) }
            details.append("p " + Format.pValue(cmp.pValue))
            msg += " (" + details.joined(separator: ", ") + ")"
            msg +=
                regressed
                ? ": regression beyond \(Format.number(maxRegression * 100))%"
                : ": \(r.verdict.changeWord)"
            out.append(
                CheckOutcome(
                    kind: .regression, name: name(r.cell, r.metric.name),
                    status: regressed ? .failed : .passed, message: msg))
        }
        for cell in c.onlyInB {
            out.append(
                CheckOutcome(
                    kind: .regression, name: name(cell, "*"), status: .skipped,
                    message: "no counted runs in the baseline"))
        }
        for cell in c.onlyInA {
            out.append(
                CheckOutcome(
                    kind: .regression, name: name(cell, "*"), status: .skipped,
                    message: "in the baseline but no counted runs now"))
        }
        return out
    }

    /// One outcome per threshold and cell it applies to; a threshold that matches no cell with
    /// values fails (a typo in a scope must not pass silently).
    public static func thresholds(
        _ thresholds: [Threshold], results: ResultsFile,
        resamples: Int = Bootstrap.defaultResamples
    ) -> [CheckOutcome] {
        let a = ResultsAnalysis(results, resamples: resamples)
        var out: [CheckOutcome] = []
        for t in thresholds {
            var matched = false
            for cell in a.cells where t.applies(to: cell) {
                guard let s = a.summary(t.metric.name, cell), let observed = s.statistic(named: t.statistic) else {
                    continue
                }
                matched = true
                let label = "\(t.expression) [\(cell.scenario) · \(cell.profile) · \(cell.label)]"
                var limit: Double
                var limitText: String
                switch t.target {
                case .value(let v):
                    limit = v; limitText = Format.number(v)
                case .ideal(let f):
                    guard let idealName = t.metric.idealName, let ideal = a.summary(idealName, cell)?.median else {
                        out.append(
                            CheckOutcome(
                                kind: .threshold, name: label, status: .failed,
                                message: "no \(t.metric.idealName ?? "ideal") recorded for this cell"))
                        continue
                    }
                    limit = f * ideal
                    limitText = (f == 1 ? "" : "\(Format.number(f)) × ") + "ideal \(Format.value(ideal))"
                }
                let ok = t.op.holds(observed, limit)
                out.append(
                    CheckOutcome(
                        kind: .threshold, name: label, status: ok ? .passed : .failed,
                        message:
                            "\(t.metric.name).\(t.statistic) = \(Format.value(observed, unit: t.metric.unit)) "
                                + "(n=\(s.n)); "
                            + "expected \(t.op.rawValue) \(limitText)"))
            }
            if !matched {
                out.append(
                    CheckOutcome(
                        kind: .threshold, name: "\(t.expression) [\(t.scope)]", status: .failed,
                        message: "no counted runs with \(t.metric.name) in \(t.scope)"))
            }
        }
        return out
    }

    static func name(_ cell: CellKey, _ metric: String) -> String {
        "\(cell.scenario) · \(cell.profile) · \(cell.label) · \(metric)"
    }
}
