import XCTest
@testable import TLS

/// The byte queue under each TLS connection's ciphertext BIOs: bytes come out in order, once,
/// across compaction and growth; an empty queue gives nothing (OpenSSL is told to retry).
final class ByteQueueBIOTests: XCTestCase {
    func bytes(_ q: ByteQueueBIO.Queue, _ max: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: max)
        let n = out.withUnsafeMutableBytes { q.take(into: $0.baseAddress!, max) }
        return Array(out[0..<n])
    }

    func put(_ q: ByteQueueBIO.Queue, _ b: [UInt8]) { b.withUnsafeBytes { q.append($0.baseAddress!, b.count) } }

    func testBytesComeOutInOrderAcrossCompactionAndGrowth() {
        let q = ByteQueueBIO.Queue(capacity: 8)
        put(q, [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(bytes(q, 4), [1, 2, 3, 4])
        XCTAssertEqual(q.count, 2)
        put(q, [7, 8, 9, 10, 11])  // does not fit behind: the two left move to the front
        XCTAssertEqual(q.capacity, 8)
        XCTAssertEqual(q.start, 0)
        XCTAssertEqual(q.count, 7)
        put(q, Array(12...40))  // grows by doubling until it fits
        XCTAssertEqual(q.capacity, 64)
        XCTAssertEqual(bytes(q, 100), [5, 6] + Array(7...40))
        XCTAssertEqual(q.count, 0)
        XCTAssertEqual(bytes(q, 10), [], "an empty queue gives nothing")
        XCTAssertEqual(q.end, 0, "an emptied queue starts again at the front")
    }

    /// Through OpenSSL's BIO calls, as SSL uses it: pending counts, an empty read fails with the retry flag.
    func testTheBIOAsOpenSSLSeesIt() throws {
        let c = try ByteQueueBIO.probe([9, 8, 7])
        XCTAssertEqual(c.pendingAfterWrite, 3)
        XCTAssertEqual(c.read, [9, 8, 7])
        XCTAssertEqual(c.pendingAfterRead, 0)
        XCTAssertTrue(c.emptyReadFailedWithRetry)
    }
}
