/// The virtio-net header a TUN device opened with `IFF_VNET_HDR` puts before each packet (Linux
/// `struct virtio_net_hdr`, 10 bytes, native byte order on a legacy little-endian TUN): whether
/// the packet is a GSO super-packet, its segment size, and where a checksum left for the device
/// to finish (`NEEDS_CSUM`) starts and is stored.
public struct VirtioNetHeader: Sendable, Equatable {
    public static let size = 10
    /// flags: the checksum from `checksumStart` to the end is left to the device.
    public static let needsChecksum: UInt8 = 1
    /// flags: the checksum is known to be good (the receiver need not verify it).
    public static let dataValid: UInt8 = 2
    public static let gsoNone: UInt8 = 0
    public static let gsoTCPv4: UInt8 = 1
    public static let gsoUDP: UInt8 = 3
    public static let gsoTCPv6: UInt8 = 4
    /// UDP segmentation offload (Linux 6.2; absent from Debian 12's headers): not asked of the TUNs
    /// for reads (`TUN_F_USO4`); the packet loop writes merged datagrams with it (`OffloadWriter`).
    public static let gsoUDPL4: UInt8 = 5
    /// gso_type bit: the super-packet carries CWR, which only its first segment may keep.
    public static let gsoECN: UInt8 = 0x80

    public var flags: UInt8 = 0
    public var gsoType: UInt8 = 0
    public var headerLength: UInt16 = 0
    public var gsoSize: UInt16 = 0
    public var checksumStart: UInt16 = 0
    public var checksumOffset: UInt16 = 0

    public init(flags: UInt8 = 0, gsoType: UInt8 = 0, gsoSize: UInt16 = 0) {
        self.flags = flags
        self.gsoType = gsoType
        self.gsoSize = gsoSize
    }

    public init(_ p: UnsafeRawBufferPointer) {
        precondition(p.count >= Self.size)
        flags = p[0]
        gsoType = p[1]
        headerLength = p.loadUnaligned(fromByteOffset: 2, as: UInt16.self)
        gsoSize = p.loadUnaligned(fromByteOffset: 4, as: UInt16.self)
        checksumStart = p.loadUnaligned(fromByteOffset: 6, as: UInt16.self)
        checksumOffset = p.loadUnaligned(fromByteOffset: 8, as: UInt16.self)
    }

    public func write(to p: UnsafeMutableRawBufferPointer) {
        precondition(p.count >= Self.size)
        p[0] = flags
        p[1] = gsoType
        p.storeBytes(of: headerLength, toByteOffset: 2, as: UInt16.self)
        p.storeBytes(of: gsoSize, toByteOffset: 4, as: UInt16.self)
        p.storeBytes(of: checksumStart, toByteOffset: 6, as: UInt16.self)
        p.storeBytes(of: checksumOffset, toByteOffset: 8, as: UInt16.self)
    }

    /// A TCP/IPv4 super-packet the emulator cuts into segments.
    public var isTCPv4Segmentation: Bool { gsoType & ~Self.gsoECN == Self.gsoTCPv4 }
}

/// Cuts a TCP/IPv4 GSO super-packet into the segments the sender's NIC would have put on the wire
/// (what Linux's `tcp_gso_segment` does in software), so the link model charges each segment its own
/// serialization, queue occupancy, loss, AQM decision and ECN mark, and pcaps and link logs record
/// segments. Each segment: the IP and TCP headers of the super-packet, `segmentSize` bytes of its
/// payload (the last one the rest); IP total length, identification (+1 per segment) and header
/// checksum; TCP sequence number (+ payload offset), FIN and PSH on the last segment only, CWR on the
/// first only; TCP checksum computed in full (pseudo-header included). Pure byte work, no I/O.
public enum TCPSegmentation {
    /// The length of the IP and TCP headers, or nil when `p` is not a TCP/IPv4 packet whose headers fit.
    public static func headerLength(_ p: UnsafeRawBufferPointer) -> Int? {
        guard p.count >= 40, p[0] >> 4 == 4, p[9] == 6 else { return nil }
        let ihl = Int(p[0] & 0x0F) * 4
        guard ihl >= 20, p.count >= ihl + 20 else { return nil }
        let thl = Int(p[ihl + 12] >> 4) * 4
        guard thl >= 20, p.count >= ihl + thl else { return nil }
        return ihl + thl
    }

    /// How many segments `p` makes with that segment size (1 when it is no longer than one).
    public static func segmentCount(_ p: UnsafeRawBufferPointer, segmentSize: Int) -> Int {
        guard let h = headerLength(p), segmentSize > 0 else { return 1 }
        return max(1, (p.count - h + segmentSize - 1) / segmentSize)
    }

