import BenchCore
import BenchModel

/// One arrival of response body bytes at the client.
struct BodyArrival: Equatable {
    let at: Instant
    let bytes: Int
}

/// A connection of the load as the migration metrics see it.
struct ConnectionLifetime: Equatable {
    let openedAt: Instant
    /// It ended with an error (lost, aborted, reset).
    let failed: Bool
}

extension MigrationMetrics {
    /// What the first network change did to a page load, from the load's raw timestamps alone:
    /// `pathEvents` (when the network changed, told to the client or not), the body arrivals in
    /// order, the connections in opening order, and the bytes fetched twice. Nil without a change.
    static func measured(
        pathEvents: [Instant], arrivals: [BodyArrival], connections: [ConnectionLifetime],
        bytesRedownloaded: Int64, recoveryRateBitsPerSecond: Double?
    ) -> MigrationMetrics? {
        guard let first = pathEvents.first else { return nil }
        var m = MigrationMetrics(survived: true)
        m.stallMs = stall(after: first, arrivals: arrivals)
        // Connections opened after the change are extra handshakes; one lost with an error broke.
        m.extraHandshakes = connections.filter { $0.openedAt >= first }.count
        let broken = connections.contains { $0.openedAt < first && $0.failed }
        m.survived = !broken && m.extraHandshakes == 0
        m.bytesRedownloaded = bytesRedownloaded
        if let rate = recoveryRateBitsPerSecond, rate > 0 {
            m.recoveryMs = recovery(after: first, arrivals: arrivals, rateBitsPerSecond: rate)
        }
        return m
    }

    /// The longest pause in delivery that ends after the change (within 5 s of it), measured from
    /// the last byte before it; packets still in flight on the old path right after the change do
    /// not hide the gap that follows them. Nil when nothing arrived before the change.
    static func stall(after change: Instant, arrivals: [BodyArrival]) -> Double? {
        guard let startIndex = arrivals.lastIndex(where: { $0.at < change }) else { return nil }
        var longest: Nanoseconds = 0
        var i = startIndex
        while i + 1 < arrivals.count, arrivals[i].at < change + .seconds(5) {
            longest = max(longest, arrivals[i + 1].at.since(arrivals[i].at))
            i += 1
        }
        return longest.inMilliseconds
    }

    /// Change → the end of the first 100 ms window after it that carried ≥ 90% of the path's rate
    /// (a sliding window over the byte arrivals); nil when no window did.
    static func recovery(after change: Instant, arrivals: [BodyArrival], rateBitsPerSecond rate: Double) -> Double? {
        let window: Nanoseconds = .milliseconds(100)
        let need = rate * 0.9 / 8 * 0.1
        let later = arrivals.filter { $0.at >= change }
        var lo = 0
        var sum = 0
        for hi in 0..<later.count {
            sum += later[hi].bytes
            while later[hi].at.since(later[lo].at) >= window {
                sum -= later[lo].bytes
                lo += 1
            }
            if Double(sum) >= need { return max(0, later[hi].at.milliseconds(since: change)) }
        }
        return nil
    }
}
