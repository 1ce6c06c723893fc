import BenchCore
import SystemIO
import TLS

/// HTTP/1.1 and HTTP/2 over TLS on one TCP listener; ALPN picks the protocol per connection.
/// A failing connection (bad TLS, malformed HTTP) is closed alone; the server carries on.
public final class TCPServer {
    public let endpoint: Endpoint
    private let loop: EventLoop
    private let listener: FileDescriptor
    private let tlsContext: TLSServerContext
    private let handler: RequestHandler
    private var sessions: [Int32: AnyObject] = [:]
    private var activity: [Int32: ConnectionActivity] = [:]
    private var pendingHandshakes = 0
    private var sweepTimer: EventLoop.TimerID?
    private var isClosed = false
    public private(set) var counters = ServerCounters()
    /// What one client may cost (connections, timeouts, HTTP/2 floods).
    public let limits: ServerLimits

    /// How responses are cut into TLS records (`--tls-records`).
    public let tlsRecords: TLSRecordPolicy

    /// The listener's congestion control as the kernel reports it (getsockopt TCP_CONGESTION).
    public let congestionControl: String?
    /// Called with each accepted connection's congestion control, read back from its socket
    /// (a route's `congctl` could override the listener's).
    private let onAccept: ((String?) -> Void)?
    /// Called as each connection closes, with its peer and what the kernel's sender counted on it
    /// (retransmissions, the congestion state it ended in).
    public var onConnectionEnd: ((Endpoint, TCPSenderStatistics?) -> Void)?
    /// Late binding for HTTP/2 connections: at most this many bytes wait unsent in the kernel
    /// (TCP_NOTSENT_LOWAT), so stream priorities decide what is sent next. nil: off, as nginx:
    /// the server writes while the kernel's send buffer accepts, and what it refused stays as
    /// frames that priorities still order (`SecureStream.kernelPacedChunk`).
    public var unsentLimit: Int?

    /// `congestionControl` (e.g. "cubic") is set explicitly: a namespace's default may differ. A
    /// name the kernel refuses, or reports back differently, throws.
    public init(
        loop: EventLoop, endpoint: Endpoint, tls: TLSServerContext, congestionControl: String? = nil,
        tlsRecords: TLSRecordPolicy = .dynamic, limits: ServerLimits = ServerLimits(),
        onAccept: ((String?) -> Void)? = nil, handler: @escaping RequestHandler
    ) throws {
        self.loop = loop
        self.limits = limits
        self.tlsContext = tls
        self.tlsRecords = tlsRecords
        self.handler = handler
        self.onAccept = onAccept
        (listener, self.endpoint) = try Socket.listenTCP(on: endpoint, congestionControl: congestionControl)
        let inEffect = Socket.congestionControl(of: listener)
        if let wanted = congestionControl, inEffect != wanted {
            Socket.close(listener)
            throw BenchError.run(
                "TCP congestion control '\(wanted)' requested on \(self.endpoint), the kernel reports "
                    + "'\(inEffect ?? "none")'"
            )
        }
        self.congestionControl = inEffect
        try loop.register(listener, .read) { [weak self] _ in self?.acceptAll() }
        scheduleSweep()
    }

    deinit { close() }

