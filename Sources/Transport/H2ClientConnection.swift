import BenchCore
import SystemIO
import TLS
import HTTPCodec

/// HTTP/2 over TLS: one connection per origin carrying every request concurrently (up to the
/// server's stream limit), with Chrome-like windows.
final class H2ClientConnection: ClientConnection {
    private(set) var info: ConnectionInfo
    private let stream: SecureStream
    private let h2: HTTP2Connection
    private var queued: [(ClientRequest, (ClientEvent) -> Void)] = []
    private var active = StreamTable<(ClientEvent) -> Void>()
    private var closed = false
    private var chain = PriorityChain()
    private var outbound: UnsafeMutableRawBufferPointer
    var onStateChange: (() -> Void)?
    var bytesAcknowledged: Int64? { stream.bytesAcknowledged }

    init(
        loop: EventLoop, remote: Endpoint, local: Endpoint?, serverName: String, tls: TLSClientContext,
        tcp: Socket.TCPOptions, unsentLimit: Int? = nil, responseFields: Bool = true
    ) throws {
        info = ConnectionInfo(kind: .h2, connectStart: Instant.now(), remote: remote)
        h2 = try HTTP2Connection(role: .client, settings: .chromeClient)
        h2.decodesRegularFields = responseFields
        outbound = .allocate(byteCount: 64 * 1024, alignment: 16)
        stream = try SecureStream.connectClient(
            loop: loop, remote: remote, local: local, serverName: serverName,
            tls: tls, tcp: tcp, info: &info)
        if let unsentLimit { stream.limitUnsent(to: unsentLimit) }
        stream.onConnected = { [weak self] t in
            guard let self else { return }
            self.info.connectEnd = t
            self.info.ecnNegotiated = Socket.ecnNegotiated(self.stream.fd)
        }
        stream.onHandshake = { [weak self] t in self?.handshakeDone(t) }
        stream.onPlaintext = { [weak self] bytes, t in self?.received(bytes, t) }
        stream.onWritable = { [weak self] in self?.pump() }
        stream.onClose = { [weak self] reason in self?.closedBy(reason) }
    }

    deinit { outbound.deallocate() }

    var isUsable: Bool { !closed }
    /// HTTP/2 multiplexes: nghttp2 itself holds requests beyond the peer's stream limit.
    var freeSlots: Int { closed ? 0 : 1000 }

    /// Requests sent in one event-loop turn are submitted together at its end (`runAfterIO`), so
    /// their HEADERS frames leave in one TLS record and one write, as a browser's network stack
    /// batches the requests one task discovers (h2load does the same), not one record each.
    func send(_ request: ClientRequest, _ events: @escaping (ClientEvent) -> Void) {
        queued.append((request, events))
        guard info.handshakeEnd != nil, !submitScheduled else { return }
        submitScheduled = true
        stream.loop.runAfterIO { [weak self] in
            guard let self else { return }
            self.submitScheduled = false
            if !self.closed { self.submitQueued() }
        }
    }

    private var submitScheduled = false

    func networkChanged(_ change: NetworkChange) {
        guard change.abortTCP, !closed else { return }
        stream.abort(info.abortReason(change))
    }

    func close() {
        guard !closed else { return }
        try? h2.submitGoAway()
        pump()
        stream.close()
    }

    private func handshakeDone(_ t: Instant) {
        info.recordHandshake(of: stream, at: t)
        guard info.alpn == "h2" else {
            stream.abort("server did not negotiate h2 (ALPN: \(info.alpn ?? "none"))")
            return
        }
        submitQueued()
        onStateChange?()
    }

    private func submitQueued() {
        var batch: [(ClientRequest, (ClientEvent) -> Void)] = []
        swap(&batch, &queued)
        submitted.removeAll(keepingCapacity: true)
        for (req, events) in batch {
            do {
                // nghttp2 numbers streams at submission, so the chain takes the next id first.
                let next = h2.nextStreamID
                let priority = req.priority.map { chain.opening(next, priority: $0) }
                let id = try h2.submitRequest(
                    method: req.method, authority: req.authority, path: req.path,
                    headers: HTTPHeaders(req.headers), priority: priority, bodyLength: req.bodyLength,
                    prefix: req.body)
                precondition(priority == nil || id == next, "nghttp2 numbered stream \(id), expected \(next)")
                active[id] = events
                submitted.append(id)
            } catch {
                events(.failed("HTTP/2 submit: \(error)", Instant.now()))
            }
        }
        pump()
        // Requests count as sent once their HEADERS frames are handed to TLS.
        let now = Instant.now()
        for id in submitted { active[id]?(.sent(now)) }
        batch.removeAll(keepingCapacity: true)
        if queued.isEmpty { swap(&batch, &queued) }  // keep the storage for the next batch
    }

    /// The streams of the batch being submitted (reused).
    private var submitted: [Int32] = []

    private func received(_ bytes: UnsafeRawBufferPointer, _ t: Instant) {
        let events: [HTTP2Event]
        do { events = try h2.receive(bytes) } catch {
            fail("HTTP/2: \(error)")
            return
        }
        handle(events, t)
        handle(h2.takeEvents(), t)
        pump()
    }

    private func handle(_ events: [HTTP2Event], _ t: Instant) {
        for e in events {
            switch e {
            case .response(let id, let status, let headers, let endStream):
                active[id]?(.head(status: status, headers: headers.pairs, t))
                if endStream { finish(id, t) }
            case .data(let id, let count, let endStream):
                if count > 0 { active[id]?(.data(count: count, t)) }
                if endStream { finish(id, t) }
            case .streamClosed(let id, let code):
                chain.closed(id)
                if let cb = active.removeValue(forKey: id) {
                    cb(code == .noError ? .end(t) : .failed("HTTP/2 stream reset: \(code)", t))
                }
            case .goAway(_, let code, let debug):
                if code != .noError { fail("HTTP/2 GOAWAY \(code) \(debug)") }
            case .connectionError(let code, let reason):
                fail("HTTP/2 connection error \(code): \(reason)")
            default:
                break
            }
        }
    }

    private func finish(_ id: Int32, _ t: Instant) {
        if let cb = active.removeValue(forKey: id) { cb(.end(t)) }
        onStateChange?()
    }

    /// Moves frames from nghttp2 to TLS while the socket keeps up; with late binding, only while
    /// fewer than the limit wait unsent (then it resumes when the kernel drains).
    private func pump() {
        while stream.phase == .open && stream.backlog < 256 * 1024 && h2.wantsWrite && stream.acceptsMore {
            let room =
                stream.unsentLimit.map {
                    UnsafeMutableRawBufferPointer(rebasing: outbound[0..<min(outbound.count, $0)])
                } ?? outbound
            let n: Int
            do { n = try h2.takeOutbound(into: room) } catch { fail("HTTP/2: \(error)"); return }
            if n == 0 { break }
            stream.write(UnsafeRawBufferPointer(rebasing: outbound[0..<n]))
        }
        if stream.phase == .open && h2.wantsWrite && !stream.acceptsMore { stream.waitForRoom() }
    }

    private func fail(_ reason: String) {
        if info.error == nil { info.error = reason }
        stream.abort(reason)
    }

    private func closedBy(_ reason: String?) {
        let t = Instant.now()
        closed = true
        info.closedAt = t
        if let reason, info.error == nil { info.error = reason }
        let pending = active.entries.map { $0.value } + queued.map { $0.1 }
        active.removeAll()
        queued.removeAll()
        for cb in pending { cb(.failed(reason ?? "connection closed with the response incomplete", t)) }
        onStateChange?()
    }
}
