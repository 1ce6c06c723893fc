/// What the client side of an HTTP/1.x connection learns from the bytes it reads.
public enum HTTP1ClientEvent: Sendable, Equatable {
    /// An interim 1xx response (100 Continue, 103 Early Hints); the final one follows.
    case informational(HTTPResponseHead)
    /// The final response head.
    case head(HTTPResponseHead)
    /// `count` body bytes arrived (chunk framing excluded). Counted, never copied.
    case body(count: Int)
    /// The response is complete. `keepAlive` is false when the connection cannot carry another
    /// request: `Connection: close`, HTTP/1.0 without keep-alive, or a close-delimited body.
    case end(keepAlive: Bool)
}

/// Incremental parser of HTTP/1.0 and HTTP/1.1 responses: bytes in, events out, no I/O.
///
/// Responses come in request order; tell the parser about each HEAD request with
/// `expectResponse(toMethod:)` so that it expects no body (without it every response is
/// parsed as if answering GET). Body bytes are counted in place, never copied.
///
/// Errors: `feed` throws `HTTP1ParseError`. If events were already parsed in the same call
/// they are returned first and the error is thrown by the next `feed` or `finish`.
public struct HTTP1ResponseParser: Sendable {
    private enum State: Sendable {
        case head
        case body(remaining: Int64, keepAlive: Bool)
        case chunked(ChunkedBodyDecoder, keepAlive: Bool)
        case untilClose
        case failed(HTTP1ParseError)
    }

    private var state = State.head
    private var headBuffer: HTTP1HeadBuffer
    /// One entry per request sent and not yet answered: whether it was HEAD.
    private var pendingHEAD: [Bool] = []

    public init(maxHeadBytes: Int = HTTP1RequestParser.defaultMaxHeadBytes) {
        headBuffer = HTTP1HeadBuffer(limit: maxHeadBytes)
    }

    /// Records a request sent on this connection, in order. Only needed to recognise responses
    /// to HEAD; calling it for every request keeps pipelined HEAD/GET mixes right.
    public mutating func expectResponse(toMethod method: String) {
        pendingHEAD.append(method == "HEAD")
    }

    /// Whether a response is partly received.
    public var isMidResponse: Bool {
        switch state {
        case .head: !headBuffer.isEmpty
        case .body, .chunked, .untilClose: true
        case .failed: false
        }
    }

    public mutating func feed(_ bytes: UnsafeRawBufferPointer) throws(HTTP1ParseError) -> [HTTP1ClientEvent] {
        if case .failed(let error) = state { throw error }
        var events: [HTTP1ClientEvent] = []
        var index = 0
        do throws(HTTP1ParseError) {
            while index < bytes.count {
                let rest = UnsafeRawBufferPointer(rebasing: bytes[index...])
                switch state {
                case .head:
                    let (consumed, complete) = try headBuffer.append(rest)
                    index += consumed
                    if complete { try headComplete(&events) }
                case .body(let remaining, let keepAlive):
                    let n = Int(min(Int64(rest.count), remaining))
                    index += n
                    events.append(.body(count: n))
                    if remaining == Int64(n) {
                        responseComplete(&events, keepAlive: keepAlive)
                    } else {
                        state = .body(remaining: remaining - Int64(n), keepAlive: keepAlive)
                    }
                case .chunked(var decoder, let keepAlive):
                    let (consumed, data, finished) = try decoder.decode(rest)
                    index += consumed
                    if data > 0 { events.append(.body(count: data)) }
                    if finished {
                        responseComplete(&events, keepAlive: keepAlive)
                    } else {
                        state = .chunked(decoder, keepAlive: keepAlive)
                    }
                case .untilClose:
                    index = bytes.count
                    events.append(.body(count: rest.count))
                case .failed:
                    preconditionFailure("a failed parser returns before parsing")
                }
            }
        } catch {
            state = .failed(error)
            if events.isEmpty { throw error }
        }
        return events
    }

    /// The peer closed the connection: ends a close-delimited body, or throws
    /// `.truncatedMessage` if a response was cut short.
    public mutating func finish() throws(HTTP1ParseError) -> [HTTP1ClientEvent] {
        switch state {
        case .failed(let error):
            throw error
        case .untilClose:
            state = .head
            return [.end(keepAlive: false)]
        case .head where headBuffer.isEmpty:
            return []
        case .head:
            throw fail(HTTP1ParseError(.truncatedMessage, "inside the response head"))
        case .body(let remaining, _):
            throw fail(HTTP1ParseError(.truncatedMessage, "\(remaining) body bytes missing"))
        case .chunked:
            throw fail(HTTP1ParseError(.truncatedMessage, "inside a chunked body"))
        }
    }

    private mutating func fail(_ error: HTTP1ParseError) -> HTTP1ParseError {
        state = .failed(error)
        return error
    }

    private mutating func headComplete(_ events: inout [HTTP1ClientEvent]) throws(HTTP1ParseError) {
        let lines = try headBuffer.lines()
        headBuffer.reset()
        let (version, status, reason) = try HTTP1Grammar.statusLine(lines[0])
        let head = HTTPResponseHead(
            version: version, status: status, reason: reason,
            headers: try HTTP1Grammar.fields(lines[1...]))
        if (100..<200).contains(status) {
            // netbench never asks to switch protocols over HTTP/1.1.
            guard status != 101 else { throw HTTP1ParseError(.unexpectedStatus, "101 Switching Protocols") }
            events.append(.informational(head))
            return
        }
        let toHEAD = pendingHEAD.isEmpty ? false : pendingHEAD.removeFirst()
        let framing = try HTTP1BodyFraming.ofResponse(head, toHEAD: toHEAD)
        events.append(.head(head))
        switch framing {
        case .none: responseComplete(&events, keepAlive: head.keepAlive)
        case .length(let n): state = .body(remaining: n, keepAlive: head.keepAlive)
        case .chunked: state = .chunked(ChunkedBodyDecoder(), keepAlive: head.keepAlive)
        case .untilClose: state = .untilClose
        }
    }

    private mutating func responseComplete(_ events: inout [HTTP1ClientEvent], keepAlive: Bool) {
        events.append(.end(keepAlive: keepAlive))
        state = .head
    }
}
