import BenchCore
import SystemIO
import QUIC

/// HTTP/3 over QUIC: one connection per origin on its own UDP socket, driven by the event loop
/// (datagrams in → `receive`, then `write`; the engine's `expiry` arms a loop timer).
final class H3ClientConnection: ClientConnection {
    private var state: ConnectionInfo
    /// Timestamps and facts, with the engine's statistics as of now (frozen at close).
    var info: ConnectionInfo {
        if !closed { snapshot() }
        return state
    }
    private let loop: EventLoop
    /// The socket in use and, after a migration or rebinding, the earlier ones (still read: late
    /// packets on an old path are part of the story).
    private var fd: FileDescriptor
    private var sockets: [Endpoint: FileDescriptor] = [:]
    private let namespace: String?
    private let resumptionCache: QUICResumptionCache?
    private let serverName: String
    private var localPaths: [Endpoint] = []
    private let client: HTTP3Client
    private var local: Endpoint
    private var streams: [Int64: (ClientEvent) -> Void] = [:]
    private var unsent: [Int64] = []
    private var timer: EventLoop.TimerID?
    private var closed = false
    private var receiveBuffer: UnsafeMutableRawBufferPointer
    private let congestionControl: String
    private var validations: [(challenge: Instant?, validated: Instant?)] = []
    private var io = DatagramIO()
    var onStateChange: (() -> Void)?
    var bytesAcknowledged: Int64? { client.streamBytesAcknowledged }

    init(
        loop: EventLoop, remote: Endpoint, local: Endpoint?, serverName: String, trustedRootsPEM: String,
        config: QUICConfiguration, resumptionCache: QUICResumptionCache? = nil, namespace: String? = nil
    ) throws {
        self.loop = loop
        self.resumptionCache = resumptionCache
        self.serverName = serverName
        let resumption = resumptionCache?.state(for: serverName, at: remote)
        self.namespace = namespace
        state = ConnectionInfo(kind: .h3, connectStart: Instant.now(), remote: remote)
        let bindTo =
            local
            ?? Endpoint(address: remote.address == Endpoint.loopbackAddress ? Endpoint.loopbackAddress : 0, port: 0)
        (fd, self.local) = try Socket.bindUDP(bindTo)
        let firstFD = fd
        state.local = self.local
        congestionControl = config.congestionControl.rawValue
        io.marksECN = config.ecn
        receiveBuffer = .allocate(byteCount: 65536, alignment: 16)
        do {
            client = try HTTP3Client(
                config: config, trustedRootsPEM: trustedRootsPEM, serverName: serverName,
                local: self.local, remote: remote, resumption: resumption, now: Instant.now())
            try register(fd, self.local)
        } catch {
            Socket.close(firstFD)
            receiveBuffer.deallocate()
            throw error
        }
        flush()
    }

    deinit {
        receiveBuffer.deallocate()
        if !closed { closeSockets() }
    }

    private func register(_ socket: FileDescriptor, _ endpoint: Endpoint) throws {
        DatagramIO.prepare(socket)
        sockets[endpoint] = socket
        localPaths.append(endpoint)
        try loop.register(socket, .read) { [weak self] _ in self?.readable(socket, endpoint) }
    }

    private func closeSockets() {
        for s in sockets.values { loop.unregister(s); Socket.close(s) }
        sockets.removeAll()
    }

    /// The socket whose address is `local` (the engine says which path each datagram takes).
    private func socket(for local: Endpoint) -> FileDescriptor { sockets[local] ?? fd }

    func networkChanged(_ change: NetworkChange) {
        guard !closed else { return }
        let now = Instant.now()
        do {
            // The old interface is gone: a new socket on the new path, everything sent there at
            // once, the path validated in parallel (ngtcp2's immediate migration).
            let (newFD, newLocal) = try NetworkNamespace.with(namespace) {
                try Socket.bindUDP(Endpoint(address: change.localAddress, port: 0))
            }
            try register(newFD, newLocal)
            fd = newFD
            local = newLocal
            try client.migrate(to: newLocal, now: now, mode: .immediate)
            validations.append((challenge: now, validated: nil))
        } catch {
            finish(reason: "migration failed: \(error)")
            return
        }
        flush()
    }

    var isUsable: Bool { !closed }
    var freeSlots: Int { closed ? 0 : 1000 }

    /// The `priority` header field as Chromium writes it (RFC 9218): `u=2, i`, `u=0`, `i` (urgency 3,
    /// incremental); nil for the default, urgency 3 and not incremental, which goes unsaid.
    static func priorityField(urgency: Int, incremental: Bool) -> String? {
        switch (urgency == 3, incremental) {
        case (true, false): return nil
        case (true, true): return "i"
        case (false, false): return "u=\(urgency)"
        case (false, true): return "u=\(urgency), i"
        }
    }

    func send(_ request: ClientRequest, _ events: @escaping (ClientEvent) -> Void) {
        do {
            var headers = request.headers
            if let p = request.priority,
                let field = Self.priorityField(urgency: p.urgency, incremental: request.incremental)
            {
                headers.append(("priority", field))
            }
            let id = try client.submitRequest(
                method: request.method, authority: request.authority, path: request.path,
                headers: headers, bodyLength: request.bodyLength, prefix: request.body)
            streams[id] = events
            if state.handshakeEnd != nil || client.earlyDataAttempted {
                events(.sent(Instant.now()))
            } else {
                unsent.append(id)
            }
            flush()
        } catch {
            events(.failed("HTTP/3 submit: \(error)", Instant.now()))
        }
    }

