/// Packets and their bytes.
public struct PacketCount: Sendable, Equatable {
    public var packets: Int64 = 0
    public var bytes: Int64 = 0
    public init(packets: Int64 = 0, bytes: Int64 = 0) {
        self.packets = packets
        self.bytes = bytes
    }
    mutating func add(_ size: Int32) {
        packets += 1
        bytes += Int64(size)
    }
}

/// What one link direction did with the packets it was offered.
/// `received = forwarded + droppedByLoss + droppedByQueue + droppedByOutage + in flight`.
public struct LinkCounters: Sendable, Equatable {
    public var received = PacketCount()
    public var forwarded = PacketCount()
    /// Forwarded packets released out of arrival order (RFC 4737: a packet is reordered when its
    /// arrival sequence is below the highest released before it); a subset of `forwarded`.
    public var reordered = PacketCount()
    public var droppedByLoss = PacketCount()
    public var droppedByQueue = PacketCount()
    /// Arrived while the link was down, or flushed from the queue when it went down.
    public var droppedByOutage = PacketCount()
    /// Packets a discipline marked Congestion Experienced instead of dropping (they were forwarded).
    public var markedCE = PacketCount()
    public init() {}

    public var dropped: PacketCount {
        PacketCount(
            packets: droppedByLoss.packets + droppedByQueue.packets + droppedByOutage.packets,
            bytes: droppedByLoss.bytes + droppedByQueue.bytes + droppedByOutage.bytes)
    }
}

/// What `Link.enqueue` did with a packet (`droppedByQueue` also names the drops a discipline
/// decides later: at dequeue, from the head, from the fattest flow).
public enum LinkVerdict: Sendable, Equatable {
    case accepted
    case droppedByLoss
    case droppedByQueue
    case droppedByOutage
}
