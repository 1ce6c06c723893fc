import HTTPCodec
import XCTest

final class HTTP1SerializerTests: XCTestCase {
    func testRequestRoundTripWithRange() {
        let bytes = HTTP1Serializer.requestHead(
            target: "/video.mp4?q=1", host: "cdn.example:8443", range: .from(1_000_000),
            headers: ["User-Agent": "netbench", "host": "ignored", "Accept": "*/*"])
        XCTAssertEqual(
            String(decoding: bytes, as: UTF8.self),
            "GET /video.mp4?q=1 HTTP/1.1\r\nHost: cdn.example:8443\r\nRange: bytes=1000000-\r\n"
                + "User-Agent: netbench\r\nAccept: */*\r\n\r\n")
        var parser = HTTP1RequestParser()
        let events = parser.feed(bytes)
        guard case .request(let head)? = events.first else { return XCTFail("\(events)") }
        XCTAssertEqual(events.last, .end)
        XCTAssertEqual(head.method, "GET")
        XCTAssertEqual(head.target, "/video.mp4?q=1")
        XCTAssertEqual(head.host, "cdn.example:8443")
        XCTAssertEqual(head.headers["range"].flatMap(HTTPByteRange.init(headerValue:)), .from(1_000_000))

        let original = HTTPRequestHead(method: "HEAD", target: "/x", headers: ["Host": "h", "X-A": "1", "x-a": "2"])
        var again = HTTP1RequestParser()
        XCTAssertEqual(again.feed(HTTP1Serializer.requestHead(original)).first, .request(original))
    }

    func testResponseRoundTripWithContentRange() throws {
        let total: Int64 = 5_000_000
        let range = try XCTUnwrap(HTTPByteRange.from(1_000_000).resolved(totalLength: total))
        let contentRange = HTTPContentRange(range, completeLength: total)
        let head = HTTP1Serializer.responseHead(
            status: 206, contentLength: contentRange.length, contentRange: contentRange,
            headers: ["Content-Type": "video/mp4", "Content-Length": "1"])
        XCTAssertEqual(
            String(decoding: head, as: UTF8.self),
            "HTTP/1.1 206 Partial Content\r\nContent-Length: 4000000\r\nContent-Range: bytes "
                + "1000000-4999999/5000000\r\n"
                + "Content-Type: video/mp4\r\n\r\n")
        var parser = HTTP1ResponseParser()
        let events = try parser.feed(head)
        guard case .head(let parsed)? = events.first else { return XCTFail("\(events)") }
        XCTAssertEqual(parsed.status, 206)
        XCTAssertEqual(parsed.reason, "Partial Content")
        XCTAssertEqual(parsed.headers["content-length"], "4000000")
        XCTAssertEqual(parsed.headers["content-range"].flatMap(HTTPContentRange.init(headerValue:)), contentRange)
        XCTAssertTrue(parser.isMidResponse)

        let closing = HTTP1Serializer.responseHead(status: 404, contentLength: 0, keepAlive: false)
        var closeParser = HTTP1ResponseParser()
        XCTAssertEqual(try closeParser.feed(closing).last, .end(keepAlive: false))

        let notModified = HTTP1Serializer.responseHead(status: 304, contentLength: 10)
        XCTAssertFalse(String(decoding: notModified, as: UTF8.self).contains("Content-Length"))

        let verbatim = HTTPResponseHead(status: 200, headers: ["Content-Length": "0", "X": "y"])
        var verbatimParser = HTTP1ResponseParser()
        XCTAssertEqual(try verbatimParser.feed(HTTP1Serializer.responseHead(verbatim)).first, .head(verbatim))
    }

    func testFieldsCannotInjectLines() {
        let bytes = HTTP1Serializer.requestHead(target: "/a\r\nX: y", host: "h", headers: ["X-A": "1\r\nEvil: 2"])
        var parser = HTTP1RequestParser()
        let events = parser.feed(bytes)
        // The CR LF became spaces: the target now has a space, so the request line is bad,
        // but no "Evil" field was ever created.
        XCTAssertFalse(String(decoding: bytes, as: UTF8.self).contains("\r\nEvil"))
        guard case .malformed? = events.last else { return XCTFail("\(events)") }
        let value = HTTP1Serializer.responseHead(status: 200, contentLength: 0, headers: ["X-A": "1\r\nEvil: 2"])
        XCTAssertTrue(String(decoding: value, as: UTF8.self).contains("X-A: 1  Evil: 2\r\n"))
    }

