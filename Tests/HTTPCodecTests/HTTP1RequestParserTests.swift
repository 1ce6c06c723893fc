import HTTPCodec
import XCTest

final class HTTP1RequestParserTests: XCTestCase {
    func testSimpleGet() {
        var parser = HTTP1RequestParser()
        let events = parser.feed(
            "GET /a/b?c=1 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nX-Dup: 1\r\nx-dup: 2\r\n\r\n")
        XCTAssertEqual(events.count, 2)
        guard case .request(let head) = events[0] else { return XCTFail("\(events)") }
        XCTAssertEqual(events[1], .end)
        XCTAssertEqual(head.method, "GET")
        XCTAssertEqual(head.target, "/a/b?c=1")
        XCTAssertEqual(head.version, .http1_1)
        XCTAssertEqual(head.headers.map(\.name), ["Host", "Accept", "X-Dup", "x-dup"])
        XCTAssertEqual(head.headers["HOST"], "example.com")
        XCTAssertEqual(head.host, "example.com")
        XCTAssertEqual(head.headers.values(for: "x-DUP"), ["1", "2"])
        XCTAssertNil(head.headers["missing"])
        XCTAssertTrue(head.keepAlive)
        XCTAssertFalse(parser.isClosed)
        XCTAssertFalse(parser.isMidRequest)
    }

    func testEveryByteBoundaryGivesTheSameEvents() {
        let messages = [
            "GET / HTTP/1.1\r\nHost: h\r\nUser-Agent: netbench\r\n\r\n",
            "POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world",
            "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: "
                + "chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n",
            "\r\nGET /lf HTTP/1.1\nHost: h\n\n",
        ]
        let all = Array(messages.joined().utf8)
        var whole = HTTP1RequestParser()
        let expected = mergingBodies(whole.feed(all))
        XCTAssertEqual(expected.filter { if case .request = $0 { true } else { false } }.count, 4)
        XCTAssertEqual(expected.filter { $0 == .end }.count, 4)
        XCTAssertTrue(expected.contains(.body(count: 11)))
        XCTAssertTrue(expected.contains(.body(count: 15)))

        for split in 0...all.count {
            var parser = HTTP1RequestParser()
            let events = parser.feed(Array(all[..<split])) + parser.feed(Array(all[split...]))
            XCTAssertEqual(mergingBodies(events), expected, "split at \(split)")
        }
        var byteByByte = HTTP1RequestParser()
        XCTAssertEqual(mergingBodies(all.flatMap { byteByByte.feed([$0]) }), expected)
    }

    func testPipelinedRequestsComeOutInOrder() {
        var parser = HTTP1RequestParser()
        let events = parser.feed(
            "GET /1 HTTP/1.1\r\nHost: h\r\n\r\n"
                + "POST /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nGET"
                + "GET /3 HTTP/1.1\r\nHost: h\r\nRange: bytes=10-\r\n\r\n")
        let targets = events.compactMap { event -> String? in
            if case .request(let head) = event { head.target } else { nil }
        }
        XCTAssertEqual(targets, ["/1", "/2", "/3"])
        XCTAssertEqual(events.filter { $0 == .end }.count, 3)
        XCTAssertTrue(events.contains(.body(count: 3)), "the body GET must not start a request")
    }

    func testKeepAliveDecision() {
        func keepAlive(_ text: String) -> Bool? {
            var parser = HTTP1RequestParser()
            guard case .request(let head)? = parser.feed(text).first else { return nil }
            return head.keepAlive
        }
        XCTAssertEqual(keepAlive("GET / HTTP/1.1\r\nHost: h\r\n\r\n"), true)
        XCTAssertEqual(keepAlive("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"), false)
        XCTAssertEqual(keepAlive("GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade, CLOSE\r\n\r\n"), false)
        XCTAssertEqual(keepAlive("GET / HTTP/1.0\r\n\r\n"), false)
        XCTAssertEqual(keepAlive("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"), true)
    }

    func testCloseStopsParsing() {
        var parser = HTTP1RequestParser()
        let events = parser.feed(
            "GET /1 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\n")
        XCTAssertEqual(events.count, 2)
        XCTAssertTrue(parser.isClosed)
        XCTAssertEqual(parser.feed("GET /3 HTTP/1.1\r\nHost: h\r\n\r\n"), [])
    }

