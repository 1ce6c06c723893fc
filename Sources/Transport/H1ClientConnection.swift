import BenchCore
import SystemIO
import TLS
import HTTPCodec

/// HTTP/1.1 over TLS, one request at a time (no pipelining, as browsers), kept alive between requests.
final class H1ClientConnection: ClientConnection {
    private(set) var info: ConnectionInfo
    private let stream: SecureStream
    private var parser = HTTP1ResponseParser()
    private var current: (ClientRequest, (ClientEvent) -> Void)?
    private var inFlight = false
    private var bodyRemaining: Int64 = 0
    /// The request body's given bytes (`ClientRequest.body`), sent before any filler.
    private var bodyPrefix: [UInt8] = []
    private var closed = false
    var onStateChange: (() -> Void)?
    var bytesAcknowledged: Int64? { stream.bytesAcknowledged }

    init(
        loop: EventLoop, remote: Endpoint, local: Endpoint?, serverName: String, tls: TLSClientContext,
        tcp: Socket.TCPOptions
    ) throws {
        info = ConnectionInfo(kind: .h1, connectStart: Instant.now(), remote: remote)
        stream = try SecureStream.connectClient(
            loop: loop, remote: remote, local: local, serverName: serverName,
            tls: tls, tcp: tcp, info: &info)
        stream.onConnected = { [weak self] t in
            guard let self else { return }
            self.info.connectEnd = t
            self.info.ecnNegotiated = Socket.ecnNegotiated(self.stream.fd)
        }
        stream.onHandshake = { [weak self] t in self?.handshakeDone(t) }
        stream.onPlaintext = { [weak self] bytes, t in self?.received(bytes, t) }
        stream.onClose = { [weak self] reason in self?.closedBy(reason) }
        stream.onWritable = { [weak self] in self?.sendBody() }
    }

    var isUsable: Bool { !closed }
    var freeSlots: Int { closed || current != nil ? 0 : 1 }

    func send(_ request: ClientRequest, _ events: @escaping (ClientEvent) -> Void) {
        precondition(current == nil, "HTTP/1.1 carries one request at a time")
        current = (request, events)
        if info.handshakeEnd != nil { transmit() }
    }

    func networkChanged(_ change: NetworkChange) {
        guard change.abortTCP, !closed else { return }
        stream.abort(info.abortReason(change))
    }

    func close() {
        guard !closed else { return }
        stream.close()
    }

    private func handshakeDone(_ t: Instant) {
        info.recordHandshake(of: stream, at: t)
        if current != nil { transmit() }
        onStateChange?()
    }

    private func transmit() {
        guard let (req, events) = current, !inFlight else { return }
        inFlight = true
        parser.expectResponse(toMethod: req.method)
        var headers = HTTPHeaders(req.headers)
        if req.bodyLength > 0 { headers.add(name: "Content-Length", value: String(req.bodyLength)) }
        let head = HTTP1Serializer.requestHead(
            method: req.method, target: req.path, host: req.authority, headers: headers)
        stream.write(head)
        events(.sent(Instant.now()))
        bodyRemaining = req.bodyLength
        bodyPrefix = req.body
        sendBody()
    }

    /// Streams the request body as filler while the socket keeps up.
    private func sendBody() {
        while bodyRemaining > 0 && stream.phase == .open && stream.backlog < 256 * 1024 {
            let at = Int(current.map { $0.0.bodyLength } ?? 0) - Int(bodyRemaining)
            if at < bodyPrefix.count {
                let n = min(Int(bodyRemaining), bodyPrefix.count - at)
                let sent = bodyPrefix.withUnsafeBytes {
                    stream.write(UnsafeRawBufferPointer(rebasing: $0[at..<(at + n)]))
                }
                if sent <= 0 { return }
                bodyRemaining -= Int64(sent)
                continue
            }
            let n = Int(min(bodyRemaining, Int64(Filler.chunk.count)))
            let sent = Filler.chunk.withUnsafeBytes { stream.write(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            if sent <= 0 { return }
            bodyRemaining -= Int64(sent)
        }
    }

    private func received(_ bytes: UnsafeRawBufferPointer, _ t: Instant) {
        guard let (_, events) = current else { return }
        let out: [HTTP1ClientEvent]
        do { out = try parser.feed(bytes) } catch {
            fail("HTTP/1.1 response: \(error)", t)
            return
        }
        for e in out {
            switch e {
            case .informational: break
            case .head(let h): events(.head(status: h.status, headers: h.headers.pairs, t))
            case .body(let n): events(.data(count: n, t))
            case .end(let keepAlive):
                current = nil
                inFlight = false
                events(.end(t))
                if !keepAlive { close() }
                onStateChange?()
                return
            }
        }
    }

    private func fail(_ reason: String, _ t: Instant) {
        let cb = current?.1
        current = nil
        inFlight = false
        stream.abort(reason)
        cb?(.failed(reason, t))
    }

    private func closedBy(_ reason: String?) {
        let t = Instant.now()
        closed = true
        info.closedAt = t
        if let reason, info.error == nil { info.error = reason }
        if let (_, events) = current {
            current = nil
            // A close-delimited body ends here; anything else is a failure.
            if let done = try? parser.finish(),
                done.contains(where: { if case .end = $0 { return true } else { return false } })
            {
                events(.end(t))
            } else {
                events(.failed(reason ?? "connection closed before the response ended", t))
            }
        }
        onStateChange?()
    }
}
