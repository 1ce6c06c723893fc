/// The RFC 9112 grammar of start lines and field lines, and the body-length rules (§6.3).
enum HTTP1Grammar {
    /// tchar of RFC 9110 §5.6.2.
    static func isTokenChar(_ c: UInt8) -> Bool {
        switch c {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    static func isToken<C: Collection<UInt8>>(_ bytes: C) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(isTokenChar)
    }

    /// `HTTP/1.0` or `HTTP/1.1`; any other well-formed `HTTP/d.d` is `.unsupportedVersion`,
    /// anything else nil (the caller reports its own line kind).
    static func version(_ bytes: ArraySlice<UInt8>) throws(HTTP1ParseError) -> HTTPVersion? {
        let b = Array(bytes)
        guard b.count == 8, b[0...4].elementsEqual("HTTP/".utf8), b[6] == UInt8(ascii: "."),
            (0x30...0x39).contains(b[5]), (0x30...0x39).contains(b[7])
        else { return nil }
        let version = HTTPVersion(major: Int(b[5] - 0x30), minor: Int(b[7] - 0x30))
        guard version == .http1_1 || version == .http1_0 else {
            throw HTTP1ParseError(.unsupportedVersion, String(decoding: b, as: UTF8.self))
        }
        return version
    }

    /// `method SP request-target SP HTTP-version`, single spaces (RFC 9112 §3).
    static func requestLine(_ line: ArraySlice<UInt8>) throws(HTTP1ParseError) -> (String, String, HTTPVersion) {
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        let bad = HTTP1ParseError(.badRequestLine, HTTP1ParseError.quote(line))
        guard parts.count == 3, isToken(parts[0]),
            !parts[1].isEmpty, parts[1].allSatisfy({ (0x21...0x7E).contains($0) })
        else { throw bad }
        guard let version = try version(parts[2]) else { throw bad }
        return (String(decoding: parts[0], as: UTF8.self), String(decoding: parts[1], as: UTF8.self), version)
    }

    /// `HTTP-version SP 3DIGIT SP [reason]`; a missing space after the code is tolerated,
    /// as deployed servers emit `HTTP/1.1 200`.
    static func statusLine(_ line: ArraySlice<UInt8>) throws(HTTP1ParseError) -> (HTTPVersion, Int, String) {
        let bad = HTTP1ParseError(.badStatusLine, HTTP1ParseError.quote(line))
        let bytes = Array(line)
        guard bytes.count >= 12, bytes[8] == 0x20 else { throw bad }
        guard let version = try version(line.prefix(8)) else { throw bad }
        let code = bytes[9..<12]
        guard code.allSatisfy({ (0x30...0x39).contains($0) }), bytes.count == 12 || bytes[12] == 0x20 else { throw bad }
        let status = code.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard status >= 100 else { throw bad }
        let reason = bytes.count > 13 ? bytes[13...] : []
        guard reason.allSatisfy({ $0 == 0x09 || $0 >= 0x20 && $0 != 0x7F }) else { throw bad }
        return (version, status, String(decoding: reason, as: UTF8.self))
    }

    /// `field-name ":" OWS field-value OWS` (RFC 9112 §5). Obsolete line folding and
    /// whitespace before the colon are rejected, as §5.1 and §5.2 require of a server.
    static func fieldLine(_ line: ArraySlice<UInt8>) throws(HTTP1ParseError) -> (String, String) {
        if let first = line.first, first == 0x20 || first == 0x09 {
            throw HTTP1ParseError(.badHeaderLine, "obsolete line folding: \(HTTP1ParseError.quote(line))")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), isToken(line[..<colon]) else {
            throw HTTP1ParseError(.badHeaderLine, HTTP1ParseError.quote(line))
        }
        var value = line[(colon + 1)...]
        while let f = value.first, f == 0x20 || f == 0x09 { value.removeFirst() }
        while let l = value.last, l == 0x20 || l == 0x09 { value.removeLast() }
        guard value.allSatisfy({ $0 == 0x09 || $0 >= 0x20 && $0 != 0x7F }) else {
            throw HTTP1ParseError(.badHeaderLine, "control character in \(HTTP1ParseError.quote(line))")
        }
        return (String(decoding: line[..<colon], as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    static func fields(_ lines: ArraySlice<ArraySlice<UInt8>>) throws(HTTP1ParseError) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for line in lines {
            let (name, value) = try fieldLine(line)
            headers.add(name: name, value: value)
        }
        return headers
    }

    /// The one Content-Length of a message: repeated fields and list forms (`5, 5`) must agree.
    static func contentLength(_ headers: HTTPHeaders) throws(HTTP1ParseError) -> Int64? {
        var result: Int64?
        for value in headers.values(for: "content-length") {
            for element in value.split(separator: ",", omittingEmptySubsequences: false) {
                let text = element.trimmingHTTPWhitespace()
                guard let n = parseDecimal(text), result == nil || result == n else {
                    throw HTTP1ParseError(.invalidContentLength, HTTP1ParseError.quote(Array(value.utf8)))
                }
                result = n
            }
        }
        return result
    }
}

/// How a message body is delimited (RFC 9112 §6.3).
enum HTTP1BodyFraming: Equatable {
    case none
    case length(Int64)
    case chunked
    case untilClose

    /// Request framing. Everything ambiguous is an error rather than a guess, as request
    /// smuggling hides in those guesses: Transfer-Encoding with Content-Length, Transfer-Encoding
    /// on HTTP/1.0, or a final coding other than chunked.
    static func ofRequest(_ head: HTTPRequestHead) throws(HTTP1ParseError) -> HTTP1BodyFraming {
        let codings = head.headers.tokens(for: "transfer-encoding")
        if head.headers.contains("transfer-encoding") {
            guard head.version != .http1_0 else {
                throw HTTP1ParseError(.unsupportedTransferEncoding, "Transfer-Encoding in an HTTP/1.0 request")
            }
            guard codings.last == "chunked", codings.filter({ $0 == "chunked" }).count == 1 else {
                throw HTTP1ParseError(.unsupportedTransferEncoding, codings.joined(separator: ", "))
            }
            guard !head.headers.contains("content-length") else {
                throw HTTP1ParseError(.invalidContentLength, "Content-Length together with Transfer-Encoding")
            }
            return .chunked
        }
        if let length = try HTTP1Grammar.contentLength(head.headers), length > 0 { return .length(length) }
        return .none
    }

    /// Response framing, given whether the request was HEAD.
    static func ofResponse(_ head: HTTPResponseHead, toHEAD: Bool) throws(HTTP1ParseError) -> HTTP1BodyFraming {
        if toHEAD || HTTPStatus.forbidsBody(head.status) { return .none }
        if head.headers.contains("transfer-encoding") {
            // A final coding other than chunked means the body runs to the close (§6.3 item 4).
            return head.headers.tokens(for: "transfer-encoding").last == "chunked" ? .chunked : .untilClose
        }
        if let length = try HTTP1Grammar.contentLength(head.headers) {
            return length > 0 ? .length(length) : .none
        }
        return .untilClose
    }
}