    /// Closes once: `ServerHost` closes explicitly and `deinit` closes again, on the server thread,
    /// after the rest of netbench has carried on; a second close(2) would close whatever another
    /// thread had opened under the same number meanwhile.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        loop.cancel(sweepTimer)
        loop.unregister(listener)
        Socket.close(listener)
        for s in sessions.values { (s as? ServerSession)?.abort() }
        sessions.removeAll()
    }

    /// Accepts at most a quarter of `maxPendingHandshakes` per readiness event (the listener is
    /// level-triggered, so the rest come next turn): a handshake accepted in one turn is answered
    /// in the next and completes in the one after, so a flood of connects cannot push it out at
    /// the pending-handshake limit, while the kernel's accept queue (where a well-behaved client
    /// waits behind the flood) still drains quickly.
    private var acceptsPerTurn: Int { max(8, limits.maxPendingHandshakes / 4) }

    private func acceptAll() {
        for _ in 0..<acceptsPerTurn {
            let accepted: (FileDescriptor, Endpoint)?
            do { accepted = try Socket.accept(listener) } catch { return }
            guard let (fd, peer) = accepted else { return }
            let now = Instant.now()
            guard makeRoom(now) else {
                counters.connectionsRefused += 1
                Socket.close(fd)
                continue
            }
            counters.connectionsAccepted += 1
            onAccept?(Socket.congestionControl(of: fd))
            do {
                try Socket.apply(.init(noDelay: true), to: fd)
                let tls = try TLSConnection(server: tlsContext)
                let stream = try SecureStream(fd: fd, loop: loop, tls: tls, connecting: false)
                stream.recordSizer = TLSRecordSizer(policy: tlsRecords)
                if let report = onConnectionEnd {
                    stream.beforeClose = { fd in report(peer, Socket.senderStatistics(of: fd)) }
                }
                let key = fd.rawValue
                let holder = PendingSession(stream: stream)
                let act = ConnectionActivity(accepted: now)
                sessions[key] = holder
                activity[key] = act
                pendingHandshakes += 1
                stream.onHandshake = { [weak self, unowned stream] at in
                    guard let self else { return }
                    act.handshakeDone = at
                    act.idleSince = at
                    self.pendingHandshakes -= 1
                    self.sessions[key] = self.makeSession(stream, act)
                }
                stream.onClose = { [weak self] reason in
                    guard let self else { return }
                    if self.sessions[key] is PendingSession, reason != nil { self.counters.handshakeFailures += 1 }
                    if act.handshakeDone == nil { self.pendingHandshakes -= 1 }
                    self.sessions[key] = nil
                    self.activity[key] = nil
                }
            } catch {
                Socket.close(fd)
            }
        }
    }
}

extension TCPServer {
    private func makeSession(_ stream: SecureStream, _ act: ConnectionActivity) -> ServerSession? {
        let update: CounterUpdate = { [weak self] f in if let self { f(&self.counters) } }
        if stream.tls.negotiatedALPN == "h2" {
            guard
                let h2 = try? H2ServerSession(
                    stream: stream, loop: loop, handler: handler, counters: update,
                    limits: limits.http2, activity: act)
            else {
                stream.abort("HTTP/2 session setup failed")
                return nil
            }
            if let limit = unsentLimit { stream.limitUnsent(to: limit) } else { stream.paceByKernel() }
            return h2
        }
        return H1ServerSession(
            stream: stream, loop: loop, handler: handler, counters: update,
            maxHeadBytes: limits.maxHeaderListSize, activity: act)
    }

    /// Makes room for one more connection: past the pending-handshake limit the oldest handshake
    /// is closed; at the connection limit the connection idle longest (or handshaking longest).
    /// - Returns: false when every connection is busy with a request (the new one is refused).
    private func makeRoom(_ now: Instant) -> Bool {
        if pendingHandshakes >= limits.maxPendingHandshakes {
            closeOldest(where: { $0.handshakeDone == nil }, by: \.accepted)
        }
        guard sessions.count >= limits.maxConnections else { return true }
        return closeOldest(where: { $0.isReclaimable }, by: \.idleSince)
    }

    @discardableResult
    private func closeOldest(
        where eligible: (ConnectionActivity) -> Bool, by time: KeyPath<ConnectionActivity, Instant>
    ) -> Bool {
        var oldest: (key: Int32, at: Instant)?
        for (key, a) in activity where eligible(a) {
            let t = a[keyPath: time]
            if oldest == nil || t < oldest!.at { oldest = (key, t) }
        }
        guard let key = oldest?.key else { return false }
        counters.connectionsEvicted += 1
        (sessions[key] as? ServerSession)?.abort()
        return true
    }

    private func scheduleSweep() {
        sweepTimer = loop.schedule(after: limits.sweepInterval) { [weak self] in
            guard let self, !self.isClosed else { return }
            self.sweep(Instant.now())
            self.scheduleSweep()
        }
    }

    /// Closes the connections past a timeout.
    private func sweep(_ now: Instant) {
        var expired: [Int32] = []
        for (key, a) in activity where a.expired(at: now, limits: limits) != nil { expired.append(key) }
        for key in expired {
            counters.connectionsTimedOut += 1
            (sessions[key] as? ServerSession)?.abort()
        }
    }
}

protocol ServerSession: AnyObject { func abort() }

private final class PendingSession: ServerSession {
    let stream: SecureStream
    init(stream: SecureStream) { self.stream = stream }
    func abort() { stream.abort() }
}

typealias CounterUpdate = ((inout ServerCounters) -> Void) -> Void
