import BenchCore
internal import CNgtcp2

/// Many HTTP/3 connections behind one UDP socket. It routes datagrams by destination
/// connection ID, creates connections for valid client Initials (`ngtcp2_accept`), answers
/// unknown versions with Version Negotiation, drops garbage silently, follows client migration
/// and NAT rebinding (ngtcp2 validates the new path), and reaps closed and idle connections.
/// Like `HTTP3Client` it does no I/O, every driving call returns the events it caused, and it
/// is meant for one thread (it is not Sendable). Not implemented: Retry (address validation),
/// NEW_TOKEN, stateless resets, server push.
public final class HTTP3Server {
    private let config: QUICConfiguration
    private let tls: ServerTLSContext
    private let filler = FillerBuffer.shared
    private let staticSecret = randomBytes(32)
    private var routes: [ConnectionIDKey: ServerConnection] = [:]
    private var connections: [HTTP3ConnectionHandle: ServerConnection] = [:]
    /// The same connections in creation order, for the loops that visit them all (no
    /// allocation per call); reaped entries are compacted away after each loop.
    private var live: [ServerConnection] = []
    private var reapedSome = false
    /// Connections whose handshake has not completed.
    private var pendingHandshakes = 0
    /// Initials dropped at `maxConnections` or `maxPendingHandshakes`.
    public private(set) var initialsDropped = 0
    /// Retry packets sent, and Initials that came back with a valid token.
    public private(set) var retriesSent = 0
    public private(set) var retriesValidated = 0
    private let retryTokens: RetryTokens
    private var nextHandle: UInt64 = 1
    /// Stateless packets (Version Negotiation) waiting for the next `write`.
    private var stateless: [(bytes: [UInt8], remote: Endpoint, local: Endpoint)] = []
    private var events: [HTTP3ServerEvent] = []
    /// Sees every request body chunk once, in stream order, while it is received (the bytes are
    /// valid only during the call); the server itself only counts them. Set before connections open.
    public var onRequestBody: ((HTTP3ConnectionHandle, _ stream: Int64, UnsafeRawBufferPointer) -> Void)?
    /// Sees every stream byte a client sends (control, QPACK and request streams), in the order
    /// QUIC delivers it and before HTTP/3 reads it: real clients' bytes for fuzz seeds and tests.
    /// Set before connections open.
    public var onStreamData: ((HTTP3ConnectionHandle, _ stream: Int64, UnsafeRawBufferPointer, _ fin: Bool) -> Void)?

    /// - Parameters:
    ///   - credentials: certificate chains and keys; GnuTLS serves the one whose names match the
    ///     client's SNI, else the first.
    ///   - now: unused today; kept so the engines share one constructor shape.
    public init(config: QUICConfiguration, credentials: [QUICServerCredentials], now: Instant) throws {
        self.config = config
        tls = try ServerTLSContext(credentials: credentials)
        retryTokens = RetryTokens(secret: randomBytes(32))
    }

    public var connectionCount: Int { connections.count }
    /// Perf protocol totals (ALPN "perf"), closed connections included.
    public var perfCounters: QUICPerfServerCounters {
        var c = reapedPerf
        for sc in live where !sc.reaped { if let p = sc.quic.raw?.perfServer { c.add(p) } }
        return c
    }
    private var reapedPerf = QUICPerfServerCounters()
    /// Connections whose handshake has not completed.
    public var pendingHandshakeCount: Int { pendingHandshakes }

