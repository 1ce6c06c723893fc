import BenchCore

/// Drop-head: FIFO that, when an arriving packet does not fit, drops from the head (the oldest
/// packets, whose loss the sender learns of soonest) until it does. The limit counts the packet
/// being serialized, which cannot be dropped; if the arrival cannot fit even so, it is refused.
public final class DropHead: QueueDiscipline {
    public let limit: QueueLimit
    private var fifo = PacketFIFO()

    public init(limit: QueueLimit) { self.limit = limit }

    public var backlogPackets: Int { fifo.count }
    public var backlogBytes: Int { fifo.bytes }

    public func enqueue(_ packet: Packet, now: Instant, serving: Int, sink: any DisciplineSink) -> Bool {
        let size = Int(packet.size)
        let servingPackets = serving > 0 ? 1 : 0
        // Would it fit with every droppable packet gone? If not, the arrival itself goes.
        guard limit.admits(size: size, queuedPackets: servingPackets, queuedBytes: serving) else { return false }
        while !limit.admits(size: size, queuedPackets: fifo.count + servingPackets, queuedBytes: fifo.bytes + serving),
            let head = fifo.popFirst()
        {
            sink.discipline(dropped: head, at: now)
        }
        fifo.append(packet)
        return true
    }

    public func dequeue(now: Instant, sink: any DisciplineSink) -> Packet? { fifo.popFirst() }

    public func flush(_ body: (Packet) -> Void) { fifo.flush(body) }
}
