import BenchCore
internal import CNgtcp2

/// One HTTP/3 connection to one origin, as a browser keeps per origin. It does no I/O: the
/// event loop hands it datagrams (`receive`), lets it write (`write`), and calls `handleExpiry`
/// when `expiry` passes. Every driving call returns the events it caused, in order.
///
/// Typical loop: after `init`, call `write`; on a datagram call `receive` then `write`; when
/// the timer fires call `handleExpiry` then `write`; re-arm the timer from `expiry`. After a
/// `.closed` event keep calling `write` until `isClosed` (the CONNECTION_CLOSE goes out there).
/// Meant for one thread (not Sendable).
public final class HTTP3Client {
    private let connection: QUICConnection
    private let migrationPath = PathBuffer()

    /// - Parameters:
    ///   - trustedRootsPEM: CA certificates the server's chain must lead to.
    ///   - serverName: sent as SNI (unless an IP literal) and checked against the certificate.
    ///   - resumption: a state from an earlier connection to the same server; turns on 0-RTT,
    ///     so requests submitted before the handshake completes go out in the first flight.
    public init(config: QUICConfiguration, trustedRootsPEM: String, serverName: String,
                local: Endpoint, remote: Endpoint, resumption: QUICResumptionState? = nil,
                now: Instant) throws {
        let credentials = try ClientTLSCredentials(trustedRootsPEM: trustedRootsPEM)
        connection = try QUICConnection.client(config: config, credentials: credentials,
                                               serverName: serverName, local: local, remote: remote,
                                               resumption: resumption, now: now)
    }

    /// Processes one received UDP payload. Garbage and stray packets are ignored; a fatal
    /// problem ends the connection with a `.closed` event.
    public func receive(_ datagram: UnsafeRawBufferPointer, local: Endpoint, remote: Endpoint,
                        now: Instant) -> [HTTP3ClientEvent] {
        connection.receive(datagram, local: local, remote: remote, now: now)
        return takeEvents()
    }

    /// Submits `GET https://authority/path` and returns its stream ID. Allowed before the
    /// handshake completes: the request waits for HTTP/3 (or goes out as 0-RTT when resuming)
    /// and for stream credit; stream IDs are assigned in submission order (0, 4, 8, ...).
    public func submitRequest(authority: String, path: String,
                              headers: [(String, String)] = []) throws -> Int64 {
        try connection.submitRequest(authority: authority, path: path, headers: headers)
    }

    /// Sends everything ngtcp2 will send now: `emit(payload, remote, local)` per datagram; the
    /// payload is only valid during the call. Stops early when pacing asks to wait (`expiry`
    /// then says when to call `handleExpiry` and `write` again).
    @discardableResult
    public func write(now: Instant, emit: (UnsafeRawBufferPointer, _ remote: Endpoint, _ local: Endpoint) -> Void)
        -> [HTTP3ClientEvent] {
        connection.write(now: now, emit: emit)
        return takeEvents()
    }

    /// When `handleExpiry` is due (loss detection, ACK delay, pacing, idle timeout); `nil`
    /// once the connection is closed.
    public var expiry: Instant? { connection.expiry }

    /// Runs ngtcp2's timers. An idle timeout ends the connection with `.closed(.idleTimeout)`.
    @discardableResult
    public func handleExpiry(now: Instant) -> [HTTP3ClientEvent] {
        connection.handleExpiry(now: now)
        return takeEvents()
    }

    /// Moves the connection to a new local address (a Wi-Fi to cellular switch): ngtcp2 uses a
    /// fresh connection ID and validates the new path. Needs a confirmed handshake and a spare
    /// connection ID from the server.
    public func migrate(to newLocal: Endpoint, now: Instant, mode: QUICMigrationMode = .validateFirst) throws {
        guard connection.isOpen else { throw QUICError.invalidState("connection is closed") }
        guard let current = ngtcp2_conn_get_path(connection.conn),
              let remote = Endpoint(current.pointee.remote) else {
            throw QUICError.invalidState("no current path")
        }
        let path = migrationPath.set(local: newLocal, remote: remote)
        let rv = mode == .immediate
            ? ngtcp2_conn_initiate_immediate_migration(connection.conn, path, now.nanoseconds)
            : ngtcp2_conn_initiate_migration(connection.conn, path, now.nanoseconds)
        guard rv == 0 else { throw transportError(rv, mode == .immediate
            ? "ngtcp2_conn_initiate_immediate_migration" : "ngtcp2_conn_initiate_migration") }
    }

    /// Sends CONNECTION_CLOSE (H3_NO_ERROR) and ends the connection.
    public func close(now: Instant, emit: (UnsafeRawBufferPointer, _ remote: Endpoint, _ local: Endpoint) -> Void) {
        connection.close(now: now, emit: emit)
        _ = connection.takeEvents()
        connection.state = .closed
    }

    public var isHandshakeComplete: Bool { connection.handshakeCompletedAt != nil }
    /// The `now` of the call during which the handshake completed.
    public var handshakeCompletedAt: Instant? { connection.handshakeCompletedAt }
    /// True when a resumption state was given and 0-RTT was attempted.
    public var earlyDataAttempted: Bool { connection.earlyDataAttempted }
    /// True when the server accepted the 0-RTT data (known once the handshake completes).
    public var earlyDataAccepted: Bool { connection.earlyDataAccepted }
    /// Available after the server's NewSessionTicket (`.resumptionStateAvailable`).
    public var resumptionState: QUICResumptionState? { connection.resumption }
    /// True once the connection is over and, after a local error, its CONNECTION_CLOSE has
    /// been handed to `emit` (so keep calling `write` after a `.closed` event until then).
    public var isClosed: Bool { connection.isClosed }
    public var statistics: QUICStatistics { connection.currentStatistics() }

    /// The path the connection uses now.
    public var currentPath: (local: Endpoint, remote: Endpoint)? {
        guard let p = ngtcp2_conn_get_path(connection.conn),
              let local = Endpoint(p.pointee.local), let remote = Endpoint(p.pointee.remote) else { return nil }
        return (local, remote)
    }

    private func takeEvents() -> [HTTP3ClientEvent] {
        let raw = connection.takeEvents()
        if raw.isEmpty { return [] }
        var out: [HTTP3ClientEvent] = []
        out.reserveCapacity(raw.count)
        for event in raw {
            switch event {
            case .handshakeCompleted: out.append(.handshakeCompleted)
            case .headers(let stream, let fields):
                let status = fields.first { $0.0 == ":status" }.flatMap { Int($0.1) } ?? 0
                out.append(.response(stream: stream, status: status,
                                     headers: fields.filter { !$0.0.hasPrefix(":") }))
            case .data(let stream, let count): out.append(.data(stream: stream, count: count))
            case .streamEnd(let stream): out.append(.responseEnd(stream: stream))
            case .streamReset(let stream, let code): out.append(.streamReset(stream: stream, code: code))
            case .pathValidated(let local, let remote, let ok):
                out.append(.pathValidated(local: local, remote: remote, succeeded: ok))
            case .resumptionReady: out.append(.resumptionStateAvailable)
            case .closed(let error): out.append(.closed(error))
            }
        }
        return out
    }
}
