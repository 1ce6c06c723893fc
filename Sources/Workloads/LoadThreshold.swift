import Foundation
import BenchCore
import BenchModel

/// A threshold on load results (`netbench check LOAD_DIR --thresholds FILE`), for CI gates:
/// `latencyMs.p99 <= 50`, `achievedRate >= 0.99 * asked`, `latencyMs.p50 <= 1.5 * ideal`, `errors == 0`.
///
/// Left side: `latencyMs.STAT` (STAT: p50/median, p90, p99, p999, p9999, max, mean; milliseconds),
/// `achievedRate` (successful responses per second), `errors` (requests that failed, all kinds).
/// Right side: a number in that unit, `asked` (the rate asked for, req/s; open model only) or
/// `ideal` (the emulated link's ideal latency, ms; `-p` only), either optionally times a factor.
/// Scope: `transport` (h1, h2, h3) and `rate` (req/s): the step asked at that rate (within 0.5%),
/// whose own latency and achieved rate are checked; without `rate`, the whole load. A threshold
/// that matches no load fails.
public struct LoadThreshold: Sendable, Equatable {
    public enum Quantity: Sendable, Equatable {
        case latency(String)
        case achievedRate
        case errors
    }

    public enum Target: Sendable, Equatable {
        case value(Double)
        case asked(factor: Double)
        case ideal(factor: Double)
    }

    public var expression: String
    public var quantity: Quantity
    public var op: String
    public var target: Target
    public var transport: LoadTransport?
    /// The step's asked rate (req/s) this threshold is about; nil: the whole load.
    public var rate: Double?

    static let operators = ["<=", ">=", "==", "<", ">"]
    static let latencyStats = ["p50", "p90", "p99", "p999", "p9999", "max", "mean"]

    public init(parsing expression: String, transport: LoadTransport? = nil, rate: Double? = nil) throws {
        self.expression = expression; self.transport = transport; self.rate = rate
        func fail(_ why: String) -> BenchError { .usage("threshold '\(expression)': \(why)") }
        guard let op = Self.operators.first(where: { expression.contains($0) }) else {
            throw fail("no comparison operator (expected QUANTITY OP VALUE, OP one of < <= > >= ==)")
        }
        self.op = op
        let parts = expression.components(separatedBy: op)
        guard parts.count == 2 else { throw fail("more than one operator") }
        let lhs = parts[0].trimmingCharacters(in: .whitespaces), rhs = parts[1].trimmingCharacters(in: .whitespaces)
        switch lhs {
        case "achievedRate": quantity = .achievedRate
        case "errors": quantity = .errors
        default:
            guard lhs.hasPrefix("latencyMs.") else {
                throw fail(
                    "unknown quantity '\(lhs)' (known for load results: latencyMs.STAT, achievedRate, errors)")
            }
            var stat = String(lhs.dropFirst("latencyMs.".count)).lowercased()
            stat = ["median": "p50", "p99.9": "p999", "p99.99": "p9999"][stat] ?? stat
            guard Self.latencyStats.contains(stat) else {
                throw fail("unknown statistic '\(stat)' (known: \(Self.latencyStats.joined(separator: " ")), median)")
            }
            quantity = .latency(stat)
        }
        if let v = Double(rhs), v.isFinite {
            target = .value(v)
        } else if let f = Self.factor(rhs, of: "asked") {
            guard quantity == .achievedRate else { throw fail("'asked' compares with achievedRate only") }
            target = .asked(factor: f)
        } else if let f = Self.factor(rhs, of: "ideal") {
            guard case .latency = quantity else { throw fail("'ideal' compares with latencyMs only") }
            target = .ideal(factor: f)
        } else {
            throw fail("'\(rhs)' is not a number, asked or ideal (e.g. 50, 0.99 * asked, 2 * ideal)")
        }
        if rate != nil, quantity == .errors { throw fail("errors are counted per load, not per rate step") }
    }

    /// `word`, `F * word`, `word * F` (F > 0).
    static func factor(_ s: String, of word: String) -> Double? {
        let compact = s.replacingOccurrences(of: " ", with: "")
        if compact == word { return 1 }
        let factors = compact.components(separatedBy: "*")
        guard factors.count == 2, factors.contains(word) else { return nil }
        guard let f = Double(factors[0] == word ? factors[1] : factors[0]), f.isFinite, f > 0 else { return nil }
        return f
    }

    func holds(_ a: Double, _ b: Double) -> Bool {
        switch op {
        case "<": return a < b
        case "<=": return a <= b
        case ">": return a > b
        case ">=": return a >= b
        default: return a == b
        }
    }

    public var scope: String {
        let parts = [transport?.rawValue, rate.map { "\(Units.format($0, $0 < 100 ? 1 : 0)) req/s" }].compactMap { $0 }
        return parts.isEmpty ? "every load" : parts.joined(separator: " · ")
    }
}

/// One threshold checked against one load (or step): what `netbench check` prints and puts in JUnit.
public struct LoadCheckResult: Sendable, Equatable {
    public var name: String
    public var passed: Bool
    public var message: String
}

/// A thresholds file for load results: `{"thresholds": ["latencyMs.p99 <= 50",
/// {"expr": "achievedRate >= 0.99 * asked", "transport": "h3", "rate": 1000}]}`.
public enum LoadThresholdFile {
    private struct File: Decodable { var thresholds: [Entry]? }
    private struct Scoped: Decodable { var expr: String; var transport: String?; var rate: Double? }
    private enum Entry: Decodable {
        case text(String)
        case scoped(Scoped)
        init(from decoder: Decoder) throws {
            if let s = try? decoder.singleValueContainer().decode(String.self) { self = .text(s); return }
            self = .scoped(try Scoped(from: decoder))
        }
    }

