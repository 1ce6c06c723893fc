import BenchCore

/// Which packet the bottleneck serializes next, and which it drops or marks on the way: the
/// queue discipline, one per file (drop-tail, drop-head, CoDel, FQ-CoDel, PIE), separate from the
/// server (`LinkServer`: a constant rate or a trace's opportunities) that decides when.
///
/// The bottleneck offers each admitted packet with `enqueue` and asks for the next one with
/// `dequeue` at the instant the server becomes free, so a packet's sojourn is known when it is
/// taken. Time is always passed in: no discipline reads a clock. Packets a discipline drops other
/// than the one it refuses on `enqueue` go to the sink (the link counts, observes and recycles them);
/// a packet it marks leaves with `ceMarked` set and is reported to the sink too.
public protocol QueueDiscipline: AnyObject {
    /// Packets and bytes held (not counting the one being serialized).
    var backlogPackets: Int { get }
    var backlogBytes: Int { get }
    /// Offers `packet` at `now`; `serving` is the packet the server holds (0 bytes when idle).
    /// false: the discipline refuses the arriving packet (the link drops it).
    func enqueue(_ packet: Packet, now: Instant, serving: Int, sink: any DisciplineSink) -> Bool
    /// The next packet to serialize, taken at `now` (the server's free instant), or nil when empty.
    func dequeue(now: Instant, sink: any DisciplineSink) -> Packet?
    /// Hands every held packet to `body` and forgets them (the interface went down).
    func flush(_ body: (Packet) -> Void)
}

/// Where a discipline reports what it did besides forwarding.
public protocol DisciplineSink: AnyObject {
    /// A packet dropped after its admission (at dequeue, from the head, from the fattest flow).
    func discipline(dropped packet: Packet, at: Instant)
    /// A packet marked CE (it continues with `ceMarked` set).
    func discipline(marked packet: Packet, at: Instant)
}

extension Packet {
    /// RFC 3168: ECT(0), ECT(1) or CE; a discipline with ECN on marks these instead of dropping.
    public var isECNCapable: Bool { ecn & 0b11 != 0 }

    /// Sets CE if the packet is ECN-capable (as Linux's INET_ECN_set_ce); false for Not-ECT.
    mutating func markCE() -> Bool {
        guard isECNCapable else { return false }
        ceMarked = true
        return true
    }
}

/// A fixed-capacity FIFO of packets with its byte count: the per-queue state every discipline keeps.
struct PacketFIFO: Sendable {
    private(set) var ring = PacketRing()
    private(set) var bytes = 0
    var count: Int { ring.count }
    var isEmpty: Bool { ring.isEmpty }
    var first: Packet? { ring.first }

    mutating func append(_ p: Packet) {
        ring.append(p)
        bytes += Int(p.size)
    }

    mutating func popFirst() -> Packet? {
        guard let p = ring.popFirst() else { return nil }
        bytes -= Int(p.size)
        return p
    }

    mutating func flush(_ body: (Packet) -> Void) {
        while let p = popFirst() { body(p) }
    }
}
