import XCTest
import BenchCore
import TLS

/// TLS record sizing: the policy's parsing, the dynamic sizer's decisions (in virtual time), and
/// the records the TLS engine actually emits for a requested size.
final class RecordSizingTests: XCTestCase {
    func testPolicyParsing() {
        XCTAssertEqual(TLSRecordPolicy("dynamic"), .dynamic)
        XCTAssertEqual(TLSRecordPolicy("16k"), .fixed(16_384))
        XCTAssertEqual(TLSRecordPolicy("16K"), .fixed(16_384))
        XCTAssertEqual(TLSRecordPolicy("4KiB"), .fixed(4_096))
        XCTAssertEqual(TLSRecordPolicy("1400"), .fixed(1_400))
        XCTAssertEqual(TLSRecordPolicy("16KB"), .fixed(16_000))
        for bad in ["", "fast", "100", "511", "32KiB", "16385", "-1"] {
            XCTAssertNil(TLSRecordPolicy(bad), bad)
        }
        for p in [TLSRecordPolicy.dynamic, .fixed(16_384), .fixed(1_400)] {
            XCTAssertEqual(TLSRecordPolicy(p.description), p, "what results record reads back")
        }
        XCTAssertTrue(TLSRecordPolicy.dynamic.endsRecordAfterHeaders)
        XCTAssertFalse(TLSRecordPolicy.fixed(16_384).endsRecordAfterHeaders)
    }

    func testDynamicSizerStartsSmallBoostsAfterOneMegabyteAndResetsWhenIdle() {
        let small = TLSRecordSizer.onePacketPlaintext, full = TLSRecordPolicy.maxPlaintext
        var sizer = TLSRecordSizer(policy: .dynamic)
        var now = Instant(nanoseconds: 5_000_000_000)
        XCTAssertEqual(sizer.recordSize(at: now), small, "a new connection starts with one-packet records")
        sizer.sent(999_999, at: now)
        XCTAssertEqual(sizer.recordSize(at: now), small)
        now = now + .milliseconds(10)
        sizer.sent(1, at: now)
        XCTAssertEqual(sizer.recordSize(at: now), full, "full records once 1 MB has gone out")
        now = now + .milliseconds(999)
        XCTAssertEqual(sizer.recordSize(at: now), full, "a pause under a second keeps full records")
        sizer.sent(100, at: now)
        now = now + .seconds(1)
        XCTAssertEqual(sizer.recordSize(at: now), small, "an idle second returns to one-packet records")
        sizer.sent(5_000, at: now)
        XCTAssertEqual(sizer.bytesSinceReset, 5_000, "the count starts again after the idle spell")
        XCTAssertEqual(sizer.recordSize(at: now + .milliseconds(1)), small)
    }

    func testFixedSizerNeverChanges() {
        var sizer = TLSRecordSizer(policy: .fixed(4_096))
        let t0 = Instant(nanoseconds: 1)
        XCTAssertEqual(sizer.recordSize(at: t0), 4_096)
        sizer.sent(10_000_000, at: t0)
        XCTAssertEqual(sizer.recordSize(at: t0 + .seconds(5)), 4_096)
    }

    /// The one-packet record fits a 1500-byte MTU with IPv4 + TCP timestamps under the largest overhead.
    func testOnePacketRecordFitsOneSegment() {
        XCTAssertLessThanOrEqual(TLSRecordSizer.onePacketPlaintext + 29, 1500 - 20 - 32)
    }

    /// Records on the wire: each carries at most `recordSize` bytes, and every write ends one.
    func testEngineEmitsRecordsOfTheRequestedSize() throws {
        for version in [TLSVersion.tls13, .tls12] {
            let pair = try InMemoryPair(
                client: clientContext(), server: serverContext { $0.force(version) }, serverName: "origin.test")
            try pair.handshake()
            let payload = patternBytes(count: 40_000, seed: 7)
            let taken = try payload.withUnsafeBytes { try pair.server.writePlaintext($0, recordSize: 1_419) }
            XCTAssertEqual(taken, payload.count)
            let small = try recordLengths(pair.server.takeCiphertext(max: .max))
            XCTAssertEqual(small.count, 29, "\(version): ⌈40000 / 1419⌉ records")
            let overhead = small[0] - 1_419
            XCTAssertTrue(
                version == .tls13 ? overhead == 17 : (overhead == 24 || overhead == 16),
                "\(version): overhead \(overhead)")
            XCTAssertEqual(Set(small.dropLast()), [1_419 + overhead])
            XCTAssertEqual(small.last, 40_000 - 28 * 1_419 + overhead)

            // Two writes of 100 and 40,000 bytes at the default size: the first write's record ends with it.
            _ = try payload.withUnsafeBytes {
                try pair.server.writePlaintext(UnsafeRawBufferPointer(rebasing: $0[0..<100]))
            }
            _ = try payload.withUnsafeBytes { try pair.server.writePlaintext($0) }
            let full = try recordLengths(pair.server.takeCiphertext(max: .max))
            XCTAssertEqual(full, [100, 16_384, 16_384, 40_000 - 2 * 16_384].map { $0 + overhead }, "\(version)")
        }
    }

    /// Lengths of the ciphertext records (TLS record header: type, version, 16-bit length).
    private func recordLengths(_ bytes: [UInt8]) throws -> [Int] {
        var lengths: [Int] = [], i = 0
        while i < bytes.count {
            guard i + 5 <= bytes.count else { XCTFail("truncated record header"); break }
            XCTAssertEqual(bytes[i], 23, "application data record")
            let n = Int(bytes[i + 3]) << 8 | Int(bytes[i + 4])
            lengths.append(n)
            i += 5 + n
        }
        XCTAssertEqual(i, bytes.count, "ciphertext ends with a whole record")
        return lengths
    }
}
