import BenchCore
import Glibc
internal import CNgtcp2
internal import CNghttp3

/// What a connection reports to its owner (`HTTP3Client` or `HTTP3Server`), which maps it to
/// its public event type.
enum ConnectionEvent {
    case handshakeCompleted
    /// A complete header section: the response's (client) or the request's (server).
    case headers(stream: Int64, fields: [(String, String)])
    /// Server: a request is complete, its body (`bodyBytes` long) received whole.
    case request(stream: Int64, fields: [(String, String)], bodyBytes: Int64)
    case data(stream: Int64, count: Int)
    /// Client: the response is complete. Server: the request is complete.
    case streamEnd(stream: Int64)
    case streamReset(stream: Int64, code: UInt64)
    case pathValidated(local: Endpoint, remote: Endpoint, succeeded: Bool)
    case resumptionReady
    case closed(QUICError)
}

/// Request streams still open (for loss accounting) and header sections being received, keyed
/// by stream (both sides).
struct StreamBook {
    var openBidi = Set<Int64>()
    var headers: [Int64: [(String, String)]] = [:]
    /// Decoded bytes of each header section being received (names + values + 32 each, RFC 9114 §4.2.2).
    var headerBytes: [Int64: Int] = [:]
    /// Bytes received on each stream and not yet consumed by nghttp3 (it holds a stream's bytes
    /// while its header block waits for a QPACK insert), and their sum.
    var held: [Int64: Int] = [:]
    var heldTotal = 0
}

/// The CONNECTION_CLOSE this side wrote, and whether it is due to go out (again: RFC 9000 §10.2.1
/// answers packets that arrive while closing with it).
struct CloseFrame {
    var packet: [UInt8]?
    var due = false
}

enum ConnectionState {
    case open
    /// We sent CONNECTION_CLOSE; answer further packets with it until the deadline (RFC 9000 §10.2.1).
    case closing(until: Instant)
    /// The peer closed; stay silent until the deadline (RFC 9000 §10.2.2).
    case draining(until: Instant)
    case closed
}

/// A request a client has submitted but not yet put on a stream.
struct PendingRequest {
    let streamID: Int64
    let fields: [(String, String)]
    /// Filler bytes sent as the request body (an upload); 0 for none.
    let bodyLength: Int64
    /// The bytes the body starts with (counted in `bodyLength`).
    var prefix: [UInt8] = []
}

/// One QUIC connection (ngtcp2) with its TLS session (GnuTLS) and HTTP/3 session (nghttp3).
///
/// The object owns the three C objects and frees them in `deinit`. C callbacks find it through
/// `Unmanaged` user data; it never escapes the calls that drive it, so references stay unretained.
final class QUICConnection {
    let role: ConnectionRole
    let isServer: Bool
    let config: QUICConfiguration
    var conn: OpaquePointer!
    var session: OpaquePointer!
    var h3: OpaquePointer?
    let connRef: UnsafeMutablePointer<ngtcp2_crypto_conn_ref>
    let buffers = PacketBuffers()
    /// Time of the call being processed, for callbacks that record timestamps.
    var now: Instant
    /// The latest timestamp ngtcp2 was given (reads may give it a datagram's earlier arrival).
    var engineTime: UInt64 = 0
    var events: [ConnectionEvent] = []
    var state: ConnectionState = .open
    /// CONNECTION_CLOSE to send (again) while closing.
    var closing = CloseFrame()
    /// Why a callback failed, for the close that follows.
    var callbackFailure: (ngtcp2_connection_close_error, QUICError)?
    /// The `now` of the last `handleExpiry` (see `expiry`).
    var handledExpiryAt: Instant?
    var statistics = QUICStatistics()
    /// STREAM bytes the peer acknowledged, all streams (HTTP/3 frame headers included).
    var streamBytesAcknowledged: Int64 = 0
    let staticSecret: [UInt8]
    var keyLog: (any DiagnosticsSink)?
    /// Objects the C session points into (credentials, TLS context): released only after `deinit`
    /// has freed the session, because stored properties outlive the deinit body.
    var retained: [AnyObject] = []
    var qlog: (any ByteStream)?

