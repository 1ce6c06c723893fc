import BenchCore

/// A drop-tail queue drained by a Mahimahi trace: each trace entry is an opportunity to send
/// 1,500 bytes at that millisecond; opportunities nobody is queued for are wasted; the trace
/// wraps. Accounting is per byte: one opportunity can carry several small packets, and a packet
/// larger than what is left of an opportunity takes the rest of it and continues in the next.
///
/// Because the queue is FIFO and the schedule fixed, each packet's departure follows on arrival
/// from a cursor into the schedule: no per-millisecond tick.
public final class TraceRateQueue: BottleneckQueue {
    public static let bytesPerOpportunity = MahimahiTrace.bytesPerOpportunity

    public let trace: MahimahiTrace
    public let limit: QueueLimit
    private let start: Instant
    private var queue = DepartureQueue()
    /// The global index (wraps included) of the first opportunity not yet used up…
    private var cursor: Int64 = 0
    /// …and the bytes it still offers.
    private var credit = TraceRateQueue.bytesPerOpportunity
    public var queuedBytes: Int { queue.queuedBytes }

    /// `start` is the instant the trace's offset 0 refers to.
    public init(trace: MahimahiTrace, limit: QueueLimit, start: Instant) {
        self.trace = trace
        self.limit = limit
        self.start = start
    }

    public var queuedPackets: Int { queue.count }

    public func enqueue(_ packet: Packet, now: Instant) -> Bool {
        let size = Int(packet.size)
        guard queue.admits(size, limit) else { return false }
        if time(ofOpportunity: cursor) < now {
            // The queue drained before this opportunity: it and all until `now` went unused.
            cursor = firstOpportunity(atOrAfter: now)
            credit = Self.bytesPerOpportunity
        }
        var remaining = size
        while remaining > credit {
            remaining -= credit
            cursor += 1
            credit = Self.bytesPerOpportunity
        }
        credit -= remaining
        var p = packet
        p.departure = time(ofOpportunity: cursor)
        if credit == 0 {
            cursor += 1
            credit = Self.bytesPerOpportunity
        }
        queue.append(p)
        return true
    }

    public func dequeue(now: Instant) -> Packet? { queue.dequeue(now: now) }

    public func nextWakeup(now: Instant) -> Instant? { queue.nextDeparture }

    public func flush(now: Instant, _ body: (Packet) -> Void) {
        queue.flush(body)
        // The flushed packets had claimed opportunities after `now`; give those back.
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
