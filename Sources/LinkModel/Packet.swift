import BenchCore

/// A packet as the link model sees it: a handle to the emulator's buffer, a size and the times
/// the stages stamp on it. The model never touches the bytes.
public struct Packet: Sendable, Equatable {
    /// The owner's reference to the packet's bytes (the emulator's buffer-pool index).
    public var handle: Int32
    /// Size on the wire in bytes (the whole IP packet).
    public var size: Int32
    public var arrival: Instant
    /// When the packet leaves the bottleneck queue (set by the rate stage).
    public var departure: Instant
    /// When the packet leaves the link (set by the delay stage).
    public var release: Instant
    /// Arrival order on its link direction, from 1 (set by `Link.enqueue`; 0 until then).
    public var sequence: Int64 = 0
    /// A hash of the 5-tuple (IPv4 addresses, protocol, TCP/UDP ports), filled by the emulator
    /// from the header: what flow-queueing disciplines classify on. 0 when unknown.
    public var flowHash: UInt32 = 0
    /// The ECN codepoint of the IP header (low 2 bits of the TOS byte): 0 Not-ECT, 1 ECT(1),
    /// 2 ECT(0), 3 CE.
    public var ecn: UInt8 = 0
    /// Set by a discipline that marked the packet Congestion Experienced: the emulator rewrites
    /// its ECN field to CE when it releases it.
    public var ceMarked = false

    public init(handle: Int32, size: Int, arrival: Instant, flowHash: UInt32 = 0, ecn: UInt8 = 0) {
        self.handle = handle
        self.flowHash = flowHash
        self.ecn = ecn & 0b11
        self.size = Int32(clamping: size)
        self.arrival = arrival
        self.departure = arrival
        self.release = arrival
    }
}

/// A FIFO of packets in a power-of-two ring that grows by doubling (rarely: the capacity settles
/// at the link's largest backlog), so the steady state allocates nothing per packet.
public struct PacketRing: Sendable {
    private var slots: ContiguousArray<Packet>
    private var head = 0
    public private(set) var count = 0

    public init(capacity: Int = 256) {
        var c = 1
        while c < max(2, capacity) { c <<= 1 }
        slots = ContiguousArray(repeating: Packet(handle: -1, size: 0, arrival: Instant(nanoseconds: 0)), count: c)
    }

    public var isEmpty: Bool { count == 0 }
    public var first: Packet? { count == 0 ? nil : slots[head] }

    public mutating func append(_ p: Packet) {
        if count == slots.count { grow() }
        slots[(head + count) & (slots.count - 1)] = p
        count += 1
    }

    public mutating func popFirst() -> Packet? {
        guard count > 0 else { return nil }
        let p = slots[head]
        head = (head + 1) & (slots.count - 1)
        count -= 1
        return p
    }

    private mutating func grow() {
        var bigger = ContiguousArray(repeating: slots[0], count: slots.count * 2)
        for i in 0..<count { bigger[i] = slots[(head + i) & (slots.count - 1)] }
        slots = bigger
        head = 0
    }
}