    var handshakeCompletedAt: Instant?

    var streams = StreamBook()
    /// Set on a client that writes raw stream bytes instead of running HTTP/3 (`QUICStreamClient`).
    var raw: RawStreams?

    /// Bodies this side sends (server: responses; client: uploads).
    let bodies: OutgoingBodies

    private init(
        role: ConnectionRole, config: QUICConfiguration, filler: FillerBuffer, now: Instant,
        staticSecret: [UInt8]
    ) throws {
        self.role = role
        bodies = OutgoingBodies(filler: filler)
        if case .server = role { isServer = true } else { isServer = false }
        self.config = config
        self.now = now
        engineTime = now.nanoseconds  // ngtcp2's initial_ts: no read goes before it
        self.staticSecret = staticSecret
        connRef = .allocate(capacity: 1)
        connRef.initialize(
            to: ngtcp2_crypto_conn_ref(
                get_conn: { ref in
                    Unmanaged<QUICConnection>.fromOpaque(ref!.pointee.user_data).takeUnretainedValue().conn
                },
                user_data: nil))
        connRef.pointee.user_data = Unmanaged.passUnretained(self).toOpaque()
        if let sink = config.diagnostics, sink.wantsKeyLog { keyLog = sink }
    }

    deinit {
        if let h3 { nghttp3_conn_del(h3) }
        if let conn { ngtcp2_conn_del(conn) }
        if let session { gnutls_deinit(session) }
        qlog?.close()
        connRef.deallocate()
    }