    func testByteRanges() {
        XCTAssertEqual(HTTPByteRange(headerValue: "bytes=100-"), .from(100))
        XCTAssertEqual(HTTPByteRange(headerValue: "Bytes = 0-99 "), nil)
        XCTAssertEqual(HTTPByteRange(headerValue: " bytes=0-99 "), .closed(first: 0, last: 99))
        XCTAssertEqual(HTTPByteRange(headerValue: "bytes=-500"), .suffix(length: 500))
        XCTAssertNil(HTTPByteRange(headerValue: "bytes=5-1"))
        XCTAssertNil(HTTPByteRange(headerValue: "bytes=0-1,5-6"))
        XCTAssertNil(HTTPByteRange(headerValue: "items=0-1"))
        XCTAssertNil(HTTPByteRange(headerValue: "bytes=-"))
        XCTAssertNil(HTTPByteRange(headerValue: "bytes=a-"))
        XCTAssertEqual(HTTPByteRange.from(7).headerValue, "bytes=7-")
        XCTAssertEqual(HTTPByteRange.closed(first: 1, last: 2).headerValue, "bytes=1-2")
        XCTAssertEqual(HTTPByteRange.suffix(length: 3).headerValue, "bytes=-3")

        XCTAssertEqual(HTTPByteRange.from(10).resolved(totalLength: 100), 10...99)
        XCTAssertNil(HTTPByteRange.from(100).resolved(totalLength: 100))
        XCTAssertEqual(HTTPByteRange.closed(first: 90, last: 200).resolved(totalLength: 100), 90...99)
        XCTAssertEqual(HTTPByteRange.suffix(length: 500).resolved(totalLength: 100), 0...99)
        XCTAssertEqual(HTTPByteRange.suffix(length: 10).resolved(totalLength: 100), 90...99)
        XCTAssertNil(HTTPByteRange.from(0).resolved(totalLength: 0))

        XCTAssertEqual(
            HTTPContentRange(headerValue: "bytes 0-9/10"), HTTPContentRange(first: 0, last: 9, completeLength: 10))
        XCTAssertEqual(
            HTTPContentRange(headerValue: "bytes 5-9/*"), HTTPContentRange(first: 5, last: 9, completeLength: nil))
        XCTAssertNil(HTTPContentRange(headerValue: "bytes 0-10/10"))
        XCTAssertNil(HTTPContentRange(headerValue: "bytes */10"))
        XCTAssertEqual(HTTPContentRange(first: 5, last: 9, completeLength: nil).headerValue, "bytes 5-9/*")
        XCTAssertEqual(HTTPContentRange.unsatisfiedHeaderValue(completeLength: 10), "bytes */10")
    }

    func testBodyFillerIsDeterministicAcrossSlices() {
        var whole = [UInt8](repeating: 0, count: 20_000)
        whole.withUnsafeMutableBytes { BodyFiller.fill($0, offset: 0) }
        XCTAssertTrue(whole.allSatisfy { (0x21...0x7E).contains($0) })
        for offset in [0, 1, 4095, 4096, 4097, 12_345] {
            var slice = [UInt8](repeating: 0, count: 20_000 - offset)
            slice.withUnsafeMutableBytes { BodyFiller.fill($0, offset: Int64(offset)) }
            XCTAssertEqual(slice, Array(whole[offset...]), "offset \(offset)")
            XCTAssertEqual(BodyFiller.byte(at: Int64(offset)), whole[offset])
            XCTAssertTrue(slice.withUnsafeBytes { BodyFiller.matches($0, offset: Int64(offset)) })
        }
        XCTAssertFalse(whole.withUnsafeBytes { BodyFiller.matches($0, offset: 1) })
    }

    func testHeadersHelpers() {
        var headers: HTTPHeaders = ["Connection": "keep-alive, Upgrade", "connection": "CLOSE", "X": "1"]
        XCTAssertEqual(headers.tokens(for: "CONNECTION"), ["keep-alive", "upgrade", "close"])
        headers.replaceOrAdd(name: "connection", value: "close")
        XCTAssertEqual(headers.map(\.name), ["Connection", "X"])
        XCTAssertEqual(headers["connection"], "close")
        headers.remove(name: "x")
        XCTAssertEqual(headers.count, 1)
        XCTAssertEqual(headers, ["CONNECTION": "close"])
        XCTAssertNotEqual(headers, ["Connection": "Close"])
    }
}
