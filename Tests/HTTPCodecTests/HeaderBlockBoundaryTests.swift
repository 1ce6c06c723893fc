import HTTPCodec
import XCTest

/// `takeOutbound(into:endingAtHeaderBlock:)`: the server can close a TLS record right after a
/// response's head, so the client decodes the head without the DATA behind it.
final class HeaderBlockBoundaryTests: XCTestCase {
    /// Frames in `bytes`: (type, flags, payload length); the bytes must hold whole frames.
    private func frames(_ bytes: ArraySlice<UInt8>) -> [(type: UInt8, flags: UInt8, length: Int)] {
        var out: [(UInt8, UInt8, Int)] = [], i = bytes.startIndex
        while i + 9 <= bytes.endIndex {
            let length = Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2])
            out.append((bytes[i + 3], bytes[i + 4], length))
            i += 9 + length
        }
        XCTAssertEqual(i, bytes.endIndex, "chunk ends on a frame boundary")
        return out
    }

    /// The server's next chunks after answering two requests with bodies larger than a record.
    private func serverChunks(
        endingAtHeaderBlock: Bool, chunkSize: Int = 64 * 1024, responses: Int = 2,
        bodyLength: Int64 = 20_000, sharedHeaderRecord: Int = 0
    ) throws -> [[UInt8]] {
        let pair = try HTTP2Pair()
        try pair.run()  // SETTINGS both ways
        let streams = try (0..<responses).map { _ in try pair.client.submitRequest(authority: "example.com", path: "/x")
        }
        var requests: [Int32] = []
        try pair.run(
            server: { if case let .request(id, _, _) = $0 { requests.append(id) } },
            maxStepsUntil: { requests.count == responses })
        XCTAssertEqual(Set(requests), Set(streams))
        for id in requests { try pair.server.submitResponse(stream: id, status: 200, bodyLength: bodyLength) }
        var chunks: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        while pair.server.wantsWrite {
            let n = try buffer.withUnsafeMutableBytes {
                try pair.server.takeOutbound(
                    into: $0, endingAtHeaderBlock: endingAtHeaderBlock, sharedHeaderRecord: sharedHeaderRecord)
            }
            if n == 0 { break }
            chunks.append(Array(buffer[0..<n]))
        }
        return chunks
    }

    func testChunksEndAfterEachResponseHead() throws {
        let chunks = try serverChunks(endingAtHeaderBlock: true)
        let perChunk = chunks.map { frames($0[...]) }
        let headers = perChunk.enumerated().flatMap { i, f in
            f.enumerated().filter { $0.element.type == 1 }.map { (i, $0.offset, f.count) }
        }
        XCTAssertEqual(headers.count, 2, "two response heads")
        for (chunk, index, count) in headers {
            XCTAssertEqual(index, count - 1, "HEADERS is the last frame of chunk \(chunk): \(perChunk[chunk])")
            XCTAssertNotEqual(perChunk[chunk][index].flags & 0x4, 0, "END_HEADERS")
        }
        let data = perChunk.joined().filter { $0.type == 0 }.reduce(0) { $0 + $1.length }
        XCTAssertEqual(data, 40_000, "every body byte still goes out")
    }

    func testWithoutTheBoundaryHeadsShareAChunkWithData() throws {
        let chunks = try serverChunks(endingAtHeaderBlock: false)
        let first = frames(chunks[0][...])
        let head = try XCTUnwrap(first.firstIndex { $0.type == 1 })
        XCTAssertTrue(
            first[(head + 1)...].contains { $0.type == 0 }, "DATA follows the head in the same chunk: \(first)")
    }

    /// With a one-packet allowance, a head shares its chunk (its TLS record) with what follows only
    /// while the chunk fits that allowance; otherwise it still ends the chunk.
    private func assertHeadsNeverWaitBehindMoreThan(
        _ allowance: Int, _ chunks: [[UInt8]], file: StaticString = #filePath, line: UInt = #line
    ) {
        for (i, c) in chunks.enumerated() {
            let f = frames(c[...])
            guard let last = f.lastIndex(where: { $0.type == 1 }) else { continue }
            XCTAssertTrue(
                c.count <= allowance || last == f.count - 1,
                "chunk \(i) of \(c.count) bytes has a head followed by \(f[(last + 1)...])", file: file, line: line)
        }
    }

    func testSmallResponsesShareOnePacketRecordsWithTheirHeads() throws {
        let strict = try serverChunks(endingAtHeaderBlock: true, responses: 10, bodyLength: 1_000)
        let shared = try serverChunks(
            endingAtHeaderBlock: true, responses: 10, bodyLength: 1_000, sharedHeaderRecord: 1_419)
        assertHeadsNeverWaitBehindMoreThan(1_419, shared)
        XCTAssertGreaterThanOrEqual(strict.count, 11, "one chunk per head, then the DATA")
        XCTAssertLessThan(shared.count, strict.count, "heads share chunks: \(shared.map(\.count))")
        for chunks in [strict, shared] {
            let all = chunks.map { frames($0[...]) }.joined()
            XCTAssertEqual(
                all.filter { $0.type == 0 }.reduce(0) { $0 + $1.length }, 10_000, "every body byte still goes out")
            XCTAssertEqual(all.filter { $0.type == 1 }.count, 10)
        }
    }

    func testLargeBodiesStillEndTheHeadsChunkWithAnAllowance() throws {
        let chunks = try serverChunks(endingAtHeaderBlock: true, sharedHeaderRecord: 1_419)
        assertHeadsNeverWaitBehindMoreThan(1_419, chunks)
        let all = chunks.map { frames($0[...]) }.joined()
        XCTAssertEqual(all.filter { $0.type == 0 }.reduce(0) { $0 + $1.length }, 40_000)
    }

    /// A chunk buffer smaller than a frame: the boundary is kept across the overflow nghttp2's frames leave.
    func testBoundarySurvivesASmallBuffer() throws {
        let chunks = try serverChunks(endingAtHeaderBlock: true, chunkSize: 10)
        let bytes = chunks.joined()
        var ends: [Int] = [], offset = 0
        for c in chunks { offset += c.count; ends.append(offset) }
        let all = frames(Array(bytes)[...])
        var position = 0
        for f in all {
            position += 9 + f.length
            if f.type == 1 {
                XCTAssertTrue(ends.contains(position), "a chunk ends where the head ends (byte \(position))")
            }
        }
    }
}

extension HTTP2Pair {
    /// Steps until `done` holds, handing server events to `onServer`.
    func run(server onServer: (HTTP2Event) throws -> Void, maxStepsUntil done: () -> Bool) throws {
        for _ in 0..<1_000 {
            let (_, serverEvents, _) = try step()
            for e in serverEvents { try onServer(e) }
            if done() { return }
        }
        XCTFail("condition not reached in 1000 steps")
    }
}
