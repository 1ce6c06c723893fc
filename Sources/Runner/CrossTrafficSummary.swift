import BenchCore
import BenchModel
import Statistics

/// Turns the flows' raw bins into the run's cross-traffic record: goodput per flow, and with two
/// or more flows each one's share and Jain's fairness index over the window they all ran in.
/// Pure: no clock, no sockets.
enum CrossTrafficSummary {
    struct Flow {
        var name: String
        var transport: TransportKind
        var startMs: Double
        var stopMs: Double
        var bins: [Int64]
        var congestionControl: String?
        var congestionControlReadBack: String?
        var error: String?
    }

    static func record(flows: [Flow], originMs: Double, binMs: Double) -> CrossTrafficRecord {
        var out = CrossTrafficRecord(binMs: binMs, originMs: originMs, flows: flows.map { f in
            var r = CrossFlowRecord(name: f.name, transport: f.transport, direction: .download, startMs: f.startMs, stopMs: f.stopMs,
                                    bytes: f.bins.reduce(0, +), bins: f.bins)
            r.congestionControl = f.congestionControl
            r.congestionControlReadBack = f.congestionControlReadBack
            r.error = f.error
            let seconds = (f.stopMs - f.startMs) / 1000
            if seconds > 0 { r.goodputMbps = Double(r.bytes) * 8 / seconds / 1e6 }
            return r
        })
        guard flows.count >= 2, let window = shareWindow(flows, originMs: originMs, binMs: binMs) else { return out }
        let bytes = flows.map { f in Double(f.bins.dropFirst(window.lowerBound).prefix(window.count).reduce(0, +)) }
        guard let shares = Fairness.shares(bytes) else { return out }
        for i in out.flows.indices { out.flows[i].share = shares[i] }
        out.jainIndex = Fairness.jainIndex(bytes)
        out.shareWindowStartMs = originMs + Double(window.lowerBound) * binMs
        out.shareWindowEndMs = originMs + Double(window.upperBound) * binMs
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
