import XCTest
@testable import LinkModel

/// The NAT rewrites addresses and ports with incrementally updated checksums; every checksum it
/// leaves must equal one computed from scratch, and the answer path must undo the mapping.
final class NATTests: XCTestCase {
    /// An IPv4 packet (no options) with a UDP or TCP header and payload, checksums computed in full.
    func packet(proto: UInt8, src: UInt32, dst: UInt32, sport: UInt16, dport: UInt16, payload: [UInt8]) -> [UInt8] {
        let l4 = proto == 6 ? 20 : 8
        var p = [UInt8](repeating: 0, count: 20 + l4 + payload.count)
        p[0] = 0x45; p[8] = 64; p[9] = proto
        put16(&p, 2, UInt16(p.count))
        put32(&p, 12, src); put32(&p, 16, dst)
        put16(&p, 20, sport); put16(&p, 22, dport)
        if proto == 6 {
            p[32] = 0x50; p[33] = 0x18; put16(&p, 34, 65535)
        } else {
            put16(&p, 24, UInt16(8 + payload.count))
        }
        p.replaceSubrange((20 + l4)..., with: payload)
        put16(&p, 10, checksum(Array(p[0..<20])))
        put16(&p, proto == 6 ? 36 : 26, transportChecksum(p))
        return p
    }

    func put16(_ p: inout [UInt8], _ o: Int, _ v: UInt16) { p[o] = UInt8(v >> 8); p[o + 1] = UInt8(v & 0xFF) }
    func put32(_ p: inout [UInt8], _ o: Int, _ v: UInt32) {
        put16(&p, o, UInt16(v >> 16)); put16(&p, o + 2, UInt16(v & 0xFFFF))
    }
    func get16(_ p: [UInt8], _ o: Int) -> UInt16 { UInt16(p[o]) << 8 | UInt16(p[o + 1]) }
    func get32(_ p: [UInt8], _ o: Int) -> UInt32 { UInt32(get16(p, o)) << 16 | UInt32(get16(p, o + 2)) }

    /// The Internet checksum (RFC 1071).
    func checksum(_ bytes: [UInt8]) -> UInt16 {
        var sum: UInt32 = 0
        var i = 0
        while i + 1 < bytes.count { sum += UInt32(bytes[i]) << 8 | UInt32(bytes[i + 1]); i += 2 }
        if i < bytes.count { sum += UInt32(bytes[i]) << 8 }
        while sum >> 16 != 0 { sum = (sum & 0xFFFF) + (sum >> 16) }
        return ~UInt16(sum)
    }

    /// UDP/TCP checksum over the pseudo-header and the segment, with the checksum field zeroed.
    func transportChecksum(_ p: [UInt8]) -> UInt16 {
        let proto = p[9]
        var seg = Array(p[20...])
        let at = proto == 6 ? 16 : 6
        seg[at] = 0; seg[at + 1] = 0
        var pseudo = Array(p[12..<20]) + [0, proto]
        pseudo += [UInt8(seg.count >> 8), UInt8(seg.count & 0xFF)]
        let c = checksum(pseudo + seg)
        return proto == 17 && c == 0 ? 0xFFFF : c
    }

    func assertChecksumsValid(_ p: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(
            get16(p, 10), checksum(Array(p[0..<10]) + [0, 0] + Array(p[12..<20])), "IPv4 header checksum", file: file,
            line: line)
        XCTAssertEqual(
            get16(p, p[9] == 6 ? 36 : 26), transportChecksum(p), "transport checksum", file: file, line: line)
    }

    func rewritten(_ p: [UInt8], _ f: (UnsafeMutableRawBufferPointer) -> Void) -> [UInt8] {
        var q = p
        q.withUnsafeMutableBytes { f($0) }
        return q
    }

    let client: UInt32 = 0xC612_0102  // 198.18.1.2
    let server: UInt32 = 0xC612_0001  // 198.18.0.1

    func testInactiveNATChangesNothing() {
        let nat = NATState()
        let p = packet(proto: 17, src: client, dst: server, sport: 40001, dport: 443, payload: Array("hello".utf8))
        XCTAssertEqual(rewritten(p) { nat.rewriteOutbound($0) }, p)
    }

    func testPortRebindingRewritesSourcePortWithValidChecksumsAndMapsAnswersBack() {
        for proto in [UInt8(17), 6] {
            var nat = NATState()
            nat.rebindPort()
            let out = packet(
                proto: proto, src: client, dst: server, sport: 40001, dport: 443, payload: (0..<101).map { UInt8($0) })
            let sent = rewritten(out) { nat.rewriteOutbound($0) }
            let newPort = get16(sent, 20)
            XCTAssertNotEqual(newPort, 40001)
            XCTAssertLessThan(newPort, 32768, "mapped ports never collide with the client's ephemeral ones")
            XCTAssertEqual(get32(sent, 12), client, "address unchanged")
            assertChecksumsValid(sent)
            // The server answers the new port; the NAT maps it back.
            let answer = packet(
                proto: proto, src: server, dst: client, sport: 443, dport: newPort, payload: Array("ok".utf8))
            let delivered = rewritten(answer) { nat.rewriteInbound($0) }
            XCTAssertEqual(get16(delivered, 22), 40001)
            assertChecksumsValid(delivered)
        }
    }

    func testAddressRebindingMovesTheClientWithinItsSlash24() {
        var nat = NATState()
        nat.rebindAddress()
        let out = packet(proto: 6, src: client, dst: server, sport: 50000, dport: 443, payload: [1, 2, 3])
        let sent = rewritten(out) { nat.rewriteOutbound($0) }
        XCTAssertEqual(get32(sent, 12), client + 1)
        XCTAssertEqual(get16(sent, 20), 50000, "port unchanged")
        assertChecksumsValid(sent)
        let answer = packet(proto: 6, src: server, dst: client + 1, sport: 443, dport: 50000, payload: [])
        let delivered = rewritten(answer) { nat.rewriteInbound($0) }
        XCTAssertEqual(get32(delivered, 16), client)
        assertChecksumsValid(delivered)
    }

    func testSecondPortRebindingGivesAnotherMapping() {
        var nat = NATState()
        nat.rebindPort()
        let first = nat.portXor
        nat.rebindPort()
        XCTAssertNotEqual(nat.portXor, first)
        XCTAssertNotEqual(nat.portXor, 0)
    }

    func testUDPWithoutChecksumKeepsNone() {
        var nat = NATState()
        nat.rebindPort()
        var p = packet(proto: 17, src: client, dst: server, sport: 40001, dport: 443, payload: [9, 9])
        put16(&p, 26, 0)
        let sent = rewritten(p) { nat.rewriteOutbound($0) }
        XCTAssertEqual(get16(sent, 26), 0)
    }
}