    public static func load(from path: String) throws -> [LoadThreshold] {
        let file = try JSONFile.load(File.self, from: path)
        guard let entries = file.thresholds else {
            throw BenchError.data(
                "\(path): missing required key 'thresholds' (a list of \"QUANTITY OP VALUE\" strings)")
        }
        return try entries.enumerated().map { i, entry in
            do {
                switch entry {
                case .text(let s): return try LoadThreshold(parsing: s)
                case .scoped(let s):
                    var kind: LoadTransport?
                    if let t = s.transport {
                        guard let k = LoadTransport(rawValue: t) else {
                            let known = LoadTransport.allCases.map(\.rawValue).joined(separator: ", ")
                            throw BenchError.usage("threshold '\(s.expr)': transport '\(t)' is not one of \(known)")
                        }
                        kind = k
                    }
                    if let r = s.rate, !(r.isFinite && r > 0) {
                        throw BenchError.usage("threshold '\(s.expr)': rate \(r) is not a rate above 0 (req/s)")
                    }
                    return try LoadThreshold(parsing: s.expr, transport: kind, rate: s.rate)
                }
            } catch let e as BenchError {
                throw BenchError.data("\(path): thresholds[\(i)]: \(e.message)")
            }
        }
    }
}

extension LoadResults {
    /// Every threshold against every load (and step) it applies to.
    public func check(_ thresholds: [LoadThreshold]) -> [LoadCheckResult] {
        var out: [LoadCheckResult] = []
        for t in thresholds {
            var matched = false
            for load in loads where t.transport == nil || t.transport == load.transport {
                if let rate = t.rate {
                    for step in load.steps {
                        guard let asked = step.rate, abs(asked - rate) <= 0.005 * rate else { continue }
                        matched = true
                        out.append(Self.check(t, load: load, step: step))
                    }
                } else {
                    matched = true
                    out.append(Self.check(t, load: load, step: nil))
                }
            }
            if !matched {
                out.append(
                    LoadCheckResult(
                        name: "\(t.expression) [\(t.scope)]", passed: false,
                        message: "no load in \(t.scope)" + (t.rate != nil ? " (no step asked at that rate)" : "")))
            }
        }
        return out
    }

    static func check(_ t: LoadThreshold, load: LoadRecord, step: LoadRecord.Step?) -> LoadCheckResult {
        func ms(_ v: Double) -> String { Units.format(v, v < 10 ? 3 : 1) }
        let rateText = step?.rate ?? load.askedRate
        let scope = [load.transport.rawValue, rateText.map { "\(Units.format($0, $0 < 100 ? 1 : 0)) req/s" }]
            .compactMap { $0 }.joined(separator: " · ")
        let name = "\(t.expression) [\(scope)]"
        func fail(_ why: String) -> LoadCheckResult { LoadCheckResult(name: name, passed: false, message: why) }
        let latency = step?.latencyMs ?? load.latencyMs
        let observed: Double
        let observedText: String
        switch t.quantity {
        case .latency(let stat):
            guard latency.count > 0 else { return fail("no successful response, so no latency") }
            let values = [
                "p50": latency.p50, "p90": latency.p90, "p99": latency.p99, "p999": latency.p999,
                "p9999": latency.p9999, "max": latency.max, "mean": latency.mean ?? .nan,
            ]
            observed = values[stat] ?? .nan
            guard observed.isFinite else { return fail("latencyMs.\(stat) is not recorded") }
            observedText = "latencyMs.\(stat) = \(ms(observed)) ms (n=\(latency.count))"
        case .achievedRate:
            observed = step?.achievedRate ?? load.achievedRate
            observedText = "achievedRate = \(Units.format(observed, 1)) req/s"
        case .errors:
            observed = Double(load.errors.values.reduce(0, +))
            observedText =
                "errors = \(Int(observed))"
                + (load.errors.isEmpty
                    ? ""
                    : " ("
                        + load.errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                        .joined(separator: ", ") + ")")
        }
        let limit: Double
        let limitText: String
        switch t.target {
        case .value(let v):
            limit = v
            limitText = Units.format(v, v == v.rounded() ? 0 : 3)
        case .asked(let f):
            guard let asked = rateText else { return fail("a closed-model load has no asked rate") }
            limit = f * asked
            limitText = (f == 1 ? "" : "\(Units.format(f, 3)) × ") + "asked \(Units.format(asked, 1)) req/s"
        case .ideal(let f):
            guard let ideal = load.link?.idealMs else {
                return fail("no ideal: this load crossed no emulated link (netbench load -p PROFILE)")
            }
            limit = f * ideal
            limitText = (f == 1 ? "" : "\(Units.format(f, 3)) × ") + "ideal \(ms(ideal)) ms"
        }
        let ok = t.holds(observed, limit)
        return LoadCheckResult(name: name, passed: ok, message: "\(observedText); expected \(t.op) \(limitText)")
    }
}

extension LoadRecord {
    /// The open model's asked rate over the whole load (scheduled requests per second); nil when closed.
    public var askedRate: Double? {
        guard model == "open", durationMs > 0 else { return nil }
        let rates = steps.compactMap(\.rate)
        if rates.count == 1 { return rates[0] }
        return Double(scheduled) / (durationMs / 1000)
    }
}
