/// What the server side of an HTTP/1.x connection learns from the bytes it reads.
public enum HTTP1ServerEvent: Sendable, Equatable {
    /// A complete request head. Its `keepAlive` tells whether the connection persists.
    case request(HTTPRequestHead)
    /// `count` bytes of request body arrived (counted, not kept).
    case body(count: Int)
    /// The request message is complete; every `.request` is followed by exactly one `.end`.
    case end
    /// The input is not HTTP/1.x: answer `error.responseStatus` and close. Nothing follows.
    case malformed(HTTP1ParseError)
}

/// Incremental parser of HTTP/1.0 and HTTP/1.1 requests: bytes in, events out, no I/O.
///
/// Pipelined requests in one read come out as consecutive events, and bytes are never taken
/// from the next request as body. After a request that ends the connection (`Connection:
/// close`, HTTP/1.0 without keep-alive) or after `.malformed`, the parser is `isClosed` and
/// ignores further input: the server answers what it has and closes.
public struct HTTP1RequestParser: Sendable {
    public static let defaultMaxHeadBytes = 64 * 1024

    private enum State: Sendable {
        case head
        case body(remaining: Int64)
        case chunked(ChunkedBodyDecoder)
        case closed
    }

    private var state = State.head
    private var headBuffer: HTTP1HeadBuffer
    private var keepAlive = true

    /// - Parameter maxHeadBytes: the largest request line + header block accepted (64 KiB).
    public init(maxHeadBytes: Int = HTTP1RequestParser.defaultMaxHeadBytes) {
        headBuffer = HTTP1HeadBuffer(limit: maxHeadBytes)
    }

    /// Whether no further request will be parsed on this connection.
    public var isClosed: Bool { if case .closed = state { true } else { false } }

    /// Whether part of a request has been read but not yet reported complete: a peer that
    /// closes now has cut a request short (the server just closes too).
    public var isMidRequest: Bool {
        switch state {
        case .head: !headBuffer.isEmpty
        case .body, .chunked: true
        case .closed: false
        }
    }

    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [HTTP1ServerEvent] {
        var events: [HTTP1ServerEvent] = []
        var index = 0
        do throws(HTTP1ParseError) {
            while index < bytes.count {
                let rest = UnsafeRawBufferPointer(rebasing: bytes[index...])
                switch state {
                case .head:
                    let (consumed, complete) = try headBuffer.append(rest)
                    index += consumed
                    if complete { try headComplete(&events) }
                case .body(let remaining):
                    let n = Int(min(Int64(rest.count), remaining))
                    index += n
                    events.append(.body(count: n))
                    if remaining == Int64(n) {
                        messageComplete(&events)
                    } else {
                        state = .body(remaining: remaining - Int64(n))
                    }
                case .chunked(var decoder):
                    let (consumed, data, finished) = try decoder.decode(rest)
                    index += consumed
                    if data > 0 { events.append(.body(count: data)) }
                    if finished { messageComplete(&events) } else { state = .chunked(decoder) }
                case .closed:
                    return events
                }
            }
        } catch {
            state = .closed
            events.append(.malformed(error))
        }
        return events
    }

    private mutating func headComplete(_ events: inout [HTTP1ServerEvent]) throws(HTTP1ParseError) {
        let lines = try headBuffer.lines()
        headBuffer.reset()
        let (method, target, version) = try HTTP1Grammar.requestLine(lines[0])
        let headers = try HTTP1Grammar.fields(lines[1...])
        // RFC 9112 §3.2: exactly one Host in HTTP/1.1, at most one in HTTP/1.0.
        let hosts = headers.values(for: "host").count
        guard hosts <= 1, hosts == 1 || version == .http1_0 else {
            throw HTTP1ParseError(.badHeaderLine, hosts == 0 ? "HTTP/1.1 request without Host" : "\(hosts) Host fields")
        }
        let head = HTTPRequestHead(method: method, target: target, version: version, headers: headers)
        let framing = try HTTP1BodyFraming.ofRequest(head)
        keepAlive = head.keepAlive
        events.append(.request(head))
        switch framing {
        case .none, .untilClose: messageComplete(&events)
        case .length(let n): state = .body(remaining: n)
        case .chunked: state = .chunked(ChunkedBodyDecoder())
        }
    }

    private mutating func messageComplete(_ events: inout [HTTP1ServerEvent]) {
        events.append(.end)
        state = keepAlive ? .head : .closed
    }
}
