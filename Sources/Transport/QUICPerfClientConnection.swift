import BenchCore
import SystemIO
import QUIC

/// A QUIC perf client (draft-banks-quic-performance-00) behind the `ClientConnection` protocol, so
/// that `netbench load` drives raw QUIC streams as it drives HTTP requests: one UDP socket per
/// connection on the caller's event loop (datagrams in → `receive`, then `write`; the engine's
/// `expiry` arms a loop timer), one bidirectional stream per request.
///
/// A request's path names the size it asks for: `/N` asks the server for N bytes (the 8-byte size,
/// then `bodyLength` upload bytes, then FIN). The perf protocol has no status: a stream the server
/// ends with FIN is reported as status 200 and its byte count is the caller's to check; a stream
/// reset or a connection's end fails the request.
public final class QUICPerfClientConnection: ClientConnection {
    private var state: ConnectionInfo
    /// Timestamps and facts, with the engine's statistics as of now (frozen at close). `kind` is
    /// `.h3` (QUIC; no page load uses this connection) and `alpn` says "perf".
    public var info: ConnectionInfo {
        if !closed { snapshot() }
        return state
    }
    private let loop: EventLoop
    private let fd: FileDescriptor
    private let local: Endpoint
    private let client: QUICPerfClient
    private let congestionControl: String
    /// A request on its way: its callback, whether its head was reported, the bytes reported so far.
    private struct Pending {
        let events: (ClientEvent) -> Void
        var head = false
        var reported: Int64 = 0
    }
    private var requests: [Int: Pending] = [:]
    private var timer: EventLoop.TimerID?
    private var closed = false
    private var receiveBuffer: UnsafeMutableRawBufferPointer
    private var io = DatagramIO()
    public var onStateChange: (() -> Void)?
    public var bytesAcknowledged: Int64? { nil }

    /// Binds a UDP socket (to `local` when given, in the caller's network namespace) and starts the
    /// handshake with `remote`, checking its certificate for `serverName` against `trustedRootsPEM`.
    public init(
        loop: EventLoop, remote: Endpoint, local: Endpoint?, serverName: String, trustedRootsPEM: String,
        config: QUICConfiguration
    ) throws {
        self.loop = loop
        state = ConnectionInfo(kind: .h3, connectStart: Instant.now(), remote: remote)
        let bindTo =
            local
            ?? Endpoint(address: remote.address == Endpoint.loopbackAddress ? Endpoint.loopbackAddress : 0, port: 0)
        (fd, self.local) = try Socket.bindUDP(bindTo)
        state.local = self.local
        congestionControl = config.congestionControl.rawValue
        io.marksECN = config.ecn
        receiveBuffer = .allocate(byteCount: 65536, alignment: 16)
        do {
            client = try QUICPerfClient(
                config: config, trustedRootsPEM: trustedRootsPEM, serverName: serverName,
                local: self.local, remote: remote, now: Instant.now())
        } catch {
            Socket.close(fd)
            receiveBuffer.deallocate()
            throw error
        }
        // Initialized from here: a throw runs deinit, which closes the socket.
        DatagramIO.prepare(fd)
        try loop.register(fd, .read) { [weak self] _ in self?.readable() }
        flush()
    }

    deinit {
        receiveBuffer.deallocate()
        if !closed { loop.unregister(fd); Socket.close(fd) }
    }

    public var isUsable: Bool { !closed }
    /// The caller caps streams per connection; the client queues beyond the server's stream limit.
    public var freeSlots: Int { closed ? 0 : 1000 }

    /// Perf connections stay on their path (no load moves its client).
    public func networkChanged(_ change: NetworkChange) {}

    /// The size a request's path asks for: `/N` with N a whole number of bytes.
    public static func requestedSize(_ path: String) -> Int64? {
        guard path.hasPrefix("/"), let n = Int64(path.dropFirst()), n >= 0 else { return nil }
        return n
    }