    var userData: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ userData: UnsafeMutableRawPointer?) -> QUICConnection {
        Unmanaged<QUICConnection>.fromOpaque(userData!).takeUnretainedValue()
    }

    // MARK: Creation

    /// A client connection; `resumption` turns on 0-RTT.
    static func client(
        config: QUICConfiguration, credentials: ClientTLSCredentials, serverName: String,
        local: Endpoint, remote: Endpoint, resumption: QUICResumptionState?,
        now: Instant, rawStreams: Bool = false
    ) throws -> QUICConnection {
        let c = try QUICConnection(
            role: .client(ClientRole(serverName: serverName)), config: config,
            filler: .shared, now: now, staticSecret: randomBytes(32))
        if rawStreams { c.raw = RawStreams() }
        c.retained.append(credentials)
        var dcid = ngtcp2_cid(), scid = ngtcp2_cid()
        fillRandomCID(&dcid, length: 18)
        fillRandomCID(&scid, length: min(max(config.clientConnectionIDLength, 0), Int(NGTCP2_MAX_CIDLEN)))
        // A client with 0-byte IDs (the default) names its qlog by its first DCID: unique per connection.
        var settings = c.makeSettings(now: now, scid: scid, odcid: nil, qlogID: scid.datalen > 0 ? scid : dcid)
        var params = c.makeTransportParams()
        var callbacks = makeCallbacks(server: false)
        var raw: OpaquePointer?
        let path = c.buffers.rxPath.set(local: local, remote: remote)
        let rv = netbench_ngtcp2_conn_client_new(
            &raw, &dcid, &scid, path, &callbacks, &settings,
            &params, c.userData)
        guard rv == 0, let raw else { throw transportError(rv, "ngtcp2_conn_client_new") }
        c.conn = raw
        try c.setUpClientTLS(
            credentials: credentials, serverName: serverName,
            ticket: resumption.map { $0.ticket })
        ngtcp2_conn_set_tls_native_handle(raw, UnsafeMutableRawPointer(c.session))
        if let resumption {
            var early = ngtcp2_transport_params()
            netbench_ngtcp2_transport_params_default(&early)
            resumption.apply(to: &early)
            netbench_ngtcp2_conn_set_early_remote_transport_params(raw, &early)
            c.client.earlyDataAttempted = true
            try c.setUpHTTP3()
        }
        return c
    }

    /// A server connection for a client Initial whose header is `hd`.
    /// - Parameter retry: the client's first DCID and its token when this Initial carried a valid
    ///   Retry token (the address is then validated: no anti-amplification limit).
    static func server(
        config: QUICConfiguration, tls: ServerTLSContext, initial hd: ngtcp2_pkt_hd,
        local: Endpoint, remote: Endpoint, staticSecret: [UInt8],
        filler: FillerBuffer, now: Instant,
        retry: (originalDCID: ngtcp2_cid, token: [UInt8])? = nil
    ) throws -> QUICConnection {
        let c = try QUICConnection(
            role: .server(ServerRole()), config: config, filler: filler, now: now,
            staticSecret: staticSecret)
        c.retained.append(tls)
        if config.alpn == QUICPerf.alpn { c.raw = RawStreams(perfServer: PerfServerStreams()) }
        var scid = ngtcp2_cid()
        fillRandomCID(&scid, length: serverCIDLength)
        var settings = c.makeSettings(now: now, scid: scid, odcid: hd.dcid, qlogID: scid)
        var params = c.makeTransportParams()
        params.original_dcid = hd.dcid
        let token = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(retry?.token.count ?? 0, 1))
        defer { token.deallocate() }
        if let retry {
            // RFC 9000 §7.3: the client checks both against the Retry it followed.
            params.original_dcid = retry.originalDCID
            params.retry_scid = hd.dcid
            params.retry_scid_present = 1
            _ = token.initialize(from: retry.token)
            settings.token = ngtcp2_vec(base: token.baseAddress, len: retry.token.count)
        }
        params.stateless_reset_token_present = 1
        fillRandom(&params.stateless_reset_token)
        var callbacks = makeCallbacks(server: true)
        var raw: OpaquePointer?
        var dcid = hd.scid
        let path = c.buffers.rxPath.set(local: local, remote: remote)
        let rv = netbench_ngtcp2_conn_server_new(
            &raw, &dcid, &scid, path, hd.version, &callbacks,
            &settings, &params, c.userData)
        guard rv == 0, let raw else { throw transportError(rv, "ngtcp2_conn_server_new") }
        c.conn = raw
        try c.setUpServerTLS(tls)
        ngtcp2_conn_set_tls_native_handle(raw, UnsafeMutableRawPointer(c.session))
        return c
    }

    private func makeSettings(now: Instant, scid: ngtcp2_cid, odcid: ngtcp2_cid?, qlogID: ngtcp2_cid)
        -> ngtcp2_settings
    {
        var s = ngtcp2_settings()
        netbench_ngtcp2_settings_default(&s)
        s.initial_ts = now.nanoseconds
        s.initial_rtt = UInt64(max(config.initialRTT, 1))
        switch config.congestionControl {
        case .reno: s.cc_algo = NGTCP2_CC_ALGO_RENO
        case .cubic: s.cc_algo = NGTCP2_CC_ALGO_CUBIC
        case .bbr: s.cc_algo = NGTCP2_CC_ALGO_BBR
        case .bbr2: s.cc_algo = NGTCP2_CC_ALGO_BBR2
        }
        // Window auto-tuning up to the configured maxima, as browsers grow their windows.
        s.max_window = config.maxData
        s.max_stream_window = config.maxStreamData
        if let t = config.handshakeTimeout { s.handshake_timeout = UInt64(max(t, 1)) }
        if let size = config.maxUDPPayloadSize { s.max_tx_udp_payload_size = size }
        s.no_pmtud = config.disablePMTUD ? 1 : 0
        if let size = config.fixedUDPPayloadSize {
            s.max_tx_udp_payload_size = size
            s.no_tx_udp_payload_size_shaping = 1
            s.no_pmtud = 1
        }
        s.ack_thresh = max(config.ackThreshold, 1)
        if config.debugLog { s.log_printf = netbench_ngtcp2_debug_logger() }
        if let sink = config.diagnostics {
            var cid = qlogID
            let name = withUnsafeBytes(of: &cid.data) { hex(UnsafeRawBufferPointer(rebasing: $0[0..<cid.datalen])) }
            if let stream = sink.qlogStream(name: "\(isServer ? "server" : "client")-\(name)") {
                qlog = stream
                // Also called from ngtcp2_conn_del (the final, empty write) while this object is
                // in deinit: borrow it without retaining.
                s.qlog.write = { userData, _, data, length in
                    Unmanaged<QUICConnection>.fromOpaque(userData!)._withUnsafeGuaranteedRef { c in
                        if let q = c.qlog, let data, length > 0 {
                            q.write(UnsafeRawBufferPointer(start: data, count: length))
                        }
                    }
                }
                if let odcid { s.qlog.odcid = odcid }
            }
        }
        return s
    }

    private func makeTransportParams() -> ngtcp2_transport_params {
        var p = ngtcp2_transport_params()
        netbench_ngtcp2_transport_params_default(&p)
        p.initial_max_stream_data_bidi_local = config.maxStreamData
        p.initial_max_stream_data_bidi_remote = config.maxStreamData
        p.initial_max_stream_data_uni = config.maxStreamData
        p.initial_max_data = config.maxData
        p.initial_max_streams_bidi = config.maxStreamsBidi
        p.initial_max_streams_uni = max(config.maxStreamsUni, 3)
        p.max_idle_timeout = UInt64(max(config.idleTimeout, 0))
        p.active_connection_id_limit = 7
        return p
    }

    // MARK: Driving

    var isOpen: Bool { if case .open = state { return true } else { return false } }

    var isClosed: Bool { if case .closed = state { return true } else { return false } }

    func takeEvents() -> [ConnectionEvent] {
        if events.isEmpty { return [] }
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    /// Feeds one datagram to ngtcp2.
    /// `arrival` (the kernel's receive time) is the timestamp ngtcp2 gets for the datagram when
    /// given: its ACK delay then covers the time the datagram waited for this thread, and the RTT
    /// samples it takes measure the path, not the two processes' backlogs. Never before a time
    /// ngtcp2 was already given (its clock must not go back); `now` stays the time of everything else.
    func receive(
        _ datagram: UnsafeRawBufferPointer, local: Endpoint, remote: Endpoint, now: Instant, arrival: Instant? = nil,
        ecn: ECNCodepoint = .notECT
    ) {
        self.now = now
        switch state {
        case .open: break
        case .closing: closing.due = true; return
        case .draining, .closed: return
        }
        guard let base = datagram.baseAddress, datagram.count > 0 else { return }
        statistics.datagramsReceived += 1
        statistics.bytesReceived += UInt64(datagram.count)
        statistics.ecnReceived.count(ecn)
        let path = buffers.rxPath.set(local: local, remote: remote)
        let ts = min(now.nanoseconds, max(arrival?.nanoseconds ?? now.nanoseconds, engineTime))
        engineTime = ts
        let rv = netbench_ngtcp2_conn_read_pkt(
            conn, path, base.assumingMemoryBound(to: UInt8.self),
            datagram.count, UInt32(ecn.rawValue), ts)
        if rv != 0 { handleReadError(rv) }
    }

    private func handleReadError(_ rv: Int32) {
        var ccerr = ngtcp2_connection_close_error()
        ngtcp2_connection_close_error_default(&ccerr)
        switch rv {
        case NGTCP2_ERR_DRAINING:
            var received = ngtcp2_connection_close_error()
            ngtcp2_conn_get_connection_close_error(conn, &received)
            enterDraining(.closedByPeer(QUICCloseReason(received)))
            return
        case NGTCP2_ERR_DROP_CONN, NGTCP2_ERR_RETRY:
            finish(.transport(code: rv, message: String(cString: ngtcp2_strerror(rv))))
            return
        case NGTCP2_ERR_CRYPTO:
            ngtcp2_connection_close_error_set_transport_error_tls_alert(
                &ccerr, ngtcp2_conn_get_tls_alert(conn), nil, 0)
            startClosing(ccerr, reporting: cryptoFailure())
        default:
            if let (known, error) = callbackFailure {
                callbackFailure = nil
                startClosing(known, reporting: error)
                return
            }
            ngtcp2_connection_close_error_set_transport_error_liberr(&ccerr, rv, nil, 0)
            startClosing(ccerr, reporting: .transport(code: rv, message: String(cString: ngtcp2_strerror(rv))))
        }
    }

    var expiry: Instant? {
        switch state {
        case .open:
            let t = ngtcp2_conn_get_expiry(conn)
            if t == netbench_ngtcp2_max_tstamp() { return nil }
            // ngtcp2 0.12.1 reports a retired connection ID's deadline (retired_ts + PTO) as the
            // expiry but removes it only strictly after it, so handling it at exactly that
            // instant changes nothing; a driver in virtual time would spin. Ask for 1 ns later.
            if let handled = handledExpiryAt, t <= handled.nanoseconds {
                return Instant(nanoseconds: handled.nanoseconds + 1)
            }
            return Instant(nanoseconds: t)
        case .closing(let until), .draining(let until): return until
        case .closed: return nil
        }
    }

    func handleExpiry(now: Instant) {
        self.now = now
        switch state {
        case .open:
            handledExpiryAt = now
            engineTime = max(engineTime, now.nanoseconds)
            let rv = ngtcp2_conn_handle_expiry(conn, now.nanoseconds)
            guard rv != 0 else { return }
            switch rv {
            case NGTCP2_ERR_IDLE_CLOSE:
                finish(.idleTimeout)
            case NGTCP2_ERR_HANDSHAKE_TIMEOUT:
                var ccerr = ngtcp2_connection_close_error()
                ngtcp2_connection_close_error_set_transport_error_liberr(&ccerr, rv, nil, 0)
                startClosing(ccerr, reporting: .handshakeTimeout)
            default:
                var ccerr = ngtcp2_connection_close_error()
                ngtcp2_connection_close_error_set_transport_error_liberr(&ccerr, rv, nil, 0)
                startClosing(ccerr, reporting: .transport(code: rv, message: String(cString: ngtcp2_strerror(rv))))
            }
        case .closing(let until), .draining(let until):
            if now >= until { state = .closed }
        case .closed:
            break
        }
    }

    /// The PTO-based period a closing or draining endpoint waits (RFC 9000 §10.2: 3 × PTO).
    /// Three PTOs, as RFC 9000 §10.2 asks; ngtcp2 can report an unbounded PTO before any RTT
    /// sample, so it is clamped (a closing connection never waits more than a minute).
    private var closeWait: Nanoseconds {
        Nanoseconds(clamping: min(ngtcp2_conn_get_pto(conn), 20_000_000_000)) * 3
    }

    /// Only a server lingers in the closing and draining periods: it must not mistake the
    /// peer's late packets for new connections. A client has nothing to protect and stops.
    private var lingers: Bool { isServer }

    private func enterDraining(_ error: QUICError) {
        events.append(.closed(error))
        state = lingers ? .draining(until: now + closeWait) : .closed
    }

    /// Ends the connection without sending anything (idle timeout, dropped state).
    func finish(_ error: QUICError) {
        events.append(.closed(error))
        state = .closed
    }

    /// Writes CONNECTION_CLOSE for `ccerr`, reports `error` and enters the closing period.
    func startClosing(_ ccerr: ngtcp2_connection_close_error, reporting error: QUICError) {
        guard isOpen else { return }
        var ccerr = ccerr
        let n = netbench_ngtcp2_conn_write_connection_close(
            conn, buffers.txPath.clear(), buffers.send, PacketBuffers.sendSize, &ccerr, now.nanoseconds)
        if n > 0 {
            closing.packet = Array(UnsafeRawBufferPointer(start: buffers.send, count: Int(n)))
            closing.due = true
        }
        events.append(.closed(error))
        state = closing.packet == nil && !lingers ? .closed : .closing(until: now + closeWait)
    }

    /// The error to report after `NGTCP2_ERR_CRYPTO`: a certificate verdict when verification
    /// failed, else the TLS alert.
    private func cryptoFailure() -> QUICError {
        if !isServer, let session {
            let status = gnutls_session_get_verify_cert_status(session)
            if status != 0 {
                var out = gnutls_datum_t()
                if gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &out, 0) == 0,
                    let data = out.data
                {
                    let text = String(cString: UnsafeRawPointer(data).assumingMemoryBound(to: CChar.self))
                    netbench_gnutls_free(data)
                    return .certificate(text)
                }
                return .certificate("verification status 0x\(String(status, radix: 16))")
            }
        }
        let alert = ngtcp2_conn_get_tls_alert(conn)
        let name = gnutls_alert_get_name(gnutls_alert_description_t(UInt32(alert))).map { String(cString: $0) } ?? "?"
        return .tls(code: Int32(alert), message: "TLS alert \(alert) (\(name))")
    }
}

