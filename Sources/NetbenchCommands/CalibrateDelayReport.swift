import Foundation
import BenchCore
import LinkModel
import Workloads

extension CalibrateCommand {
    /// The delay phase: per direction, configured (the model on the probes' send times), configured
    /// convolved with the timer floor, and measured one-way delays side by side, the KS check and
    /// the reordering check; and whether a check failed.
    static func renderDelay(_ d: DelayCalibration) -> (String, Bool) {
        let ms = { (ns: Nanoseconds) in Units.format(Double(ns) / 1e6, 3) }
        let pct = { (x: Double) in Units.format(x * 100, 2) + "%" }
        let levels: [(String, Double)] = [("p1", 0.01), ("p10", 0.1), ("p50", 0.5), ("p90", 0.9), ("p99", 0.99)]
        func row(_ label: String, _ xs: [Nanoseconds]) -> String {
            let sorted = xs.sorted()
            let cells = levels.map { (_, q) -> String in
                guard !sorted.isEmpty else { return "-" }
                let i = min(sorted.count - 1, max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1))
                return ms(sorted[i])
            }
            return "             " + label.padding(toLength: 22, withPad: " ", startingAt: 0)
                + cells.map { $0.padding(toLength: 10, withPad: " ", startingAt: 0) }.joined()
        }
        var missed: [String] = []
        var lines = [
            "  delay    one-way UDP probes every \(ms(d.interval)) ms against the link model on the same send times"
        ]
        for dir in d.directions {
            let name = dir.name.padding(toLength: 5, withPad: " ", startingAt: 0)
            lines.append("    \(name) \(describe(dir.configuration))")
            lines.append(
                "             " + "ms".padding(toLength: 22, withPad: " ", startingAt: 0)
                    + levels.map { $0.0.padding(toLength: 10, withPad: " ", startingAt: 0) }.joined())
            lines.append(row("configured (model)", dir.model))
            lines.append(row("configured + floor", dir.reference))
            lines.append(row("measured", dir.measured) + "  \(dir.measured.count)/\(dir.probesSent) probes")
            if dir.checksDelay {
                let ok = dir.delayPasses
                if !ok { missed.append("delay (\(dir.name))") }
                lines.append(
                    "           KS distance \(dir.ksDistance.map { Units.format($0, 4) } ?? "none") "
                        + "\(ok ? "≤" : ">") \(Units.format(dir.ksCritical, 4)) (critical at alpha 0.001) "
                        + (ok ? "✓ PASS" : "✗ FAIL"))
            }
            if dir.checksReordering {
                let ok = dir.reorderingPasses
                if !ok { missed.append("reordering (\(dir.name))") }
                lines.append(
                    "           reordering configured \(pct(dir.modelRate)) (model on these probes), measured "
                        + "\(pct(dir.measuredRate)), tolerance ±\(pct(dir.reorderTolerance)) "
                        + (ok ? "✓ PASS" : "✗ FAIL")
                        + "   emulator counted \(dir.emulatorReordered) of \(dir.emulatorForwarded) packets reordered")
            }
        }
        if !d.report.flagReasons.isEmpty {
            missed.append("integrity (delay)")
            lines.append("    FLAGGED: " + d.report.flagReasons.joined(separator: "; "))
        }
        if !missed.isEmpty { lines.append("  missed: " + missed.joined(separator: ", ")) }
        return (lines.joined(separator: "\n"), !missed.isEmpty)
    }

    /// How a deviation reads per distribution: ±half-width, σ, or the scale of netem's table.
    static func scaleSymbol(_ d: JitterDistribution) -> String {
        switch d {
        case .uniform: return "±"
        case .normal: return "σ "
        case .pareto, .paretoNormal: return "scale "
        }
    }

    /// "delay 20 ms, jitter σ 5 ms normal (order kept), swap 1% (hold ≤ 10 ms)".
    static func describe(_ c: LinkConfiguration) -> String {
        let ms = { (ns: Nanoseconds) in Units.format(Double(ns) / 1e6, 3) + " ms" }
        let v = c.delayVariation
        var parts = [v.trace.map { "delay trace (\($0.points.count) points, \(ms($0.minimumDelay))–"
            + "\(ms($0.maximumDelay)))" } ?? "delay \(ms(c.delay))"]
        if let j = v.jitter {
            parts.append(
                "jitter \(scaleSymbol(j.distribution))\(ms(j.deviation)) \(j.distribution.rawValue) "
                    + (j.mayReorder ? "(may reorder)" : "(order kept)"))
        }
        switch v.reordering {
        case .swap(let p, let hold)?: parts.append("swap \(Units.format(p * 100, 2))% (hold ≤ \(ms(hold)))")
        case .jump(let n, .probability(let p))?: parts.append("jump \(n) ahead, \(Units.format(p * 100, 2))%")
        case .jump(let n, .every(let k))?: parts.append("jump \(n) ahead, every \(k)th")
        case nil: break
        }
        return parts.joined(separator: ", ")
    }
}
