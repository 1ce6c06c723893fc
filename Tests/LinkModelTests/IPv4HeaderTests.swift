import XCTest
import BenchCore
@testable import LinkModel

final class IPv4HeaderTests: XCTestCase {
    /// A 20-byte IPv4 header (+ 4 bytes of ports) with a correct checksum.
    private func header(tos: UInt8, id: UInt16, ttl: UInt8, proto: UInt8 = 6, ports: (UInt16, UInt16) = (443, 50000))
        -> [UInt8]
    {
        var b: [UInt8] = [
            0x45, tos, 0x05, 0xDC, UInt8(id >> 8), UInt8(id & 0xFF), 0x40, 0x00, ttl, proto, 0, 0,
            10, 0, 0, 1, 10, 1, 0, 2, UInt8(ports.0 >> 8), UInt8(ports.0 & 0xFF), UInt8(ports.1 >> 8),
            UInt8(ports.1 & 0xFF),
        ]
        let c = b.withUnsafeBytes { IPv4Header.headerChecksum($0) }
        b[10] = UInt8(c >> 8)
        b[11] = UInt8(c & 0xFF)
        return b
    }

    func testCERewriteMatchesAFullChecksumRecomputation() {
        var rng = SeededRandom(seed: 42)
        var checked = 0
        let codepoints: [UInt8] = [0b01, 0b10, 0xB8 | 0b10, 0xFC | 0b01]
        for tos in codepoints {
            for _ in 0..<2000 {
                let id = UInt16(truncatingIfNeeded: rng.next()), ttl = UInt8(truncatingIfNeeded: rng.next())
                var b = header(tos: tos, id: id, ttl: ttl)
                let marked = b.withUnsafeMutableBytes { IPv4Header.markCE($0) }
                XCTAssertTrue(marked)
                XCTAssertEqual(b[1] & 0b11, 0b11)
                XCTAssertEqual(b[1] >> 2, tos >> 2, "DSCP kept")
                let stored = UInt16(b[10]) << 8 | UInt16(b[11])
                XCTAssertEqual(stored, b.withUnsafeBytes { IPv4Header.headerChecksum($0) })
                checked += 1
            }
        }
        XCTAssertEqual(checked, 8000)
        // Already CE, or Not-ECT handed in by mistake: CE is left alone, a non-IPv4 buffer too.
        var ce = header(tos: 0b11, id: 1, ttl: 64)
        XCTAssertFalse(ce.withUnsafeMutableBytes { IPv4Header.markCE($0) })
        var v6 = header(tos: 0b10, id: 1, ttl: 64)
        v6[0] = 0x60
        XCTAssertFalse(v6.withUnsafeMutableBytes { IPv4Header.markCE($0) })
    }

    func testECNAndFlowHashReadTheHeader() {
        let cases: [(UInt8, UInt8)] = [(0, 0), (0b01, 1), (0b10, 2), (0b11, 3), (0xB8, 0)]
        for (tos, ecn) in cases {
            XCTAssertEqual(header(tos: tos, id: 1, ttl: 64).withUnsafeBytes { IPv4Header.ecn($0) }, ecn)
        }
        func hash(_ b: [UInt8]) -> UInt32 { b.withUnsafeBytes { IPv4Header.flowHash($0) } }
        let a = header(tos: 0, id: 1, ttl: 64)
        // The same 5-tuple hashes alike whatever else differs; another port or protocol does not.
        XCTAssertEqual(hash(a), hash(header(tos: 0b10, id: 999, ttl: 3)))
        XCTAssertNotEqual(hash(a), hash(header(tos: 0, id: 1, ttl: 64, ports: (443, 50001))))
        XCTAssertNotEqual(hash(a), hash(header(tos: 0, id: 1, ttl: 64, proto: 17)))
        // 64 flows differing only in the client port spread over FQ-CoDel's 1024 buckets.
        let fq = FQCoDel(FQCoDelParameters())
        let buckets = Set(
            (0..<64).map { i in
                fq.flowIndex(ofHash: hash(header(tos: 0, id: 1, ttl: 64, ports: (443, 40000 + UInt16(i)))))
            })
        XCTAssertGreaterThan(buckets.count, 60)
    }
}