// MARK: Helpers

let serverCIDLength = 18

func transportError(_ rv: Int32, _ call: String) -> QUICError {
    .transport(code: rv, message: "\(call): \(String(cString: ngtcp2_strerror(rv)))")
}

func http3Error(_ rv: Int32, _ call: String) -> QUICError {
    .http3(code: rv, message: "\(call): \(String(cString: nghttp3_strerror(rv)))")
}

func randomBytes(_ n: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: n)
    bytes.withUnsafeMutableBytes { _ = gnutls_rnd(GNUTLS_RND_RANDOM, $0.baseAddress, n) }
    return bytes
}

func fillRandom<T>(_ value: inout T) {
    withUnsafeMutableBytes(of: &value) { _ = gnutls_rnd(GNUTLS_RND_RANDOM, $0.baseAddress, $0.count) }
}

func fillRandomCID(_ cid: inout ngtcp2_cid, length: Int) {
    cid.datalen = length
    withUnsafeMutableBytes(of: &cid.data) { _ = gnutls_rnd(GNUTLS_RND_RANDOM, $0.baseAddress, length) }
}

extension QUICCloseReason {
    init(_ e: ngtcp2_connection_close_error) {
        let reason =
            e.reason.map { String(decoding: UnsafeBufferPointer(start: $0, count: e.reasonlen), as: UTF8.self) } ?? ""
        self.init(
            isApplicationError: e.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION,
            code: e.error_code, reason: reason)
    }
}

