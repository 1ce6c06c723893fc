import BenchCore

/// A time-ordered stage of the link (the delay line): packets go in, come out once due. Time is
/// always passed in: no stage reads a clock. The bottleneck is `Bottleneck` (discipline + server).
public protocol PacketQueue: AnyObject {
    /// Offers a packet at `now`; false means the stage refused (dropped) it.
    func enqueue(_ packet: Packet, now: Instant) -> Bool
    /// The next packet whose time has come at `now`, stamped, or nil.
    func dequeue(now: Instant) -> Packet?
    /// When `dequeue` will next return a packet, or nil when the stage is empty.
    func nextWakeup(now: Instant) -> Instant?
}

extension QueueLimit {
    /// Drop-tail admission: would a packet of `size` bytes still fit?
    func admits(size: Int, queuedPackets: Int, queuedBytes: Int) -> Bool {
        switch self {
        case .bytes(let limit): return queuedBytes + size <= limit
        case .packets(let limit): return queuedPackets < limit
        }
    }
}
