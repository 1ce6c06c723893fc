/// What the queue disciplines need from an IPv4 header, read and written in place by the emulator
/// (the model itself never touches bytes): the flow a packet belongs to and its ECN codepoint;
/// and the rewrite of a packet a discipline marked to CE, its header checksum updated
/// incrementally (RFC 1624).
public enum IPv4Header {
    /// The ECN codepoint: the low 2 bits of the TOS byte (0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE);
    /// 0 for anything that is not an IPv4 header.
    public static func ecn(_ p: UnsafeRawBufferPointer) -> UInt8 {
        guard p.count >= 20, p[0] >> 4 == 4 else { return 0 }
        return p[1] & 0b11
    }

    /// A hash of the 5-tuple: addresses, protocol and, for TCP and UDP (not for a later
    /// fragment), the ports; 0 for anything that is not an IPv4 header.
    public static func flowHash(_ p: UnsafeRawBufferPointer) -> UInt32 {
        guard p.count >= 20, p[0] >> 4 == 4 else { return 0 }
        let ihl = Int(p[0] & 0x0F) * 4
        let proto = p[9]
        let source = read32(p, 12), destination = read32(p, 16)
        var ports: UInt32 = 0
        let fragmentOffset = (UInt16(p[6]) << 8 | UInt16(p[7])) & 0x1FFF
        if (proto == 6 || proto == 17) && fragmentOffset == 0 && ihl >= 20 && p.count >= ihl + 4 {
            ports = read32(p, ihl)
        }
        // Two rounds of the splitmix64 finalizer over the tuple.
        var h = mix(UInt64(source) << 32 | UInt64(destination))
        h = mix(h ^ (UInt64(proto) << 32 | UInt64(ports)))
        return UInt32(truncatingIfNeeded: h >> 32)
    }

    /// Rewrites the ECN field to CE (0b11) and adjusts the header checksum (RFC 1624 eqn. 3,
    /// HC' = ~(~HC + ~m + m'), over the 16-bit word holding version, IHL and TOS). A packet that
    /// is not IPv4, or is already CE, is left alone; false then.
    @discardableResult
    public static func markCE(_ p: UnsafeMutableRawBufferPointer) -> Bool {
        guard p.count >= 20, p[0] >> 4 == 4, p[1] & 0b11 != 0b11 else { return false }
        let old = UInt16(p[0]) << 8 | UInt16(p[1])
        p[1] |= 0b11
        let new = UInt16(p[0]) << 8 | UInt16(p[1])
        var sum = UInt32(~(UInt16(p[10]) << 8 | UInt16(p[11]))) + UInt32(~old) + UInt32(new)
        while sum >> 16 != 0 { sum = (sum & 0xFFFF) + (sum >> 16) }
        let checksum = ~UInt16(sum)
        p[10] = UInt8(checksum >> 8)
        p[11] = UInt8(checksum & 0xFF)
        return true
    }

    /// The header checksum computed from scratch (RFC 791): what `markCE`'s update must equal.
    public static func headerChecksum(_ p: UnsafeRawBufferPointer) -> UInt16 {
        let ihl = Int(p[0] & 0x0F) * 4
        var sum: UInt32 = 0
        var i = 0
        while i + 1 < min(ihl, p.count) {
            if i != 10 { sum += UInt32(p[i]) << 8 | UInt32(p[i + 1]) }
            i += 2
        }
        while sum >> 16 != 0 { sum = (sum & 0xFFFF) + (sum >> 16) }
        return ~UInt16(sum)
    }

    private static func read32(_ p: UnsafeRawBufferPointer, _ o: Int) -> UInt32 {
        UInt32(p[o]) << 24 | UInt32(p[o + 1]) << 16 | UInt32(p[o + 2]) << 8 | UInt32(p[o + 3])
    }

    private static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
