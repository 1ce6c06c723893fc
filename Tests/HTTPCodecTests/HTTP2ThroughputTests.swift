import HTTPCodec
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// Measures, prints, asserts only correctness: the number depends on the machine and the
/// build (run `swift test -c release --filter HTTP2ThroughputTests` for the optimised figure).
final class HTTP2ThroughputTests: XCTestCase {
    func testInMemoryThroughputOf100MBResponse() throws {
        let size: Int64 = 100_000_000
        let client = try HTTP2Connection(role: .client)
        let server = try HTTP2Connection(role: .server)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }

        var received = 0
        var done = false
        let start = monotonicSeconds()
        _ = try client.submitRequest(authority: "bench", path: "/100MB")
        while !done {
            let up = try client.takeOutbound(into: buffer)
            for event in try server.receive(UnsafeRawBufferPointer(rebasing: buffer[0..<up])) {
                if case let .request(stream, _, _) = event {
                    try server.submitResponse(stream: stream, status: 200, bodyLength: size)
                }
            }
            let down = try server.takeOutbound(into: buffer)
            for event in try client.receive(UnsafeRawBufferPointer(rebasing: buffer[0..<down])) {
                if case let .data(_, count, endStream) = event {
                    received += count
                    done = done || endStream
                }
            }
            if up == 0 && down == 0 && !client.wantsWrite && !server.wantsWrite { break }
        }
        let seconds = monotonicSeconds() - start
        XCTAssertTrue(done)
        XCTAssertEqual(Int64(received), size)
        let rate = Double(size) / seconds / 1e6
        print(
            "HTTP/2 in memory, one 100 MB response: \(String(format: "%.3f", seconds)) s, "
                + "\(String(format: "%.0f", rate)) MB/s"
        )
    }

    /// What NGHTTP2_DATA_FLAG_NO_COPY could save: the codec copies each DATA frame once more
    /// than strictly needed (nghttp2's frame buffer → the caller's buffer). Prints the cost of
    /// generating and of copying 100 MB in 16 KiB frames.
    func testCostOfTheExtraCopy() {
        let frame = 16_384, frames = 100_000_000 / frame
        let source = UnsafeMutableRawBufferPointer.allocate(byteCount: frame, alignment: 16)
        let destination = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { source.deallocate(); destination.deallocate() }
        var start = monotonicSeconds()
        for i in 0..<frames { BodyFiller.fill(source, offset: Int64(i * frame)) }
        let fill = monotonicSeconds() - start
        start = monotonicSeconds()
        for i in 0..<frames {
            (destination.baseAddress! + (i % 16) * frame).copyMemory(from: source.baseAddress!, byteCount: frame)
        }
        let copy = monotonicSeconds() - start
        XCTAssertEqual(destination[0], source[0])
        print(
            "100 MB in 16 KiB frames: generating \(String(format: "%.1f", fill * 1000)) ms, "
                + "copying \(String(format: "%.1f", copy * 1000)) ms")
    }

    private func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