    public func send(_ request: ClientRequest, _ events: @escaping (ClientEvent) -> Void) {
        guard !closed else { return events(.failed("the perf connection is closed", Instant.now())) }
        guard let size = Self.requestedSize(request.path) else {
            return events(.failed("perf: path '\(request.path)' does not name a size (/N bytes)", Instant.now()))
        }
        let ticket = client.request(download: size, upload: max(0, request.bodyLength))
        requests[ticket] = Pending(events: events)
        flush()
    }

    public func close() {
        guard !closed else { return }
        client.close(now: Instant.now()) { bytes, remote, _ in _ = try? Socket.sendDatagram(fd, bytes, to: remote) }
        finish(reason: nil)
    }

    private func readable() {
        var arrived: [QUICPerfClient.Event] = []
        DatagramIO.receive(fd, into: receiveBuffer) { datagram, from, arrival, ecn in
            guard !closed else { return false }
            arrived += client.receive(
                datagram, local: local, remote: from, now: Instant.now(), arrival: arrival, ecn: ecn)
            return true
        }
        // ACKs (and the streams of requests already queued) leave before the caller reacts.
        flush()
        handle(arrived, Instant.now())
    }

    /// Lets the engine send (opening queued streams), then re-arms the timer.
    private func flush() {
        guard !closed else { return }
        let now = Instant.now()
        let events = client.writeBatched(now: now) { bytes, segmentSize, remote, _, ecn in
            io.send(fd, bytes, segmentSize: segmentSize, to: remote, ecn: ecn)
        }
        handle(events, now)
        guard !closed else { return }
        loop.cancel(timer)
        if let e = client.expiry {
            timer = loop.schedule(at: e) { [weak self] in
                guard let self, !self.closed else { return }
                self.timer = nil
                self.handle(self.client.handleExpiry(now: Instant.now()), Instant.now())
                self.flush()
            }
        }
    }

    private func handle(_ events: [QUICPerfClient.Event], _ t: Instant) {
        for e in events {
            switch e {
            case .handshakeCompleted:
                state.handshakeEnd = client.handshakeCompletedAt ?? t
                state.alpn = QUICPerf.alpn
                state.tlsVersion = "1.3"
                onStateChange?()
            case .started(let ticket, _):
                requests[ticket]?.events(.sent(t))
            case .progress(let ticket, let n):
                head(ticket, t)
                requests[ticket]?.reported += Int64(n)
                requests[ticket]?.events(.data(count: n, t))
            case .finished(let ticket, let received, _):
                // The bytes of the datagrams that brought the FIN come only in `received`, the stream's total.
                head(ticket, t)
                guard let r = requests.removeValue(forKey: ticket) else { continue }
                if received > r.reported { r.events(.data(count: Int(received - r.reported), t)) }
                r.events(.end(t))
            case .reset(let ticket, let code):
                let why = "perf stream reset (application error \(code))"
                requests.removeValue(forKey: ticket)?.events(.failed(why, t))
            case .closed(let error):
                finish(reason: "\(error)")
                return
            }
        }
    }

    private func head(_ ticket: Int, _ t: Instant) {
        guard let r = requests[ticket], !r.head else { return }
        requests[ticket]!.head = true
        r.events(.head(status: 200, headers: [], t))
    }

    private func finish(reason: String?) {
        guard !closed else { return }
        closed = true
        snapshot()
        let now = Instant.now()
        state.closedAt = now
        if let reason, state.error == nil { state.error = reason }
        loop.cancel(timer)
        loop.unregister(fd)
        Socket.close(fd)
        let pending = requests.values.map(\.events)
        requests.removeAll()
        for cb in pending { cb(.failed(reason ?? "connection closed with the perf response incomplete", now)) }
        onStateChange?()
    }

    private func snapshot() {
        state.quic = QUICSnapshot(client.statistics, congestionControl: congestionControl, localPaths: [local])
    }
}
