/// RFC 1071 done the slow, obvious way (big-endian 16-bit words, end-around carry): the reference the
/// link model's checksums and the emulator's captured segments are checked against.
public enum ReferenceChecksum {
    public static func sum(_ bytes: [UInt8]) -> UInt16 {
        var sum: UInt32 = 0
        var i = 0
        while i < bytes.count {
            sum += UInt32(bytes[i]) << 8 | (i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0)
            i += 2
        }
        while sum >> 16 != 0 { sum = (sum & 0xFFFF) + (sum >> 16) }
        return UInt16(sum)
    }
}