    /// Processes one received UDP payload; never fails on bad input from the network.
    /// `arrival`: when the kernel received the datagram, if known (see `HTTP3Client.receive`).
    /// `ecn`: its codepoint as the socket read it (see `HTTP3Client.receive`).
    public func receive(
        _ datagram: UnsafeRawBufferPointer, local: Endpoint, remote: Endpoint,
        now: Instant, arrival: Instant? = nil, ecn: ECNCodepoint = .notECT
    ) -> [HTTP3ServerEvent] {
        guard let base = datagram.baseAddress?.assumingMemoryBound(to: UInt8.self), datagram.count > 0
        else { return [] }
        var vc = ngtcp2_version_cid()
        switch ngtcp2_pkt_decode_version_cid(&vc, base, datagram.count, serverCIDLength) {
        case 0: break
        case NGTCP2_ERR_VERSION_NEGOTIATION:
            queueVersionNegotiation(vc, remote: remote, local: local)
            return []
        default: return []
        }
        let key = ConnectionIDKey(bytes: vc.dcid, count: vc.dcidlen)
        if let sc = routes[key] {
            sc.quic.receive(datagram, local: local, remote: remote, now: now, arrival: arrival, ecn: ecn)
            collect(sc)
            compact()
        } else {
            accept(datagram, base: base, local: local, remote: remote, now: now, ecn: ecn)
        }
        return takeEvents()
    }

    /// Starts answering `stream` of `connection`: `status`, `headers` (a `content-length` of
    /// `bodyLength` is added unless given) and exactly `bodyLength` bytes of filler, generated as
    /// sent. May be called any time after the `.request` event (server think time).
    /// The body starts with `prefix` and ends with `suffix` when given (both counted in `bodyLength`).
    public func submitResponse(
        connection: HTTP3ConnectionHandle, stream: Int64, status: Int,
        headers: [(String, String)] = [], bodyLength: Int64,
        prefix: [UInt8] = [], suffix: [UInt8] = []
    ) throws {
        guard let sc = connections[connection] else {
            throw QUICError.invalidState("\(connection) is closed")
        }
        try sc.quic.submitResponse(
            stream: stream, status: status, headers: headers, bodyLength: bodyLength,
            prefix: prefix, suffix: suffix)
    }

    /// Sends what every connection has to send; see `HTTP3Client.write`.
    @discardableResult
    public func write(now: Instant, emit: (UnsafeRawBufferPointer, _ remote: Endpoint, _ local: Endpoint) -> Void)
        -> [HTTP3ServerEvent]
    {
        for packet in stateless {
            packet.bytes.withUnsafeBytes { emit($0, packet.remote, packet.local) }
        }
        stateless.removeAll()
        for sc in live where !sc.reaped {
            sc.quic.write(now: now, emit: emit)
            collect(sc)
        }
        compact()
        return takeEvents()
    }

    /// Sends what every connection has to send, the datagrams of one path together; see
    /// `HTTP3Client.writeBatched`.
    @discardableResult
    public func writeBatched(
        now: Instant,
        emit: (
            UnsafeRawBufferPointer, _ segmentSize: Int, _ remote: Endpoint, _ local: Endpoint, _ ecn: ECNCodepoint
        ) -> Void
    )
        -> [HTTP3ServerEvent]
    {
        for packet in stateless {
            packet.bytes.withUnsafeBytes { emit($0, $0.count, packet.remote, packet.local, .notECT) }
        }
        stateless.removeAll()
        for sc in live where !sc.reaped {
            sc.quic.write(now: now, emit: emit)
            collect(sc)
        }
        compact()
        return takeEvents()
    }

    /// The earliest timer of any connection. (Version Negotiation packets are not timed: they
    /// go out with the next `write`, which an event loop calls after every `receive`.)
    public var expiry: Instant? {
        var earliest: Instant? = nil
        for sc in live where !sc.reaped {
            if let t = sc.quic.expiry, earliest == nil || t < earliest! { earliest = t }
        }
        return earliest
    }

    /// Runs the timers that are due; closes idle connections and reaps closed ones.
    @discardableResult
    public func handleExpiry(now: Instant) -> [HTTP3ServerEvent] {
        for sc in live where !sc.reaped {
            if let t = sc.quic.expiry, t <= now {
                sc.quic.handleExpiry(now: now)
                collect(sc)
            }
        }
        compact()
        return takeEvents()
    }

    /// Statistics of one connection, `nil` once it is gone.
    public func statistics(for connection: HTTP3ConnectionHandle) -> QUICStatistics? {
        connections[connection]?.quic.currentStatistics()
    }

