import BenchCore
import HTTPCodec

/// HTTP/1.1 server side of one TLS connection: keep-alive, pipelined requests answered in order,
/// think time honoured, bodies streamed as filler with backpressure, 400 and close on bad input.
final class H1ServerSession: ServerSession {
    private let stream: SecureStream
    private let loop: EventLoop
    private let handler: RequestHandler
    private let counters: CounterUpdate
    private var parser: HTTP1RequestParser
    private let activity: ConnectionActivity
    private var queue: [Pending] = []
    private var stopParsing = false
    private var current: (head: HTTPRequestHead, bodyBytes: Int64)?

    private final class Pending {
        var response: ServerResponse
        var ready: Bool
        var headSent = false
        var remaining: Int64
        var keepAlive: Bool
        init(response: ServerResponse, keepAlive: Bool) {
            self.response = response
            self.ready = response.delay <= 0
            self.remaining = response.bodyLength
            self.keepAlive = keepAlive && !response.closeConnection
        }
    }

    /// - Parameter maxHeadBytes: the largest request head accepted (431 beyond).
    init(
        stream: SecureStream, loop: EventLoop, handler: @escaping RequestHandler, counters: @escaping CounterUpdate,
        maxHeadBytes: Int = HTTP1RequestParser.defaultMaxHeadBytes,
        activity: ConnectionActivity = ConnectionActivity(accepted: .now())
    ) {
        self.parser = HTTP1RequestParser(maxHeadBytes: maxHeadBytes)
        self.activity = activity
        self.stream = stream
        self.loop = loop
        self.handler = handler
        self.counters = counters
        stream.onPlaintext = { [weak self] bytes, _ in self?.received(bytes) }
        stream.onWritable = { [weak self] in self?.pump() }
    }

    func abort() { stream.abort() }

    private func received(_ bytes: UnsafeRawBufferPointer) {
        guard !stopParsing else { return }
        for event in parser.feed(bytes) {
            switch event {
            case .request(let head):
                current = (head, 0)
                activity.sawRequest = true
                activity.requestsInFlight += 1
            case .body(let n):
                current?.bodyBytes += Int64(n)
            case .end:
                // Answered once the whole request (an upload's body too) has arrived.
                guard let (head, bodyBytes) = current else { break }
                current = nil
                counters { $0.requests += 1 }
                let req = ServerRequest(
                    method: head.method, path: head.target, authority: hostOnly(head.host ?? ""),
                    headers: head.headers.pairs, httpProtocol: "http/1.1",
                    bodyBytes: bodyBytes)
                let p = Pending(response: handler(req), keepAlive: head.keepAlive)
                queue.append(p)
                if !p.ready {
                    loop.schedule(after: p.response.delay) { [weak self, p] in
                        p.ready = true; self?.pump()
                    }
                }
                if !p.keepAlive { stopParsing = true }
            case .malformed(let error):
                counters { $0.malformed += 1 }
                activity.requestsInFlight += 1
                let status = error.kind == .unsupportedVersion ? 505 : error.kind == .headerTooLarge ? 431 : 400
                queue.append(
                    Pending(
                        response: ServerResponse(
                            status: status, headers: [("content-type", "text/plain")],
                            bodyLength: 0, closeConnection: true), keepAlive: false))
                stopParsing = true
            }
            if stopParsing { break }
        }
        // A head being read (not a body) runs against the header timeout from its first byte.
        if !stopParsing && parser.isMidRequest && current == nil {
            if activity.headStarted == nil { activity.headStarted = .now() }
        } else {
            activity.headStarted = nil
        }
        pump()
    }

    /// Writes the head of the queue: its head once ready, then body chunks while the socket keeps up.
    private func pump() {
        while let p = queue.first, p.ready {
            if !p.headSent {
                var contentRange: HTTPContentRange?
                if let cr = p.response.headers.first(where: { $0.0.lowercased() == "content-range" }) {
                    contentRange = HTTPContentRange(headerValue: cr.1)
                }
                let head = HTTP1Serializer.responseHead(
                    status: p.response.status, contentLength: p.response.bodyLength,
                    contentRange: contentRange, keepAlive: p.keepAlive,
                    headers: HTTPHeaders(p.response.headers))
                stream.write(head)
                p.headSent = true
            }
            while p.remaining > 0 {
                guard stream.backlog < 256 * 1024, stream.phase == .open else { return }
                let sent = writeBody(p.response, from: p.response.bodyLength - p.remaining, upTo: p.remaining)
                if sent <= 0 { return }
                p.remaining -= Int64(sent)
                counters { $0.bodyBytesSent += Int64(sent) }
            }
            queue.removeFirst()
            activity.requestsInFlight -= 1
            if activity.requestsInFlight == 0 { activity.idleSince = .now() }
            if !p.keepAlive { stream.close(); return }
        }
    }
}

extension H1ServerSession {
    /// Writes body bytes from `offset` on (at most `limit`): the response's prefix, filler, then its suffix.
    private func writeBody(_ r: ServerResponse, from offset: Int64, upTo limit: Int64) -> Int {
        let suffixStart = r.bodyLength - Int64(r.suffix.count)
        if offset < Int64(r.prefix.count) {
            let o = Int(offset)
            return r.prefix.withUnsafeBytes {
                stream.write(UnsafeRawBufferPointer(rebasing: $0[o..<min(r.prefix.count, o + 64 * 1024)]))
            }
        }
        if offset >= suffixStart {
            let o = Int(offset - suffixStart)
            return r.suffix.withUnsafeBytes { stream.write(UnsafeRawBufferPointer(rebasing: $0[o...])) }
        }
        let n = Int(min(limit, suffixStart - offset, Int64(Filler.chunk.count)))
        return Filler.chunk.withUnsafeBytes { stream.write(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
    }
}

func hostOnly(_ authority: String) -> String {
    // Per request on the server's hot path: one scan of the bytes, no Substring (~500 instructions).
    var bytes = authority
    return bytes.withUTF8 { b in
        guard b.first != UInt8(ascii: "["), let colon = b.firstIndex(of: UInt8(ascii: ":")) else { return authority }
        return String(decoding: UnsafeBufferPointer(rebasing: b[..<colon]), as: UTF8.self)
    }
}
