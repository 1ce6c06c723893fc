import Foundation
import BenchCore
import BenchModel

/// A k6-style threshold: `metric.statistic operator target`, e.g. `pltMs.p95 < 3000`,
/// `ttfbMs.median <= 500`, `pltMs.median <= 1.5 * ideal`.
///
/// Statistics: `median` (`med`, `p50`), `p90`, `p95`, `p99` (also `p(95)`), `mean` (`avg`), `min`,
/// `max`. Operators: `<`, `<=`, `>`, `>=`, `==`. The target is a number in the metric's unit, or
/// `ideal` (optionally times a factor), the median of the runs' own lower bound (`idealPltMs` for
/// `pltMs`, `idealTtfbMs` for `ttfbMs`). A threshold may be limited to a scenario, profile and
/// transport; otherwise it applies to every cell.
public struct Threshold: Sendable, Hashable {
    public enum Operator: String, Sendable, CaseIterable {
        case lessOrEqual = "<=", greaterOrEqual = ">=", equal = "==", less = "<", greater = ">"

        func holds(_ a: Double, _ b: Double) -> Bool {
            switch self {
            case .less: return a < b
            case .lessOrEqual: return a <= b
            case .greater: return a > b
            case .greaterOrEqual: return a >= b
            case .equal: return a == b
            }
        }
    }

    public enum Target: Sendable, Hashable {
        case value(Double)
        /// `factor × ideal`.
        case ideal(factor: Double)
    }

    public var expression: String
    public var metric: Metric
    public var statistic: String
    public var op: Operator
    public var target: Target
    public var scenario: String?
    public var profile: String?
    public var transport: TransportKind?

    /// Parses one expression; errors are usage-class messages that quote the expression.
    public init(
        parsing expression: String, scenario: String? = nil, profile: String? = nil,
        transport: TransportKind? = nil
    ) throws {
        self.expression = expression
        self.scenario = scenario; self.profile = profile; self.transport = transport
        func fail(_ why: String) -> BenchError { .usage("threshold '\(expression)': \(why)") }
        guard let op = Operator.allCases.first(where: { expression.contains($0.rawValue) }) else {
            throw fail("no comparison operator (expected metric.stat OP value, OP one of < <= > >= ==)")
        }
        self.op = op
        let parts = expression.components(separatedBy: op.rawValue)
        guard parts.count == 2 else { throw fail("more than one operator") }
        let lhs = parts[0].trimmingCharacters(in: .whitespaces), rhs = parts[1].trimmingCharacters(in: .whitespaces)
        guard let dot = lhs.lastIndex(of: "."), !lhs[..<dot].isEmpty else {
            throw fail("'\(lhs)' is not metric.stat (e.g. pltMs.p95)")
        }
        let metricName = String(lhs[..<dot])
        guard let metric = Metric.named(metricName) else {
            throw fail("unknown metric '\(metricName)' (known: \(Metric.all.map(\.name).joined(separator: ", ")))")
        }
        self.metric = metric
        guard let stat = Self.statistic(String(lhs[lhs.index(after: dot)...])) else {
            throw fail(
                "unknown statistic '\(lhs[lhs.index(after: dot)...])' (known: median p50 p90 p95 p99 mean min max)")
        }
        self.statistic = stat
        if let v = Double(rhs), v.isFinite {
            target = .value(v)
        } else if let factor = Self.idealFactor(rhs) {
            guard metric.idealName != nil else {
                throw fail("'\(metric.name)' has no ideal to compare with (only pltMs and ttfbMs do)")
            }
            target = .ideal(factor: factor)
        } else {
            throw fail("'\(rhs)' is not a number or ideal (e.g. 3000, ideal, 1.5 * ideal)")
        }
    }

    static func statistic(_ s: String) -> String? {
        switch s.lowercased() {
        case "median", "med", "p50", "p(50)": return "median"
        case "p90", "p(90)": return "p90"
        case "p95", "p(95)": return "p95"
        case "p99", "p(99)": return "p99"
        case "mean", "avg": return "mean"
        case "min": return "min"
        case "max": return "max"
        default: return nil
        }
    }

    /// `ideal`, `1.5 * ideal`, `ideal*1.5`.
    static func idealFactor(_ s: String) -> Double? {
        let compact = s.replacingOccurrences(of: " ", with: "")
        if compact == "ideal" { return 1 }
        let factors = compact.components(separatedBy: "*")
        guard factors.count == 2, factors.contains("ideal") else { return nil }
        guard let f = Double(factors[0] == "ideal" ? factors[1] : factors[0]), f.isFinite, f > 0 else { return nil }
        return f
    }

    public func applies(to cell: CellKey) -> Bool {
        (scenario == nil || scenario == cell.scenario) && (profile == nil || profile == cell.profile)
            && (transport == nil || transport == cell.transport)
    }

    /// A readable scope, e.g. `news · 4g · h3`, or `all cells`.
    public var scope: String {
        let parts = [scenario, profile, transport?.rawValue].compactMap { $0 }
        return parts.isEmpty ? "all cells" : parts.joined(separator: " · ")
    }
}

/// A thresholds file: `{"thresholds": ["pltMs.p95 < 3000", {"expr": "...", "scenario": "...",
/// "profile": "...", "transport": "h3"}]}`. A suite file works too (its `thresholds` strings).
public enum ThresholdFile {
    private struct File: Decodable { var thresholds: [Entry]? }
    private enum Entry: Decodable {
        case text(String)
        case scoped(expr: String, scenario: String?, profile: String?, transport: String?)
        private enum Keys: String, CodingKey { case expr, scenario, profile, transport }
        init(from decoder: Decoder) throws {
            if let s = try? decoder.singleValueContainer().decode(String.self) { self = .text(s); return }
            let c = try decoder.container(keyedBy: Keys.self)
            self = .scoped(
                expr: try c.decode(String.self, forKey: .expr),
                scenario: try c.decodeIfPresent(String.self, forKey: .scenario),
                profile: try c.decodeIfPresent(String.self, forKey: .profile),
                transport: try c.decodeIfPresent(String.self, forKey: .transport))
        }
    }

    /// Loads and parses every threshold; a problem is a data error naming the file, the entry and
    /// the expression.
    public static func load(from path: String) throws -> [Threshold] {
        let file = try JSONFile.load(File.self, from: path)
        guard let entries = file.thresholds else {
            throw BenchError.data(
                "\(path): missing required key 'thresholds' (a list of \"metric.stat OP value\" strings)")
        }
        return try entries.enumerated().map { i, entry in
            do {
                switch entry {
                case .text(let s): return try Threshold(parsing: s)
                case let .scoped(expr, scenario, profile, transport):
                    var kind: TransportKind?
                    if let t = transport {
                        guard let k = TransportKind(rawValue: t) else {
                            throw BenchError.usage("threshold '\(expr)': transport '\(t)' is not one of h1, h2, h3")
                        }
                        kind = k
                    }
                    return try Threshold(parsing: expr, scenario: scenario, profile: profile, transport: kind)
                }
            } catch let e as BenchError {
                throw BenchError.data("\(path): thresholds[\(i)]: \(e.message)")
            }
        }
    }
}
