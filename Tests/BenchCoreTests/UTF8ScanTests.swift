import BenchCore
import XCTest

/// The byte scans the servers use per request agree with the generic UTF-8 view's.
final class UTF8ScanTests: XCTestCase {
    func testScansAgreeWithTheUTF8View() {
        let strings = [
            "", "127.0.0.1", "127.0.0.1:8443", "Example.TEST", "/a?b=1#c", "ünïcödé:x",
            String(repeating: "ab", count: 40),
        ]
        for s in strings {
            for byte in [UInt8(ascii: ":"), UInt8(ascii: "?"), UInt8(ascii: "x"), 0xBC] {
                let expected = s.utf8.firstIndex(of: byte).map { s.utf8.distance(from: s.utf8.startIndex, to: $0) }
                XCTAssertEqual(s.utf8Offset(of: byte), expected, "\(s) \(byte)")
                XCTAssertEqual(s.utf8Contains { $0 == byte }, expected != nil, "\(s) \(byte)")
            }
            XCTAssertEqual(s.utf8Contains { $0 >= 0x41 && $0 <= 0x5A }, s.utf8.contains { $0 >= 0x41 && $0 <= 0x5A }, s)
        }
        XCTAssertEqual("127.0.0.1:8443".utf8Offset(of: UInt8(ascii: ":")), 9)
    }
}
