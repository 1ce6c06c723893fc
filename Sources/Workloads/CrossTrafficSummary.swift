import BenchCore
import Runner
import BenchModel
import Testbed
import Statistics

/// Turns the flows' raw bins into the run's cross-traffic record: goodput per flow, and with two
/// or more flows each one's share and Jain's fairness index over the window they all ran in.
/// Pure: no clock, no sockets.
enum CrossTrafficSummary {
    struct Flow {
        var name: String
        var transport: TransportKind
        var direction: Scenario.Bulk.Direction = .download
        var startMs: Double
        var stopMs: Double
        var bins: [Int64]
        var congestionControl: String?
        var congestionControlReadBack: String?
        var error: String?
    }

    static func record(flows: [Flow], originMs: Double, binMs: Double) -> CrossTrafficRecord {
        var out = CrossTrafficRecord(
            binMs: binMs, originMs: originMs,
            flows: flows.map { f in
                var r = CrossFlowRecord(
                    name: f.name, transport: f.transport, direction: f.direction, startMs: f.startMs, stopMs: f.stopMs,
                    bytes: f.bins.reduce(0, +), bins: f.bins)
                r.congestionControl = f.congestionControl
                r.congestionControlReadBack = f.congestionControlReadBack
                r.error = f.error
                let seconds = (f.stopMs - f.startMs) / 1000
                if seconds > 0 { r.goodputMbps = Double(r.bytes) * 8 / seconds / 1e6 }
                return r
            })
        // Downloads share the downlink's queue, uploads the uplink's: shares and fairness are
        // computed among the flows of one direction.
        for direction in [Scenario.Bulk.Direction.download, .upload] {
            let members = flows.indices.filter { flows[$0].direction == direction }
            let group = members.map { flows[$0] }
            guard group.count >= 2, let window = shareWindow(group, originMs: originMs, binMs: binMs) else { continue }
            let bytes = group.map { f in Double(f.bins.dropFirst(window.lowerBound).prefix(window.count).reduce(0, +)) }
            guard let shares = Fairness.shares(bytes) else { continue }
            for (k, i) in members.enumerated() { out.flows[i].share = shares[k] }
            let jain = Fairness.jainIndex(bytes)
            let start = originMs + Double(window.lowerBound) * binMs, end = originMs + Double(window.upperBound) * binMs
            if direction == .download {
                out.jainIndex = jain; out.shareWindowStartMs = start; out.shareWindowEndMs = end
            } else {
                out.uploadJainIndex = jain; out.uploadShareWindowStartMs = start; out.uploadShareWindowEndMs = end
            }
        }
        return out
    }

    /// The bins (indices) wholly inside the time every flow was running: from the latest start to
    /// the earliest stop. nil when that window holds no whole bin.
    static func shareWindow(_ flows: [Flow], originMs: Double, binMs: Double) -> Range<Int>? {
        guard let start = flows.map(\.startMs).max(), let stop = flows.map(\.stopMs).min() else { return nil }
        let first = Int(((start - originMs) / binMs).rounded(.up) + 1e-9)
        let last = Int(((stop - originMs) / binMs).rounded(.down))
        return first < last ? first..<last : nil
    }
}
