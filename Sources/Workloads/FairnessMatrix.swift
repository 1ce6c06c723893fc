import BenchCore
import Runner
import BenchModel
import Testbed
import Statistics

/// The fairness suite's plan and table: pairs of bulk flows on a link, several runs each, and
/// each flow's share of the link with a 95% interval over the runs. Pure (no network).
public enum FairnessMatrix {
    /// A flow named on the command line: `h3:cubic`, `tcp:bbr` (tcp = h2 over TCP+TLS).
    public struct FlowLabel: Hashable, Sendable, CustomStringConvertible {
        public var transport: TransportKind
        public var congestionControl: String
        public var description: String { "\(transport == .h3 ? "h3" : "tcp"):\(congestionControl)" }

        public init(transport: TransportKind, congestionControl: String) {
            self.transport = transport; self.congestionControl = congestionControl
        }

        public init?(_ text: String) {
            let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[1].isEmpty else { return nil }
            switch parts[0] {
            case "h3", "quic": transport = .h3
            case "tcp", "h2": transport = .h2
            default: return nil
            }
            if transport == .h3, !CrossFlowSpec.quicCongestionControls.contains(parts[1]) { return nil }
            congestionControl = parts[1]
        }
    }

    public typealias Pair = (FlowLabel, FlowLabel)

    /// The issue's matrix: h3 (cubic, bbr) against TCP (cubic, bbr), then each against its own kind.
    public static let defaultPairs: [Pair] = {
        let h3 = ["cubic", "bbr"].map { FlowLabel(transport: .h3, congestionControl: $0) }
        let tcp = ["cubic", "bbr"].map { FlowLabel(transport: .h2, congestionControl: $0) }
        var pairs: [Pair] = []
        for a in h3 { for b in tcp { pairs.append((a, b)) } }
        for f in h3 + tcp { pairs.append((f, f)) }
        return pairs
    }()

    /// `a/b`, e.g. `h3:cubic/tcp:bbr`.
    public static func parsePair(_ text: String) -> Pair? {
        let sides = text.split(separator: "/").map(String.init)
        guard sides.count == 2, let a = FlowLabel(sides[0]), let b = FlowLabel(sides[1]) else { return nil }
        return (a, b)
    }

    /// The two flows of a pair, both starting at once and running `duration`.
    public static func flows(_ pair: Pair, duration: Nanoseconds) -> [CrossFlowSpec] {
        [pair.0, pair.1].enumerated().map { i, f in
            CrossFlowSpec(
                name: "\(i == 0 ? "A" : "B") \(f)", transport: f.transport, congestionControl: f.congestionControl,
                startAfter: .ms(0), duration: DurationValue(nanoseconds: duration))
        }
    }

    /// One line of the table: a pair on a profile over its runs.
    public struct Row: Sendable {
        public var profile: String
        public var pair: String
        public var runs: Int
        /// Flow A's and B's shares: mean with a Student-t 95% interval over the runs (nil below 2 runs).
        public var shareA: MeanConfidence?
        public var shareB: MeanConfidence?
        public var meanShareA: Double?
        public var jain: Double?
        /// Both flows' goodput together, mean over runs, Mbit/s.
        public var combinedMbps: Double?
    }

    /// Summarises the runs of one pair (records whose shares are missing are left out).
    public static func row(profile: String, pair: Pair, records: [CrossTrafficRecord]) -> Row {
        let ok = records.filter { $0.flows.count == 2 && $0.flows.allSatisfy { $0.share != nil } }
        let a = ok.map { $0.flows[0].share! }, b = ok.map { $0.flows[1].share! }
        return Row(
            profile: profile, pair: "\(pair.0) vs \(pair.1)", runs: ok.count,
            shareA: MeanConfidence(a), shareB: MeanConfidence(b), meanShareA: Descriptive.mean(a),
            jain: Descriptive.mean(ok.compactMap(\.jainIndex)),
            combinedMbps: Descriptive.mean(ok.map { $0.flows.compactMap(\.goodputMbps).reduce(0, +) }))
    }

    /// A fixed-width text table (percentages).
    public static func render(_ rows: [Row]) -> String {
        func pct(_ c: MeanConfidence?, _ mean: Double?) -> String {
            // A share lies in [0, 1]: the t interval is clipped to it.
            if let c {
                return
                    "\(Units.format(c.mean * 100, 1))% [\(Units.format(max(0, c.low) * 100, 1)), "
                        + "\(Units.format(min(1, c.high) * 100, 1))]"
            }
            return mean.map { "\(Units.format($0 * 100, 1))% (1 run)" } ?? "—"
        }
        var lines = [
            "profile          pair                      runs  share A (95% CI)        share B (95% CI)        Jain   "
                + "A+B Mbit/s"
        ]
        for r in rows {
            let pad = { (s: String, n: Int) in s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
            lines.append(
                pad(r.profile, 17) + pad(r.pair, 26) + pad("\(r.runs)", 6) + pad(pct(r.shareA, r.meanShareA), 24)
                    + pad(pct(r.shareB, r.meanShareA.map { 1 - $0 }), 24)
                    + pad(r.jain.map { Units.format($0, 3) } ?? "—", 7)
                    + (r.combinedMbps.map { Units.format($0, 2) } ?? "—"))
        }
        return lines.joined(separator: "\n")
    }
}
