import BenchCore

/// A Mahimahi trace as a server: each trace entry is an opportunity to send 1,500 bytes at that
/// millisecond; opportunities nobody is queued for are wasted; the trace wraps. Accounting is per
/// byte: one opportunity can carry several small packets, and a packet larger than what is left of
/// an opportunity takes the rest of it and continues in the next. A packet departs at the
/// opportunity that carries its last byte.
public final class TraceRateServer: LinkServer {
    public static let bytesPerOpportunity = MahimahiTrace.bytesPerOpportunity

    public let trace: MahimahiTrace
    private let start: Instant
    /// The global index (wraps included) of the first opportunity not yet used up…
    private var cursor: Int64 = 0
    /// …and the bytes it still offers.
    private var credit = TraceRateServer.bytesPerOpportunity

    /// `start` is the instant the trace's offset 0 refers to.
    public init(trace: MahimahiTrace, start: Instant) {
        self.trace = trace
        self.start = start
    }

    public func serve(size: Int, arrival: Instant, start t: Instant) -> Instant {
        if time(ofOpportunity: cursor) < t {
            // The link was idle before this opportunity: it and all until `t` went unused.
            cursor = firstOpportunity(atOrAfter: t)
            credit = Self.bytesPerOpportunity
        }
        var remaining = size
        while remaining > credit {
            remaining -= credit
            cursor += 1
            credit = Self.bytesPerOpportunity
        }
        credit -= remaining
        let departure = time(ofOpportunity: cursor)
        if credit == 0 {
            cursor += 1
            credit = Self.bytesPerOpportunity
        }
        return departure
    }

    public func reset(now: Instant) {
        // Packets flushed from the queue had claimed opportunities after `now`; give those back.
        cursor = firstOpportunity(atOrAfter: now)
        credit = Self.bytesPerOpportunity
    }

    /// The instant of opportunity `k` (k counts across wraps).
    func time(ofOpportunity k: Int64) -> Instant {
        let n = Int64(trace.offsetsMs.count)
        let ms = Int64(trace.offsetsMs[Int(k % n)]) + (k / n) * trace.periodMs
        return start + ms * 1_000_000
    }

    /// The first opportunity at or after `t`.
    func firstOpportunity(atOrAfter t: Instant) -> Int64 {
        let rel = t.since(start)
        if rel <= 0 { return 0 }
        let periodNs = trace.periodMs * 1_000_000
        // Cycle c spans the instants (c·P, (c+1)·P]: its last entry (= P) is at (c+1)·P.
        let cycle = (rel - 1) / periodNs
        let offsetNs = rel - cycle * periodNs
        // Lower bound: the first entry whose offset is ≥ offsetNs, in (0, P]. The last entry
        // equals the period, so one is always found in this cycle.
        var lo = 0, hi = trace.offsetsMs.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if Int64(trace.offsetsMs[mid]) * 1_000_000 < offsetNs { lo = mid + 1 } else { hi = mid }
        }
        return cycle * Int64(trace.offsetsMs.count) + Int64(lo)
    }
}

/// A drop-tail queue drained by a Mahimahi trace.
public final class TraceRateQueue: Bottleneck {
    public static let bytesPerOpportunity = MahimahiTrace.bytesPerOpportunity
    public let trace: MahimahiTrace
    public let limit: QueueLimit

    /// `start` is the instant the trace's offset 0 refers to.
    public init(trace: MahimahiTrace, limit: QueueLimit, start: Instant) {
        self.trace = trace
        self.limit = limit
        super.init(discipline: DropTail(limit: limit), server: TraceRateServer(trace: trace, start: start))
    }
}
