import BenchCore
import QUIC
import XCTest

/// HTTP/3 request bodies (uploads): the server sees exactly the bytes the client generated, each
/// once and in order, also when the wire drops datagrams, and answers only after the whole body.
final class UploadTests: XCTestCase {
    /// What the server received on each stream, checked byte by byte against the generated body.
    private final class BodyCheck {
        var received: [Int64: Int64] = [:]
        var mismatches: [String] = []
        private var expected: [UInt8] = []

        func install(on server: HTTP3Server) {
            server.onRequestBody = { [unowned self] _, stream, bytes in self.check(stream, bytes) }
        }

        private func check(_ stream: Int64, _ bytes: UnsafeRawBufferPointer) {
            let offset = received[stream, default: 0]
            received[stream] = offset + Int64(bytes.count)
            guard mismatches.count < 5 else { return }
            for (i, byte) in bytes.enumerated() where byte != HTTP3Client.uploadByte(at: offset + Int64(i)) {
                mismatches.append("stream \(stream) offset \(offset + Int64(i)): \(byte)")
                return
            }
        }
    }

    func testUploadsArriveExactly() throws {
        try runUploads(lossRate: 0)
    }

    func testUploadsSurviveFivePercentLoss() throws {
        try runUploads(lossRate: 0.05)
    }

    private func runUploads(lossRate: Double) throws {
        let server = try makeServer(now: Instant(nanoseconds: 1_000_000_000))
        let check = BodyCheck()
        check.install(on: server)
        let net = VirtualNetwork(server: server, at: serverAddress)
        net.lossRate = lossRate
        let probe = net.add(try makeClient(now: net.now), at: clientAddress)
        // Sizes around the filler's 64 KiB period and the stream window, plus a GET in between.
        let sizes: [Int64] = [1, 65_536, 65_537, 3_000_007, 0]
        var expected: [Int64: Int64] = [:]
        for size in sizes {
            let stream = try probe.client.submitRequest(
                method: size > 0 ? "POST" : "GET", authority: "localhost",
                path: "/upload", bodyLength: size)
            expected[stream] = size
        }
        let ok = net.run(for: .seconds(120)) { probe.finished.count == sizes.count || probe.closedWith != nil }
        XCTAssertTrue(ok, "finished \(probe.finished.count) of \(sizes.count)")
        XCTAssertNil(probe.closedWith)
        XCTAssertEqual(check.mismatches, [])
        var requests: [Int64: (method: String, headers: [(String, String)], body: Int64)] = [:]
        for case .request(_, let stream, let method, _, _, let headers, let body) in net.serverEvents {
            XCTAssertNil(requests[stream], "stream \(stream) reported twice")
            requests[stream] = (method, headers, body)
        }
        for (stream, size) in expected {
            XCTAssertEqual(check.received[stream] ?? 0, size, "bytes the server received on stream \(stream)")
            let request = try XCTUnwrap(requests[stream], "stream \(stream)")
            XCTAssertEqual(request.body, size, "stream \(stream)")
            XCTAssertEqual(request.method, size > 0 ? "POST" : "GET")
            XCTAssertEqual(request.headers.first { $0.0 == "content-length" }?.1, size > 0 ? String(size) : nil)
            XCTAssertEqual(probe.status[stream], 200)
        }
        if lossRate > 0 {
            XCTAssertGreaterThan(net.dropped, 50, "the loss process should have dropped datagrams")
            XCTAssertGreaterThan(probe.client.statistics.streamFramesLost, 0, "the client should have retransmitted")
        }
    }

    func testNegativeBodyLengthIsRefused() throws {
        let client = try makeClient(now: Instant(nanoseconds: 1_000_000_000))
        XCTAssertThrowsError(
            try client.submitRequest(method: "POST", authority: "localhost", path: "/u", bodyLength: -1))
    }
}
