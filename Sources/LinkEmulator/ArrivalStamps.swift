import BenchCore

/// Pairs the packets the loop reads from a TUN with the copies a `PacketTap` took of them as the
/// host sent them into the device, so that a packet's arrival is the kernel's time of sending, not
/// the time the loop got round to reading it (pure: the loop feeds it; tests run it alone).
///
/// Both see the same packets in the same order: the kernel hands each packet to the taps and then
/// to the TUN's queue, in one call. A packet the TUN then drops (its queue full) leaves a copy with
/// no read to match, and a copy the tap's socket could not hold leaves a read with no copy. So a
/// read is matched with the first waiting copy of the same first bytes (the tap keeps
/// `PacketTap.snapLength`; they hold the IPv4 header's total length, identification and checksum
/// and the transport header, so two packets alike in all of them are interchangeable); copies
/// before it are discarded as dropped; a read with no matching copy keeps its read time
/// (`unmatched`), and the copies stay for the reads that follow.
public struct ArrivalStamps: Sendable {
    struct Copy: Sendable {
        var length: Int
        var fingerprint: UInt64
        var sent: Instant
    }

    /// The most copies held (the oldest go first past it).
    public let capacity: Int
    private var copies: [Copy] = []
    private var head = 0
    public private(set) var matched: Int64 = 0
    public private(set) var unmatched: Int64 = 0
    /// Copies discarded: their packet was never read (dropped by the TUN), or they overflowed.
    public private(set) var discarded: Int64 = 0

    public init(capacity: Int = 4096) {
        self.capacity = capacity
        copies.reserveCapacity(capacity)
    }

    /// Copies waiting for their read.
    public var waiting: Int { copies.count - head }

    /// FNV-1a over the first `PacketTap.snapLength` bytes (or fewer when the packet is shorter):
    /// the IPv4 header's identification and checksum and the transport header tell packets apart.
    @inline(__always)
    public static func fingerprint(_ bytes: UnsafeRawBufferPointer, limit: Int = 64) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for i in 0..<min(bytes.count, limit) {
            h = (h ^ UInt64(bytes[i])) &* 0x0000_0100_0000_01b3
        }
        return h
    }

    /// A copy the tap delivered: how many bytes it kept, their fingerprint and when the kernel sent
    /// the packet.
    public mutating func add(length: Int, fingerprint: UInt64, sent: Instant) {
        if waiting >= capacity {
            head += 1
            discarded += 1
        }
        if head > 0, head == copies.count || head >= 1024 {
            copies.removeFirst(head)
            head = 0
        }
        copies.append(Copy(length: length, fingerprint: fingerprint, sent: sent))
    }

    /// The kernel's send time of a packet just read (the length and fingerprint of its first
    /// `PacketTap.snapLength` bytes), or nil when no waiting copy matches.
    public mutating func match(length: Int, fingerprint: UInt64) -> Instant? {
        if let sent = matchWaiting(length: length, fingerprint: fingerprint) { return sent }
        unmatched += 1
        return nil
    }

    /// `match` without counting a miss: for an owner that will fetch more copies and ask again.
    public mutating func matchWaiting(length: Int, fingerprint: UInt64) -> Instant? {
        var i = head
        while i < copies.count {
            if copies[i].length == length && copies[i].fingerprint == fingerprint {
                discarded += Int64(i - head)
                head = i + 1
                matched += 1
                return copies[i].sent
            }
            i += 1
        }
        return nil
    }
}
