import BenchCore

/// The small queue contract every discipline implements (one discipline per file); `Link` is the
/// one generic loop that drives them. Time is always passed in: no discipline reads a clock.
public protocol PacketQueue: AnyObject {
    /// Offers a packet at `now`; false means the discipline refused (dropped) it.
    func enqueue(_ packet: Packet, now: Instant) -> Bool
    /// The next packet whose time has come at `now`, stamped, or nil.
    func dequeue(now: Instant) -> Packet?
    /// When `dequeue` will next return a packet, or nil when the queue is empty.
    func nextWakeup(now: Instant) -> Instant?
}

/// A bottleneck: a drop-tail queue drained at some rate. It stamps `departure` on enqueue (the
/// departure time follows from the packets ahead and the rate alone), so it can also report it.
public protocol BottleneckQueue: PacketQueue {
    /// Packets held (admitted, not yet departed), and their bytes.
    var queuedPackets: Int { get }
    var queuedBytes: Int { get }
    /// Empties the queue as an interface going down at `now` would; `body` gets each packet.
    func flush(now: Instant, _ body: (Packet) -> Void)
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