extension QUICResumptionState {
    func apply(to p: inout ngtcp2_transport_params) {
        p.initial_max_streams_bidi = initialMaxStreamsBidi
        p.initial_max_streams_uni = initialMaxStreamsUni
        p.initial_max_stream_data_bidi_local = initialMaxStreamDataBidiLocal
        p.initial_max_stream_data_bidi_remote = initialMaxStreamDataBidiRemote
        p.initial_max_stream_data_uni = initialMaxStreamDataUni
        p.initial_max_data = initialMaxData
        p.active_connection_id_limit = activeConnectionIDLimit
        p.max_idle_timeout = maxIdleTimeout
        p.max_udp_payload_size = maxUDPPayloadSize
        p.disable_active_migration = disableActiveMigration ? 1 : 0
        p.max_datagram_frame_size = maxDatagramFrameSize
    }

    init(ticket: [UInt8], serverName: String, alpn: String, params p: ngtcp2_transport_params) {
        self.init(
            ticket: ticket, serverName: serverName, alpn: alpn,
            initialMaxStreamsBidi: p.initial_max_streams_bidi,
            initialMaxStreamsUni: p.initial_max_streams_uni,
            initialMaxStreamDataBidiLocal: p.initial_max_stream_data_bidi_local,
            initialMaxStreamDataBidiRemote: p.initial_max_stream_data_bidi_remote,
            initialMaxStreamDataUni: p.initial_max_stream_data_uni,
            initialMaxData: p.initial_max_data,
            activeConnectionIDLimit: p.active_connection_id_limit,
            maxIdleTimeout: p.max_idle_timeout, maxUDPPayloadSize: p.max_udp_payload_size,
            disableActiveMigration: p.disable_active_migration != 0,
            maxDatagramFrameSize: p.max_datagram_frame_size)
    }
}
