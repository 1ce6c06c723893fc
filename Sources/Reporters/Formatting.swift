import Foundation
import BenchCore
import Statistics

/// Number formatting shared by the renderers. Fixed C-locale formats, so output is byte-stable.
enum Format {
    /// Machine-readable numbers (CSV): up to 3 decimals, trailing zeros trimmed.
    static func number(_ v: Double) -> String { Units.format(v, 3) }

    /// Machine-readable relative values (CSV): up to 6 decimals, so 0.01% changes survive.
    static func fraction(_ v: Double) -> String { Units.format(v, 6) }

    /// A value for people: 3 significant figures or so, e.g. 1234, 123.4, 12.34, 0.123.
    static func value(_ v: Double) -> String {
        let a = abs(v)
        if a >= 100 || a == 0 { return String(format: "%.0f", v) }
        if a >= 10 { return String(format: "%.1f", v) }
        if a >= 1 { return String(format: "%.2f", v) }
        return String(format: "%.3f", v)
    }

    /// Axis ticks: as short as exact, e.g. `50`, `1200`, `0.25`.
    static func tick(_ v: Double) -> String { Units.format(v, 3) }

    /// A value with its unit, e.g. `1234 ms`, `87.5 Mbit/s`.
    static func value(_ v: Double, unit: String) -> String {
        if unit == "B" { return Units.formatBytes(Int64(v.rounded())) }
        // Counts (no unit) that are whole stay whole: 6 requests, not 6.00.
        if unit.isEmpty { return v == v.rounded() && abs(v) < 1e15 ? String(format: "%.0f", v) : value(v) }
        return value(v) + " " + unit
    }

    /// A relative change as a signed percentage, e.g. `+12.3%`, `-4.0%`.
    static func percent(_ r: Double) -> String {
        let p = r * 100
        let text = String(format: "%.1f", abs(p))
        if text == "0.0" { return "0.0%" }
        return (p < 0 ? "-" : "+") + text + "%"
    }

    /// `-12.3% to -4.0%`.
    static func percentInterval(_ ci: ConfidenceInterval) -> String {
        percent(ci.low) + " to " + percent(ci.high)
    }

    /// p-values: `0.034`, `<0.001`.
    static func pValue(_ p: Double) -> String {
        p < 0.001 ? "<0.001" : String(format: "%.3f", p)
    }
}

/// Relative amounts on the command line: `5%`, `2.5%`, or a bare number of percent (`5`).
public enum Percent {
    /// `5%` or `5` → 0.05; nil when malformed or negative.
    public static func parse(_ text: String) -> Double? {
        var t = text.trimmingCharacters(in: .whitespaces)
        if t.hasSuffix("%") { t.removeLast() }
        guard let v = Double(t.trimmingCharacters(in: .whitespaces)), v.isFinite, v >= 0 else { return nil }
        return v / 100
    }
}

/// Words for verdicts, by direction of the metric.
extension Verdict {
    /// Report wording: a transport against the baseline transport (`faster` / `slower`).
    func transportWord(higherIsBetter: Bool) -> String {
        switch self {
        case .better: return higherIsBetter ? "higher" : "faster"
        case .worse: return higherIsBetter ? "lower" : "slower"
        case .noSignificantChange: return "no significant difference"
        }
    }

    /// Compare wording: B against A (`improved` / `regressed`).
    var changeWord: String {
        switch self {
        case .better: return "improved"
        case .worse: return "regressed"
        case .noSignificantChange: return "no significant change"
        }
    }
}

extension Format {
    /// What a "no significant difference" could have seen: `n.s.; ≥12% detectable` (80% power),
    /// or `n.s.; too few runs to decide` when no p-value could fall below 0.05.
    static func notSignificant(_ c: Comparison) -> String {
        guard let mdd = c.minimumDetectableChange else { return "n.s." }
        if mdd.isInfinite { return "n.s.; too few runs to decide" }
        return "n.s.; ≥" + String(Format.percent(mdd).drop { $0 == "+" }) + " detectable"
    }
}