    func close() {
        guard !closed else { return }
        client.close(now: Instant.now()) { bytes, remote, local in
            _ = try? Socket.sendDatagram(socket(for: local), bytes, to: remote)
        }
        finish(reason: nil)
    }

    private func readable(_ socket: FileDescriptor, _ at: Endpoint) {
        var arrived: [(event: HTTP3ClientEvent, at: Instant)] = []
        DatagramIO.receive(socket, into: receiveBuffer) { datagram, from, arrival, ecn in
            guard !closed else { return false }
            // A fresh timestamp per datagram: it is when that datagram's bytes were taken in, and
            // ngtcp2 needs its timestamps never to go back.
            let now = Instant.now()
            for event in client.receive(datagram, local: at, remote: from, now: now, arrival: arrival, ecn: ecn) {
                // Body bytes of one stream in consecutive datagrams of this read are one arrival
                // (at the first one's time), as the TCP clients report a read's bytes: the loader's
                // work per event would otherwise grow with the number of packets, not of reads.
                if case .data(let stream, let count) = event, let last = arrived.last,
                    case .data(stream, let before) = last.event
                {
                    arrived[arrived.count - 1].event = .data(stream: stream, count: before + count)
                } else {
                    arrived.append((event, now))
                }
            }
            return true
        }
        // ACKs leave before the page loader reacts to what arrived (parses a page, opens
        // connections), and that reaction waits for the other connections ready in this turn to
        // send theirs, as in a browser, whose network stack acknowledges packets while another
        // process parses: otherwise a server waiting for an ACK to open its window waits for the
        // parser too (on loopback, the rest of the root page ~2 ms later).
        flush()
        guard !arrived.isEmpty else { return }
        loop.runAfterIO { [weak self] in
            guard let self else { return }
            for (event, at) in arrived where !self.closed { self.handle([event], at) }
            self.flush()
        }
    }

    /// Lets the engine send, then re-arms the timer.
    private func flush() {
        guard !closed else { return }
        let now = Instant.now()
        let events = client.writeBatched(now: now) { bytes, segmentSize, remote, local, ecn in
            io.send(socket(for: local), bytes, segmentSize: segmentSize, to: remote, ecn: ecn)
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

    private func handle(_ events: [HTTP3ClientEvent], _ t: Instant) {
        for e in events {
            switch e {
            case .handshakeCompleted:
                state.handshakeEnd = client.handshakeCompletedAt ?? t
                state.alpn = "h3"
                state.tlsVersion = "1.3"
                state.earlyDataAccepted = client.earlyDataAttempted ? client.earlyDataAccepted : nil
                state.resumed = client.earlyDataAttempted
                for id in unsent { streams[id]?(.sent(t)) }
                unsent.removeAll()
                onStateChange?()
            case .response(let id, let status, let headers):
                streams[id]?(.head(status: status, headers: headers, t))
            case .data(let id, let count):
                streams[id]?(.data(count: count, t))
            case .responseEnd(let id):
                if let cb = streams.removeValue(forKey: id) { cb(.end(t)) }
            case .streamReset(let id, let code):
                if let cb = streams.removeValue(forKey: id) { cb(.failed("HTTP/3 stream reset (code \(code))", t)) }
            case .pathValidated(_, _, let ok):
                // Pairs with the migration that asked for it; a rebinding's validation is the server's.
                if let i = validations.lastIndex(where: { $0.validated == nil }) {
                    validations[i].validated = ok ? t : nil
                } else {
                    validations.append((challenge: nil, validated: ok ? t : nil))
                }
            case .resumptionStateAvailable:
                if let cache = resumptionCache, let state = client.resumptionState {
                    cache.store(state, for: serverName, at: self.state.remote)
                }
            case .closed(let error):
                finish(reason: "\(error)")
                return
            }
        }
    }

    private func finish(reason: String?) {
        guard !closed else { return }
        closed = true
        snapshot()
        // One time for the connection's end: every stream it leaves unfinished failed then (the loader
        // retries a lost request only on a connection opened after its loss, so per-stream clock reads
        // let the later streams of one failure miss the connection opened for the first).
        let now = Instant.now()
        state.closedAt = now
        if let reason, state.error == nil { state.error = reason }
        loop.cancel(timer)
        closeSockets()
        let pending = streams.values.map { $0 }
        streams.removeAll()
        for cb in pending { cb(.failed(reason ?? "connection closed with the response incomplete", now)) }
        onStateChange?()
    }

    private func snapshot() {
        let s = client.statistics
        var q = QUICSnapshot(s, congestionControl: congestionControl, localPaths: localPaths)
        q.pathValidations = validations
        if io.marksECN {
            q.ecnSentECT0 = s.ecnRequested.ect0
            q.ecnValidated = s.lastRequestedECN.map { $0 != .notECT }
        }
        state.quic = q
    }

}
