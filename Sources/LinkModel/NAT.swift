/// NAT rebinding on one client path: from a rebinding event on, the client's packets leave with a
/// new source port (or address) and the answers are mapped back, so the client never learns of it —
/// as with a real NAT whose mapping times out. A TCP server then sees an unknown 4-tuple and
/// answers RST; a QUIC server sees a new peer address and validates it.
///
/// Mapping: ports are ephemeral (≥ 32768) on the client, so `port ^ portXor` with the top bit set in
/// `portXor` lands below 32768 and never collides with a real client port; each further port
/// rebinding uses another of 8 masks. An address rebinding moves the client to `address + n` in
/// its /24 (the emulator routes the whole /24 to the path). Checksums are updated incrementally
/// (RFC 1624).
public struct NATState: Sendable, Equatable {
    public private(set) var portXor: UInt16 = 0
    public private(set) var addressDelta: UInt32 = 0
    private var portRebinds: UInt16 = 0

    public init() {}

    public var isActive: Bool { portXor != 0 || addressDelta != 0 }

    public mutating func rebindPort() {
        portRebinds += 1
        portXor = 0x8000 | ((portRebinds - 1) << 12 & 0x7000) | 0x0001
    }

    public mutating func rebindAddress() { addressDelta += 1 }

    /// Rewrites a packet from the client (uplink): source address and port.
    public func rewriteOutbound(_ packet: UnsafeMutableRawBufferPointer) {
        guard isActive else { return }
        rewrite(packet, addressOffset: 12, portOffset: 0) { addr, port in (addr &+ addressDelta, port ^ portXor) }
    }

    /// Rewrites a packet to the client (downlink): destination address and port back.
    public func rewriteInbound(_ packet: UnsafeMutableRawBufferPointer) {
        guard isActive else { return }
        rewrite(packet, addressOffset: 16, portOffset: 2) { addr, port in (addr &- addressDelta, port ^ portXor) }
    }

    private func rewrite(
        _ p: UnsafeMutableRawBufferPointer, addressOffset: Int, portOffset: Int,
        _ map: (UInt32, UInt16) -> (UInt32, UInt16)
    ) {
        guard p.count >= 20, p[0] >> 4 == 4 else { return }
        let ihl = Int(p[0] & 0x0F) * 4
        let proto = p[9]
        let fragmentOffset = (UInt16(p[6]) << 8 | UInt16(p[7])) & 0x1FFF
        let oldAddr = NATState.read32(p, addressOffset)
        var oldPort: UInt16 = 0
        let hasPorts = (proto == 6 || proto == 17) && fragmentOffset == 0 && p.count >= ihl + 8
        if hasPorts { oldPort = NATState.read16(p, ihl + portOffset) }
        let (newAddr, newPort) = map(oldAddr, oldPort)
        // IPv4 header checksum (bytes 10-11).
        NATState.write32(p, addressOffset, newAddr)
        NATState.adjust(
            p, at: 10, old: [UInt16(oldAddr >> 16), UInt16(oldAddr & 0xFFFF)],
            new: [UInt16(newAddr >> 16), UInt16(newAddr & 0xFFFF)])
        guard hasPorts else { return }
        NATState.write16(p, ihl + portOffset, newPort)
        // The transport checksum covers the pseudo-header (addresses) and the ports.
        let checksumAt = ihl + (proto == 6 ? 16 : 6)
        guard p.count >= checksumAt + 2 else { return }
        if proto == 17 && NATState.read16(p, checksumAt) == 0 { return }  // UDP without checksum
        NATState.adjust(
            p, at: checksumAt, old: [UInt16(oldAddr >> 16), UInt16(oldAddr & 0xFFFF), oldPort],
            new: [UInt16(newAddr >> 16), UInt16(newAddr & 0xFFFF), newPort], udp: proto == 17)
    }

    /// RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') over each changed 16-bit word.
    static func adjust(
        _ p: UnsafeMutableRawBufferPointer, at offset: Int, old: [UInt16], new: [UInt16], udp: Bool = false
    ) {
        var sum = UInt32(~read16(p, offset))
        for (o, n) in zip(old, new) { sum += UInt32(~o) + UInt32(n) }
        while sum >> 16 != 0 { sum = (sum & 0xFFFF) + (sum >> 16) }
        var result = ~UInt16(sum)
        if udp && result == 0 { result = 0xFFFF }
        write16(p, offset, result)
    }

    static func read16(_ p: UnsafeMutableRawBufferPointer, _ o: Int) -> UInt16 { UInt16(p[o]) << 8 | UInt16(p[o + 1]) }
    static func read32(_ p: UnsafeMutableRawBufferPointer, _ o: Int) -> UInt32 {
        UInt32(read16(p, o)) << 16 | UInt32(read16(p, o + 2))
    }
    static func write16(_ p: UnsafeMutableRawBufferPointer, _ o: Int, _ v: UInt16) {
        p[o] = UInt8(v >> 8); p[o + 1] = UInt8(v & 0xFF)
    }
    static func write32(_ p: UnsafeMutableRawBufferPointer, _ o: Int, _ v: UInt32) {
        write16(p, o, UInt16(v >> 16)); write16(p, o + 2, UInt16(v & 0xFFFF))
    }
}
