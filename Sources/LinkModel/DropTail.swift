import BenchCore

/// Drop-tail: FIFO, the arriving packet is dropped when it does not fit. The limit counts the
/// packet being serialized too (a packet holds its place until its serialization ends).
public final class DropTail: QueueDiscipline {
    public let limit: QueueLimit
    private var fifo = PacketFIFO()

    public init(limit: QueueLimit) { self.limit = limit }

    public var backlogPackets: Int { fifo.count }
    public var backlogBytes: Int { fifo.bytes }

    public func enqueue(_ packet: Packet, now: Instant, serving: Int, sink: any DisciplineSink) -> Bool {
        let held = fifo.count + (serving > 0 ? 1 : 0)
        guard limit.admits(size: Int(packet.size), queuedPackets: held, queuedBytes: fifo.bytes + serving) else {
            return false
        }
        fifo.append(packet)
        return true
    }

    public func dequeue(now: Instant, sink: any DisciplineSink) -> Packet? { fifo.popFirst() }

    public func flush(_ body: (Packet) -> Void) { fifo.flush(body) }
}
