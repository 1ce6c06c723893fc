import BenchCore

/// A fixed one-way delay: a packet enqueued at `now` is released at `now + delay`.
/// With a constant delay release times never decrease, so a FIFO is the whole discipline.
public final class DelayQueue: PacketQueue {
    public let delay: Nanoseconds
    private var ring = PacketRing()

    public init(delay: Nanoseconds) { self.delay = max(0, delay) }

    public var count: Int { ring.count }

    public func enqueue(_ packet: Packet, now: Instant) -> Bool {
        var p = packet
        p.release = now + delay
        ring.append(p)
        return true
    }

    public func dequeue(now: Instant) -> Packet? {
        guard let head = ring.first, head.release <= now else { return nil }
        return ring.popFirst()
    }

    public func nextWakeup(now: Instant) -> Instant? { ring.first?.release }
}