    func testMalformedInput() {
        let cases: [(String, HTTP1ParseError.Kind)] = [
            ("GET /\r\n\r\n", .badRequestLine),
            ("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", .badRequestLine),
            ("G@T / HTTP/1.1\r\nHost: h\r\n\r\n", .badRequestLine),
            ("GET / HTTP/1.1 x\r\nHost: h\r\n\r\n", .badRequestLine),
            ("GET /a\u{7F} HTTP/1.1\r\nHost: h\r\n\r\n", .badRequestLine),
            ("\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\r\n\r\n", .badRequestLine),  // TLS on the plain port
            ("GET / http/1.1\r\nHost: h\r\n\r\n", .badRequestLine),
            ("GET / HTTP/2.0\r\nHost: h\r\n\r\n", .unsupportedVersion),
            ("GET / HTTP/1.2\r\nHost: h\r\n\r\n", .unsupportedVersion),
            ("GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n folded\r\n\r\n", .badHeaderLine),
            ("GET / HTTP/1.1\r\nHost: h\r\nNo colon here\r\n\r\n", .badHeaderLine),
            ("GET / HTTP/1.1\r\nHost: h\r\nX-A : 1\r\n\r\n", .badHeaderLine),
            ("GET / HTTP/1.1\r\nHost: h\r\n: empty\r\n\r\n", .badHeaderLine),
            ("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\u{01}b\r\n\r\n", .badHeaderLine),
            ("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\rb\r\n\r\n", .badHeaderLine),
            ("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", .badHeaderLine),  // no Host
            ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .badHeaderLine),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: abc\r\n\r\n", .invalidContentLength),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", .invalidContentLength),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 6\r\n\r\n", .invalidContentLength),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", .invalidContentLength),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999\r\n\r\n", .invalidContentLength),
            (
                "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
                .invalidContentLength
            ),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", .unsupportedTransferEncoding),
            ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", .unsupportedTransferEncoding),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .badChunk),
        ]
        for (text, kind) in cases {
            var parser = HTTP1RequestParser()
            let events = parser.feed(text)
            guard case .malformed(let error)? = events.last else {
                XCTFail("\(text.debugDescription) gave \(events)")
                continue
            }
            XCTAssertEqual(error.kind, kind, "\(text.debugDescription): \(error)")
            XCTAssertTrue(parser.isClosed)
            XCTAssertEqual(parser.feed("GET / HTTP/1.1\r\nHost: h\r\n\r\n"), [], "nothing after malformed")
        }
        var parser = HTTP1RequestParser()
        guard case .malformed(let error)? = parser.feed("GET / HTTP/2.0\r\n\r\n").last else { return XCTFail() }
        XCTAssertEqual(error.responseStatus, 505)
        XCTAssertTrue(error.description.contains("HTTP/2.0"), error.description)
    }

    func testOversizeHeaderBlock() {
        let big = "GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + String(repeating: "a", count: 70 * 1024) + "\r\n\r\n"
        var parser = HTTP1RequestParser()
        guard case .malformed(let error)? = parser.feed(big).last else { return XCTFail() }
        XCTAssertEqual(error.kind, .headerTooLarge)
        XCTAssertEqual(error.responseStatus, 431)

        // The same, arriving in 1000-byte reads, fails as soon as the limit is passed.
        var pieces = HTTP1RequestParser()
        let bytes = Array(big.utf8)
        var failedAt: Int?
        for start in stride(from: 0, to: bytes.count, by: 1000) {
            if case .malformed? = pieces.feed(Array(bytes[start..<min(start + 1000, bytes.count)])).last {
                failedAt = start
                break
            }
        }
        XCTAssertEqual(failedAt, 65 * 1000)

        // Many small fields that add up over the limit.
        let many = "GET / HTTP/1.1\r\nHost: h\r\n" + (0..<4000).map { "X-Field-\($0): value\r\n" }.joined() + "\r\n"
        var manyParser = HTTP1RequestParser()
        guard case .malformed(let manyError)? = manyParser.feed(many).last else { return XCTFail() }
        XCTAssertEqual(manyError.kind, .headerTooLarge)

        // Just under the limit is fine.
        let fits = "GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + String(repeating: "a", count: 60 * 1024) + "\r\n\r\n"
        var fitsParser = HTTP1RequestParser()
        XCTAssertEqual(fitsParser.feed(fits).last, .end)
    }

    func testBodyBytesAreCountedAcrossReads() {
        var parser = HTTP1RequestParser()
        var events = parser.feed("PUT /x HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n1234")
        XCTAssertTrue(parser.isMidRequest)
        events += parser.feed("567890GET /next HTTP/1.1\r\nHost: h\r\n\r\n")
        XCTAssertEqual(mergingBodies(events).count, 5)
        XCTAssertEqual(mergingBodies(events)[1], .body(count: 10))
        XCTAssertEqual(mergingBodies(events)[2], .end)
    }
}
