import BenchCore
import HTTPCodec

/// HTTP/2 server side of one TLS connection over nghttp2: every request is answered after its think
/// time on its own stream; nghttp2 interleaves the DATA frames and enforces flow control.
final class H2ServerSession: ServerSession {
    private let stream: SecureStream
    private let loop: EventLoop
    private let handler: RequestHandler
    private let counters: CounterUpdate
    private let h2: HTTP2Connection
    private var outbound: UnsafeMutableRawBufferPointer
    /// Requests whose body is still arriving: answered at the end of their stream.
    private var receiving: [Int32: (head: HTTPRequestHead, bodyBytes: Int64)] = [:]
    /// Streams whose request arrived and that are not closed yet (for the idle timeout); a `StreamTable`
    /// (a `Set` hashed each id with SipHash, twice a request).
    private var open = StreamTable<Bool>()
    private let activity: ConnectionActivity

    init(
        stream: SecureStream, loop: EventLoop, handler: @escaping RequestHandler, counters: @escaping CounterUpdate,
        limits: HTTP2Limits = HTTP2Limits(), activity: ConnectionActivity = ConnectionActivity(accepted: .now())
    ) throws {
        self.stream = stream
        self.loop = loop
        self.handler = handler
        self.counters = counters
        self.activity = activity
        h2 = try HTTP2Connection(role: .server, settings: .defaultServer, limits: limits)
        outbound = .allocate(byteCount: 64 * 1024, alignment: 16)
        stream.onPlaintext = { [weak self] bytes, _ in self?.received(bytes) }
        stream.onWritable = { [weak self] in self?.pump() }
        pump()
    }

    deinit { outbound.deallocate() }

    func abort() { stream.abort() }

    private func received(_ bytes: UnsafeRawBufferPointer) {
        let events: [HTTP2Event]
        do { events = try h2.receive(bytes) } catch {
            counters { $0.malformed += 1 }
            pump()
            stream.close()
            return
        }
        for event in events {
            switch event {
            case .request(let id, let head, let endStream):
                activity.sawRequest = true
                if !open.contains(id) {
                    open[id] = true
                    activity.requestsInFlight += 1
                }
                if endStream { answer(id, head, bodyBytes: 0) } else { receiving[id] = (head, 0) }
            case .data(let id, let count, let endStream):
                receiving[id]?.bodyBytes += Int64(count)
                if endStream, let (head, bytes) = receiving.removeValue(forKey: id) {
                    answer(id, head, bodyBytes: bytes)
                }
            case .streamClosed(let id, _):
                if !receiving.isEmpty { receiving[id] = nil }
                streamEnded(id)
            default:
                break
            }
        }
        flushCounts()
        pump()
    }

    /// Counts not yet added to the server's: one update per batch of requests, not two per request.
    private var uncountedRequests = 0
    private var uncountedBodyBytes: Int64 = 0

    private func flushCounts() {
        guard uncountedRequests > 0 || uncountedBodyBytes > 0 else { return }
        let (requests, bytes) = (uncountedRequests, uncountedBodyBytes)
        uncountedRequests = 0
        uncountedBodyBytes = 0
        counters {
            $0.requests += requests
            $0.bodyBytesSent += bytes
        }
    }

    private func streamEnded(_ id: Int32) {
        guard open.removeValue(forKey: id) != nil else { return }
        activity.requestsInFlight -= 1
        if activity.requestsInFlight == 0 { activity.idleSince = .now() }
    }

    /// The last request's authority and its host: a connection's requests nearly always name the same.
    private var lastAuthority = ""
    private var lastHost = ""

    private func host(of authority: String) -> String {
        if authority != lastAuthority {
            lastAuthority = authority
            lastHost = hostOnly(authority)
        }
        return lastHost
    }

    private func answer(_ id: Int32, _ head: HTTPRequestHead, bodyBytes: Int64) {
        do {
            uncountedRequests += 1
            let req = ServerRequest(
                method: head.method, path: head.target, authority: host(of: head.authority ?? head.host ?? ""),
                headers: head.headers.pairs, httpProtocol: "h2", bodyBytes: bodyBytes)
            let response = handler(req)
            guard response.delay > 0 else { return submit(id, response) }  // received() pumps after the batch
            loop.schedule(after: response.delay) { [weak self] in
                self?.submit(id, response)
                self?.flushCounts()
                self?.pump()
            }
        }
    }

    private func submit(_ id: Int32, _ response: ServerResponse) {
        try? h2.submitResponse(
            stream: id, status: response.status, fields: response.headers,
            bodyLength: response.bodyLength, prefix: response.prefix, suffix: response.suffix)
        uncountedBodyBytes += response.bodyLength
    }

    /// Whether a response's head goes out at the end of its TLS record (each `write` ends one), or
    /// in a record that fits one packet with the frames after it: never behind bytes it must wait for.
    private var endsRecordAfterHeaders: Bool { stream.recordSizer?.policy.endsRecordAfterHeaders ?? false }
    private var sharedHeaderRecord: Int { stream.recordSizer?.policy.sharedHeaderRecord ?? 0 }

    /// Moves frames from nghttp2 to TLS while the socket keeps up.
    private func pump() {
        // With late binding, take no more than may wait unsent: the rest stays in nghttp2, where a
        // more urgent stream can still overtake it. Sized once per pump (one TCP_INFO read), not per frame.
        var failed = false
        var full = true
        // A batch stops at the limit; once flushed (outside an event-loop turn) the kernel may have
        // room again at once, and nothing else would wake this pump: go on until nghttp2 has nothing
        // ready or the kernel holds the limit (then `waitForRoom`). Each round writes ≥ the limit.
        while full && stream.phase == .open && h2.wantsWrite {
            // `stream.acceptsMore`, with the limit read once (an ioctl with late binding) for the round.
            let limit = stream.acceptanceLimit()
            guard stream.backlog < limit else { break }
            full = false
            let room =
                stream.lateBindingChunk.map {
                    UnsafeMutableRawBufferPointer(rebasing: outbound[0..<min(outbound.count, $0)])
                } ?? outbound
            stream.batched {
                while stream.phase == .open && h2.wantsWrite {
                    if stream.backlog >= limit { full = true; break }
                    let n: Int
                    do {
                        n = try h2.takeOutbound(
                            into: room, endingAtHeaderBlock: endsRecordAfterHeaders,
                            sharedHeaderRecord: sharedHeaderRecord)
                    } catch { failed = true; return }
                    if n == 0 { break }
                    stream.write(UnsafeRawBufferPointer(rebasing: outbound[0..<n]))
                }
            }
            if failed { break }
        }
        if failed { stream.close(); return }
        settleSentStreams()
        // Stopped by late binding with frames to send: resume when the kernel drains.
        if stream.phase == .open && h2.wantsWrite && !stream.acceptsMore { stream.waitForRoom() }
        if !h2.wantsRead && !h2.wantsWrite { stream.close() }
    }

    /// Streams that closed as their last frame went out end their time in flight now, not at the
    /// client's next frame (a client that goes quiet would otherwise never count as idle).
    private func settleSentStreams() {
        for case .streamClosed(let id, _) in h2.takeEvents() {
            if !receiving.isEmpty { receiving[id] = nil }
            streamEnded(id)
        }
    }
}