    /// The path a connection uses now.
    public func currentPath(of connection: HTTP3ConnectionHandle) -> (local: Endpoint, remote: Endpoint)? {
        guard let sc = connections[connection], let p = ngtcp2_conn_get_path(sc.quic.conn),
            let local = Endpoint(p.pointee.local), let remote = Endpoint(p.pointee.remote)
        else { return nil }
        return (local, remote)
    }

    // MARK: Internals

    private func accept(
        _ datagram: UnsafeRawBufferPointer, base: UnsafePointer<UInt8>,
        local: Endpoint, remote: Endpoint, now: Instant, ecn: ECNCodepoint
    ) {
        var hd = ngtcp2_pkt_hd()
        guard ngtcp2_accept(&hd, base, datagram.count) == 0 else { return }
        guard case .accept(let retry) = admit(hd, local: local, remote: remote, now: now) else { return }
        let quic: QUICConnection
        do {
            quic = try QUICConnection.server(
                config: config, tls: tls, initial: hd, local: local,
                remote: remote, staticSecret: staticSecret,
                filler: filler, now: now, retry: retry)
        } catch {
            return
        }
        let sc = ServerConnection(handle: HTTP3ConnectionHandle(rawValue: nextHandle), quic: quic)
        nextHandle += 1
        connections[sc.handle] = sc
        live.append(sc)
        pendingHandshakes += 1
        register(ConnectionIDKey(hd.dcid), sc)
        var scids = [ngtcp2_cid](repeating: ngtcp2_cid(), count: max(ngtcp2_conn_get_num_scid(quic.conn), 1))
        let n = ngtcp2_conn_get_scid(quic.conn, &scids)
        for cid in scids.prefix(n) { register(ConnectionIDKey(cid), sc) }
        if let sink = onRequestBody {
            let handle = sc.handle
            quic.server?.onRequestBody = { stream, bytes in sink(handle, stream, bytes) }
        }
        if let tap = onStreamData {
            let handle = sc.handle
            quic.server?.onStreamData = { stream, bytes, fin in tap(handle, stream, bytes, fin) }
        }
        quic.server?.onNewConnectionID = { [unowned self, unowned sc] key in self.register(key, sc) }
        quic.server?.onRetireConnectionID = { [unowned self, unowned sc] key in
            if self.routes[key] === sc { self.routes[key] = nil }
            sc.keys.remove(key)
        }
        events.append(.connectionOpened(connection: sc.handle, remote: remote))
        quic.receive(datagram, local: local, remote: remote, now: now, ecn: ecn)
        collect(sc)
        compact()
    }

    /// Whether a new connection may start from this Initial (a Retry may be queued instead).
    private func admit(_ hd: ngtcp2_pkt_hd, local: Endpoint, remote: Endpoint, now: Instant) -> Admission {
        guard connections.count < config.maxConnections else { initialsDropped += 1; return .drop }
        let token = RetryTokens.token(of: hd)
        if !token.isEmpty, let odcid = retryTokens.validate(hd, remote: remote, now: now) {
            retriesValidated += 1
            return .accept(retry: (odcid, token))
        }
        let wantRetry: Bool
        switch config.retry {
        case .never: wantRetry = false
        case .underLoad: wantRetry = pendingHandshakes * 2 >= config.maxPendingHandshakes
        case .always: wantRetry = true
        }
        if wantRetry && token.isEmpty && hd.type == UInt8(NGTCP2_PKT_INITIAL.rawValue),
            let packet = retryTokens.retryPacket(for: hd, remote: remote, now: now)
        {
            retriesSent += 1
            stateless.append((packet, remote, local))
            return .drop
        }
        guard pendingHandshakes < config.maxPendingHandshakes else { initialsDropped += 1; return .drop }
        return .accept(retry: nil)
    }

    private enum Admission {
        case drop
        /// `retry`: the client's first DCID and the Retry token it came back with.
        case accept(retry: (originalDCID: ngtcp2_cid, token: [UInt8])?)
    }

