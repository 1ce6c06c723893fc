import BenchModel
import Statistics

/// One sentence on the emulated bottleneck's queueing delay over a set of runs: per direction, the
/// median over the runs of each run's p50 and p99 (all paths of the direction together), and the
/// worst run's maximum. Nil when no run recorded it (loopback, or files written before it).
enum QueueingSummary {
    static func sentence(_ runs: [RunRecord]) -> String? {
        figures(runs).map {
            "queueing delay in the emulated bottleneck (median over runs; serialization included): " + $0
        }
    }

    /// `down p50 … ms, p99 … ms (max … ms); up …`, or nil.
    static func figures(_ runs: [RunRecord]) -> String? {
        var parts: [String] = []
        let sides: [(String, KeyPath<RunMetrics, QueueDelayMetrics?>)] = [
            ("down", \.downlinkQueueDelay), ("up", \.uplinkQueueDelay),
        ]
        for (word, key) in sides {
            let figures = runs.compactMap { $0.metrics[keyPath: key] }
            guard let p50 = Descriptive.median(figures.map(\.p50Ms)),
                let p99 = Descriptive.median(figures.map(\.p99Ms)),
                let worst = figures.map(\.maxMs).max()
            else { continue }
            parts.append(
                "\(word) p50 \(Format.value(p50)) ms, p99 \(Format.value(p99)) ms (max \(Format.value(worst)) ms)")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
