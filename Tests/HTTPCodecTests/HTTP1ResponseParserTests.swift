import HTTPCodec
import XCTest

final class HTTP1ResponseParserTests: XCTestCase {
    private func bodyTotal(_ events: [HTTP1ClientEvent]) -> Int {
        events.reduce(0) { if case .body(let n) = $1 { $0 + n } else { $0 } }
    }

    func testContentLengthAndChunkedSplitAtEveryBoundary() throws {
        let text =
            "HTTP/1.1 200 OK\r\nContent-Length: 12\r\nServer: t\r\n\r\nhello world!"
            + "HTTP/1.1 206 Partial Content\r\nTransfer-Encoding: chunked\r\nContent-Range: bytes 0-14/100\r\n\r\n"
            + "5\r\nhello\r\na;name=value\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n"
            + "HTTP/1.1 204 No Content\r\n\r\n"
            + "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"
        let all = Array(text.utf8)
        var whole = HTTP1ResponseParser()
        let expected = mergingBodies(try whole.feed(all))
        XCTAssertEqual(expected.filter { if case .head = $0 { true } else { false } }.count, 4)
        XCTAssertEqual(expected.filter { $0 == .end(keepAlive: true) }.count, 4)
        XCTAssertEqual(bodyTotal(expected), 12 + 15)
        guard case .head(let partial) = expected[3] else { return XCTFail("\(expected)") }
        XCTAssertEqual(partial.status, 206)
        XCTAssertEqual(
            partial.headers["content-range"].flatMap(HTTPContentRange.init(headerValue:)),
            HTTPContentRange(first: 0, last: 14, completeLength: 100))

        for split in 0...all.count {
            var parser = HTTP1ResponseParser()
            let events = try parser.feed(Array(all[..<split])) + parser.feed(Array(all[split...]))
            XCTAssertEqual(mergingBodies(events), expected, "split at \(split)")
        }
        var byteByByte = HTTP1ResponseParser()
        XCTAssertEqual(mergingBodies(try all.flatMap { try byteByByte.feed([$0]) }), expected)
    }

    func testBodyIsCountedNotCopied() throws {
        var parser = HTTP1ResponseParser()
        var events = try parser.feed("HTTP/1.1 200 OK\r\nContent-Length: 3000000\r\n\r\n")
        let block = [UInt8](repeating: 0x61, count: 1 << 20)
        for _ in 0..<3 { events += try parser.feed(block) }
        XCTAssertEqual(bodyTotal(events), 3_000_000)
        XCTAssertEqual(events.last, .end(keepAlive: true))
        // The 145,728 bytes past the body would be the next response's head: with no line
        // end in over 64 KiB they fail, and the error comes with the next call.
        XCTAssertThrowsError(try parser.feed([])) { error in
            XCTAssertEqual((error as? HTTP1ParseError)?.kind, .headerTooLarge)
        }
    }

    func testCloseDelimitedBody() throws {
        var parser = HTTP1ResponseParser()
        var events = try parser.feed("HTTP/1.0 200 OK\r\nServer: old\r\n\r\nabc")
        events += try parser.feed("defg")
        XCTAssertTrue(parser.isMidResponse)
        events += try parser.finish()
        XCTAssertEqual(bodyTotal(events), 7)
        XCTAssertEqual(events.last, .end(keepAlive: false))
    }

    func testResponsesWithoutBody() throws {
        var parser = HTTP1ResponseParser()
        parser.expectResponse(toMethod: "HEAD")
        parser.expectResponse(toMethod: "GET")
        parser.expectResponse(toMethod: "GET")
        let events = try parser.feed(
            "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
                + "HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        XCTAssertEqual(events.filter { $0 == .end(keepAlive: true) }.count, 3)
        XCTAssertEqual(bodyTotal(events), 2)
    }

    func testInterimResponses() throws {
        var parser = HTTP1ResponseParser()
        let events = try parser.feed(
            "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx")
        guard case .informational(let hint) = events[0], case .head(let head) = events[1] else {
            return XCTFail("\(events)")
        }
        XCTAssertEqual(hint.status, 103)
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(events.last, .end(keepAlive: true))
    }

    func testKeepAliveOfResponses() throws {
        func end(_ text: String) throws -> HTTP1ClientEvent? {
            var parser = HTTP1ResponseParser()
            return try parser.feed(text).last
        }
        XCTAssertEqual(try end("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), .end(keepAlive: true))
        XCTAssertEqual(
            try end("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"), .end(keepAlive: false))
        XCTAssertEqual(try end("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"), .end(keepAlive: false))
        XCTAssertEqual(
            try end("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n"), .end(keepAlive: true))
    }

    func testErrorsNameWhatWasWrong() throws {
        let cases: [(String, HTTP1ParseError.Kind)] = [
            ("HTTP/1.1 OK\r\n\r\n", .badStatusLine),
            ("HTTP/1.1 20 OK\r\n\r\n", .badStatusLine),
            ("SSH-2.0-OpenSSH_9.2\r\n\r\n", .badStatusLine),
            ("HTTP/3.0 200 OK\r\n\r\n", .unsupportedVersion),
            ("HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", .invalidContentLength),
            ("HTTP/1.1 200 OK\r\n bad\r\n\r\n", .badHeaderLine),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nG\r\n", .badChunk),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n", .badChunk),
            ("HTTP/1.1 101 Switching Protocols\r\n\r\n", .unexpectedStatus),
        ]
        for (text, kind) in cases {
            var parser = HTTP1ResponseParser()
            // An error after a complete head is thrown by the next call.
            XCTAssertThrowsError(
                try {
                    _ = try parser.feed(text); _ = try parser.feed([])
                }(), text.debugDescription
            ) { error in
                XCTAssertEqual((error as? HTTP1ParseError)?.kind, kind, "\(text.debugDescription): \(error)")
            }
        }
        var long = HTTP1ResponseParser()
        XCTAssertThrowsError(
            try long.feed("HTTP/1.1 200 OK\r\nX: " + String(repeating: "v", count: 65536) + "\r\n\r\n")
        ) {
            XCTAssertEqual(($0 as? HTTP1ParseError)?.kind, .headerTooLarge)
        }
    }

    func testTruncatedResponses() throws {
        let cases = [
            "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
            "HTTP/1.1 200 OK\r\nContent-Len",
        ]
        for text in cases {
            var parser = HTTP1ResponseParser()
            _ = try parser.feed(text)
            XCTAssertThrowsError(try parser.finish()) { error in
                XCTAssertEqual((error as? HTTP1ParseError)?.kind, .truncatedMessage)
                XCTAssertTrue("\(error)".contains("closed"), "\(error)")
            }
        }
        var idle = HTTP1ResponseParser()
        XCTAssertEqual(try idle.finish(), [])
    }

    func testEventsBeforeAnErrorAreKept() throws {
        var parser = HTTP1ResponseParser()
        let events = try parser.feed("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxGARBAGE\r\n\r\n")
        XCTAssertEqual(events.last, .end(keepAlive: true))
        XCTAssertThrowsError(try parser.feed("more"))
        XCTAssertThrowsError(try parser.finish())
    }
}