    private func register(_ key: ConnectionIDKey, _ sc: ServerConnection) {
        routes[key] = sc
        sc.keys.insert(key)
    }

    /// Maps a connection's events to server events and reaps it once it is closed.
    private func collect(_ sc: ServerConnection) {
        for event in sc.quic.takeEvents() {
            switch event {
            case .handshakeCompleted:
                if !sc.handshakeDone { sc.handshakeDone = true; pendingHandshakes -= 1 }
                events.append(.handshakeCompleted(connection: sc.handle))
            case .request(let stream, let fields, let bodyBytes):
                var method = "", authority = "", path = ""
                var rest: [(String, String)] = []
                for (name, value) in fields {
                    switch name {
                    case ":method": method = value
                    case ":authority": authority = value
                    case ":path": path = value
                    case ":scheme": break
                    default: rest.append((name, value))
                    }
                }
                events.append(
                    .request(
                        connection: sc.handle, stream: stream, method: method,
                        authority: authority, path: path, headers: rest, bodyBytes: bodyBytes))
            case .pathValidated(let local, let remote, let ok):
                guard ok, let p = ngtcp2_conn_get_path(sc.quic.conn),
                    Endpoint(p.pointee.local) == local, Endpoint(p.pointee.remote) == remote,
                    sc.reportedLocal != local || sc.reportedRemote != remote
                else { break }
                sc.reportedLocal = local
                sc.reportedRemote = remote
                events.append(.pathChanged(connection: sc.handle, local: local, remote: remote))
            case .closed(let error):
                if !sc.closeReported {
                    sc.closeReported = true
                    events.append(.connectionClosed(connection: sc.handle, error: error))
                }
            case .headers, .data, .streamEnd, .streamReset, .resumptionReady:
                break
            }
        }
        if sc.quic.isClosed && !sc.reaped {
            for key in sc.keys where routes[key] === sc { routes[key] = nil }
            connections[sc.handle] = nil
            if let p = sc.quic.raw?.perfServer { reapedPerf.add(p) }
            if !sc.handshakeDone { sc.handshakeDone = true; pendingHandshakes -= 1 }
            sc.reaped = true
            reapedSome = true
        }
    }

    private func compact() {
        guard reapedSome else { return }
        live.removeAll { $0.reaped }
        reapedSome = false
    }

    private func takeEvents() -> [HTTP3ServerEvent] {
        if events.isEmpty { return [] }
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    private func queueVersionNegotiation(_ vc: ngtcp2_version_cid, remote: Endpoint, local: Endpoint) {
        // A reserved version first (RFC 9000 §15: greasing), then the one we speak.
        var versions: [UInt32] = [0x1a2a_3a4a, NGTCP2_PROTO_VER_V1]
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBufferPointer { buf in
            ngtcp2_pkt_write_version_negotiation(
                buf.baseAddress, buf.count, UInt8.random(in: 0...255),
                vc.scid, vc.scidlen, vc.dcid, vc.dcidlen,
                &versions, versions.count)
        }
        guard n > 0 else { return }
        stateless.append((Array(buffer.prefix(Int(n))), remote, local))
    }
}

/// A server-side connection and the connection IDs that route to it.
private final class ServerConnection {
    let handle: HTTP3ConnectionHandle
    let quic: QUICConnection
    var keys = Set<ConnectionIDKey>()
    var reportedLocal: Endpoint
    var reportedRemote: Endpoint
    var closeReported = false
    var reaped = false
    var handshakeDone = false

    init(handle: HTTP3ConnectionHandle, quic: QUICConnection) {
        self.handle = handle
        self.quic = quic
        let p = ngtcp2_conn_get_path(quic.conn)!
        reportedLocal = Endpoint(p.pointee.local) ?? Endpoint(address: 0, port: 0)
        reportedRemote = Endpoint(p.pointee.remote) ?? Endpoint(address: 0, port: 0)
    }
}
