import BenchCore

/// The FIFO both rate queues share: packets stamped with their departure on arrival, admitted by
/// the drop-tail limit, released in order once their departure has come. The queues differ only
/// in how they compute a departure (a constant rate, a trace's opportunities).
struct DepartureQueue: Sendable {
    private var ring = PacketRing()
    private(set) var queuedBytes = 0
    var count: Int { ring.count }

    func admits(_ size: Int, _ limit: QueueLimit) -> Bool {
        limit.admits(size: size, queuedPackets: ring.count, queuedBytes: queuedBytes)
    }

    mutating func append(_ packet: Packet) {
        ring.append(packet)
        queuedBytes += Int(packet.size)
    }

    /// The head packet, if its departure has come.
    mutating func dequeue(now: Instant) -> Packet? {
        guard let head = ring.first, head.departure <= now else { return nil }
        queuedBytes -= Int(head.size)
        return ring.popFirst()
    }

    var nextDeparture: Instant? { ring.first?.departure }

    /// Hands every queued packet to `body`, in order, and empties the queue.
    mutating func flush(_ body: (Packet) -> Void) {
        while let p = ring.popFirst() { body(p) }
        queuedBytes = 0
    }
}
