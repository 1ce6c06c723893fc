import BenchCore

/// A drop-tail queue drained at a constant bit rate (or at once, when the rate is nil).
///
/// A packet's departure is the end of its serialization: it starts when both the packet has
/// arrived and the previous packet has left. Serialization is computed in integers with the
/// remainder carried (the rate is rounded to whole bit/s), so a long run never drifts.
public final class ConstantRateQueue: BottleneckQueue {
    public let bitsPerSecond: Double?
    public let limit: QueueLimit
    private var queue = DepartureQueue()
    private var busyUntil = Instant(nanoseconds: 0)
    private let wholeBitsPerSecond: Int64
    private var busyRemainder: Int64 = 0  // sub-nanosecond part of `busyUntil`, in 1/rate ns
    public var queuedBytes: Int { queue.queuedBytes }

    public init(bitsPerSecond: Double?, limit: QueueLimit) {
        self.bitsPerSecond = bitsPerSecond.flatMap { $0 > 0 ? $0 : nil }
        self.limit = limit
        wholeBitsPerSecond = Int64(max(1, (bitsPerSecond ?? 1).rounded()))
    }

    public var queuedPackets: Int { queue.count }

    public func enqueue(_ packet: Packet, now: Instant) -> Bool {
        let size = Int(packet.size)
        guard queue.admits(size, limit) else { return false }
        var p = packet
        if bitsPerSecond != nil {
            if busyUntil <= now { busyUntil = now; busyRemainder = 0 }
            let scaled = Int64(size) * 8_000_000_000 + busyRemainder
            busyUntil = busyUntil + scaled / wholeBitsPerSecond
            busyRemainder = scaled % wholeBitsPerSecond
            p.departure = busyUntil
        } else {
            p.departure = now
        }
        queue.append(p)
        return true
    }

    public func dequeue(now: Instant) -> Packet? { queue.dequeue(now: now) }

    public func nextWakeup(now: Instant) -> Instant? { queue.nextDeparture }

    public func flush(now: Instant, _ body: (Packet) -> Void) {
        queue.flush(body)
        busyUntil = now
        busyRemainder = 0
    }
}