    /// Writes segment `index` of the super-packet `p` into `out` and returns its length; nil when `p`
    /// is not TCP/IPv4, the index is past the last segment or `out` is too small. With
    /// `partialChecksum` the TCP checksum field gets only the pseudo-header's sum, as a sender's stack
    /// leaves it for the device (`NEEDS_CSUM`, start at the TCP header, offset 16): whoever writes
    /// the segment then says so in its virtio-net header, or finishes it (`completeChecksum`), and the
    /// payload is not summed here at all (a segment that leaves merged never needs its own).
    public static func writeSegment(
        _ index: Int, of p: UnsafeRawBufferPointer, segmentSize: Int, into out: UnsafeMutableRawBufferPointer,
        partialChecksum: Bool = false
    ) -> Int? {
        guard let h = headerLength(p), segmentSize > 0 else { return nil }
        let payload = p.count - h
        let first = index * segmentSize
        guard index >= 0, first < max(payload, 1) else { return nil }
        let n = min(segmentSize, payload - first)
        guard out.count >= h + n else { return nil }
        let last = first + n >= payload
        out.baseAddress!.copyMemory(from: p.baseAddress!, byteCount: h)
        if n > 0 { (out.baseAddress! + h).copyMemory(from: p.baseAddress! + h + first, byteCount: n) }
        let ihl = Int(p[0] & 0x0F) * 4
        store16(out, 2, UInt16(h + n))
        store16(out, 4, load16(p, 4) &+ UInt16(truncatingIfNeeded: index))
        store16(out, 10, 0)
        store16(out, 10, ~Checksum.fold(Checksum.sum(UnsafeRawBufferPointer(rebasing: out[0..<ihl]))))
        let sequence = load32(p, ihl + 4) &+ UInt32(truncatingIfNeeded: first)
        store32(out, ihl + 4, sequence)
        let fin: UInt8 = 0x01, psh: UInt8 = 0x08, cwr: UInt8 = 0x80
        if !last { out[ihl + 13] &= ~(fin | psh) }
        if index > 0 { out[ihl + 13] &= ~cwr }
        if partialChecksum {
            store16(out, ihl + 16, Checksum.fold(pseudoHeaderSum(out, ipHeaderLength: ihl, length: h + n)))
        } else {
            setTCPChecksum(out, ipHeaderLength: ihl, length: h + n)
        }
        return h + n
    }

    /// Computes the TCP checksum of the IPv4 packet in `p[0..<length]` in full and stores it.
    public static func setTCPChecksum(_ p: UnsafeMutableRawBufferPointer, ipHeaderLength ihl: Int, length: Int) {
        store16(p, ihl + 16, 0)
        let segment = UnsafeRawBufferPointer(rebasing: p[ihl..<length])
        var sum = pseudoHeaderSum(p, ipHeaderLength: ihl, length: length)
        sum += Checksum.sum(segment)
        store16(p, ihl + 16, ~Checksum.fold(sum))
    }

    /// The TCP pseudo-header's sum (unfolded) of the IPv4 packet in `p[0..<length]`.
    @inline(__always)
    static func pseudoHeaderSum(_ p: UnsafeMutableRawBufferPointer, ipHeaderLength ihl: Int, length: Int) -> UInt64 {
        let sum = Checksum.sum(UnsafeRawBufferPointer(rebasing: p[12..<20]))  // source and destination
        return sum + UInt64(6) + UInt64(length - ihl)  // zero, protocol, TCP length
    }

    /// Finishes a checksum a sender left to the device (`NEEDS_CSUM`): the field at `start + offset`
    /// holds the pseudo-header's sum; the ones'-complement sum from `start` to the end goes there.
    /// False when the offsets fall outside the packet.
    @discardableResult
    public static func completeChecksum(_ p: UnsafeMutableRawBufferPointer, start: Int, offset: Int) -> Bool {
        guard start >= 0, offset >= 0, start + offset + 2 <= p.count else { return false }
        let sum = Checksum.sum(UnsafeRawBufferPointer(rebasing: p[start...]))
        var result = ~Checksum.fold(sum)
        // UDP sends a computed 0 as 0xFFFF (0 means "no checksum"); TCP does the same harmlessly.
        if result == 0 { result = 0xFFFF }
        store16(p, start + offset, result)
        return true
    }

    @inline(__always) public static func load16(_ p: UnsafeRawBufferPointer, _ o: Int) -> UInt16 {
        UInt16(p[o]) << 8 | UInt16(p[o + 1])
    }
    @inline(__always) public static func load32(_ p: UnsafeRawBufferPointer, _ o: Int) -> UInt32 {
        UInt32(load16(p, o)) << 16 | UInt32(load16(p, o + 2))
    }
    @inline(__always) public static func store16(_ p: UnsafeMutableRawBufferPointer, _ o: Int, _ v: UInt16) {
        p[o] = UInt8(v >> 8)
        p[o + 1] = UInt8(v & 0xFF)
    }
    @inline(__always) public static func store32(_ p: UnsafeMutableRawBufferPointer, _ o: Int, _ v: UInt32) {
        store16(p, o, UInt16(v >> 16))
        store16(p, o + 2, UInt16(v & 0xFFFF))
    }
}

/// The Internet checksum (RFC 1071): ones'-complement sum of 16-bit big-endian words.
public enum Checksum {
    /// The sum of `p`'s 16-bit big-endian words (a last odd byte padded with zero), unfolded. Adds
    /// 32-bit words in native order and swaps at the end (RFC 1071 §2(B): the sum is byte-order
    /// independent), 8 bytes per step.
    public static func sum(_ p: UnsafeRawBufferPointer) -> UInt64 {
        guard let base = p.baseAddress else { return 0 }
        let n = p.count
        var acc: UInt64 = 0
        var i = 0
        while i + 8 <= n {
            let w = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            acc += (w & 0xFFFF_FFFF) + (w >> 32)
            i += 8
        }
        while i + 2 <= n {
            acc += UInt64(base.loadUnaligned(fromByteOffset: i, as: UInt16.self))
            i += 2
        }
        if i < n {
            // The odd byte is the high byte of a big-endian word: its place in a native word.
            let odd = UInt16(base.load(fromByteOffset: i, as: UInt8.self))
            acc += UInt64(UInt16(bigEndian: odd << 8))
        }
        // Fold to 16 bits in native order, then to big-endian value.
        var s = acc
        while s >> 16 != 0 { s = (s & 0xFFFF) + (s >> 16) }
        return UInt64(UInt16(bigEndian: UInt16(s)))
    }

    /// Folds a sum of 16-bit words to 16 bits (end-around carry).
    public static func fold(_ sum: UInt64) -> UInt16 {
        var s = sum
        while s >> 16 != 0 { s = (s & 0xFFFF) + (s >> 16) }
        return UInt16(s)
    }
}
