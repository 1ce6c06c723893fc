import BenchCore
internal import CNgtcp2

/// The congestion controllers ngtcp2 0.12.1 ships (`ngtcp2_cc_algo`).
public enum QUICCongestionControl: String, Sendable, Codable, CaseIterable {
    case reno, cubic, bbr, bbr2
}

/// When a server validates client addresses with Retry (RFC 9000 §8.1.2) before it keeps any
/// state: a Retry costs a round trip, so benchmarks never pay it unless asked.
public enum QUICRetryPolicy: String, Sendable, Codable, CaseIterable {
    /// Never: new Initials past `maxPendingHandshakes` are dropped.
    case never
    /// Once half of `maxPendingHandshakes` are in use (an Initial flood); a client that comes back
    /// with its token is served even past the limit.
    case underLoad = "under-load"
    /// For every new connection.
    case always
}

/// How a client moves its connection to a new local address.
public enum QUICMigrationMode: String, Sendable, Codable {
    /// `ngtcp2_conn_initiate_migration`: validate the new path (PATH_CHALLENGE/RESPONSE) and
    /// switch to it once validated; data keeps flowing on the old path meanwhile.
    case validateFirst
    /// `ngtcp2_conn_initiate_immediate_migration`: send everything on the new path at once and
    /// validate it in parallel; what a client does when its old interface is gone.
    case immediate
}

/// Settings shared by `HTTP3Client` and `HTTP3Server`.
///
/// Defaults are browser-like: generous flow-control windows so that a page load is limited
/// by the network and congestion control, not by receive windows.
public struct QUICConfiguration: Sendable {
    /// The ALPN token offered (client) or required (server).
    public var alpn: String = "h3"
    /// RTT assumed before the first sample. ngtcp2's 333 ms default paces the client's second
    /// handshake flight by cwnd/initial_rtt and stalls short handshakes, hence 100 ms.
    public var initialRTT: Nanoseconds = .milliseconds(100)
    public var congestionControl: QUICCongestionControl = .cubic
    /// Pacing rate in slow start, as a multiple of cwnd/smoothed RTT, for cubic and reno (BBR sets
    /// its own rate). ngtcp2 0.12 paces at 1.25 × cwnd/srtt in every phase; the senders HTTP/3 and
    /// HTTP/2 are compared against pace slow start at 2× (Chromium's QUIC `TcpCubicSenderBytes`,
    /// Linux TCP's `tcp_pacing_ss_ratio` = 200%) and 1.25× / 1.2× after it, as RFC 9002 §7.7
    /// allows. 1.25 keeps ngtcp2's own pacing; `.infinity`: no pacing in slow start.
    public var slowStartPacingGain: Double = 2
    /// Pacing rate after slow start (congestion avoidance and recovery), as a multiple of
    /// cwnd/smoothed RTT, for cubic and reno: 1.25 is ngtcp2's (RFC 9002 §7.7's example, Chromium's
    /// QUIC); `.infinity`: no pacing after slow start, so that cwnd and the ACK clock alone decide,
    /// as for Linux TCP cubic without the fq qdisc (the emulator's namespaces use pfifo_fast).
    public var congestionAvoidancePacingGain: Double = 1.25
    /// `max_idle_timeout` transport parameter; the connection closes after this much silence.
    public var idleTimeout: Nanoseconds = .seconds(30)
    /// Gives up a handshake that has not completed after this long (`nil`: ngtcp2's default).
    public var handshakeTimeout: Nanoseconds? = nil
    /// Connection-level receive window (`initial_max_data`).
    public var maxData: UInt64 = 15 * 1024 * 1024
    /// Per-stream receive window (`initial_max_stream_data_*`).
    public var maxStreamData: UInt64 = 6 * 1024 * 1024
    /// Concurrent bidirectional streams the peer may open.
    public var maxStreamsBidi: UInt64 = 100
    /// Unidirectional streams the peer may open: HTTP/3 needs 3, and some stacks open more
    /// (reserved stream types, pushes), so leave room as browsers do.
    public var maxStreamsUni: UInt64 = 100
    /// Cap on the UDP payload sent (`max_tx_udp_payload_size`; `nil`: ngtcp2's 1,452). ngtcp2 0.12.1
    /// sends 1,200-byte datagrams until path MTU discovery, after the handshake, confirms one of its
    /// probe sizes (1,406 and 1,444 bytes under the default cap): over a 1,500-byte MTU its packets top
    /// out at 1,472 IP bytes, where TCP's fill 1,500.
    public var maxUDPPayloadSize: Int? = nil
    /// Turns path MTU discovery off (handy when an emulated link has a fixed MTU).
    public var disablePMTUD: Bool = false
    /// Every datagram may be this large from the first (`no_tx_udp_payload_size_shaping`, no PMTU
    /// discovery), as TCP takes its MSS from the interface's MTU; the peer's max_udp_payload_size
    /// still caps it. For a known path: 1,472 fills a 1,500-byte MTU. `nil`: `maxUDPPayloadSize`
    /// with discovery.
    public var fixedUDPPayloadSize: Int? = nil
    /// Length of the client's source connection IDs (0–20). Every short-header packet the server
    /// sends carries it, so on a download it costs this many bytes per packet: Chromium's and
    /// quic-go's clients use 0 (checked on Chromium's packets here), ngtcp2's example client 17.
    public var clientConnectionIDLength: Int = 0
    /// Ack-eliciting packets received before an ACK is sent at once (`ack_thresh`; ngtcp2's 2;
    /// otherwise after max_ack_delay, 25 ms).
    public var ackThreshold: Int = 2
    /// Where each connection's qlog (a stream named `<role>-<scid>`, JSON text sequences as ngtcp2
    /// 0.12 writes them) and NSS key-log lines (`CLIENT_HANDSHAKE_TRAFFIC_SECRET <random> <secret>`)
    /// go. The engine does no file I/O; `nil`: neither.
    public var diagnostics: (any DiagnosticsSink)? = nil
    /// Largest decoded header section accepted (names + values + 32 bytes each); a peer past it
    /// (a QPACK bomb) has its connection closed. Also sent as SETTINGS_MAX_FIELD_SECTION_SIZE.
    public var maxHeaderListSize: Int = 65_536
    /// Server: connections held at once; Initials past it are dropped.
    public var maxConnections: Int = 4_096
    /// Server: connections whose handshake has not completed; Initials past it are dropped
    /// (ngtcp2 limits what an unvalidated address gets to 3× what it sent, RFC 9000 §8.1).
    public var maxPendingHandshakes: Int = 1_024
    /// Server: when to answer an Initial with a Retry (address validation) first.
    public var retry: QUICRetryPolicy = .underLoad
    /// Writes ngtcp2's own debug log to standard error (very verbose; for debugging only).
    public var debugLog: Bool = false
    /// ECN (RFC 9000 §13.4): datagrams leave with the codepoint ngtcp2 asks for (ECT(0) until its
    /// validation fails). Off: every datagram leaves Not-ECT. Either way the codepoints received
    /// are read at the socket and given to ngtcp2. Read by the event loop that owns the socket.
    public var ecn: Bool = false
    /// Client: bytes of zeros in an extension of a GREASE type (RFC 8701) added to the ClientHello,
    /// so that its Initial packets are as many as a browser's (`ClientHelloPadding` in TLS says
    /// why); 0: GnuTLS's own ClientHello. The server ignores it.
    public var clientHelloPadding: Int = 0
    /// The padding extension's type as the GnuTLS shim registers it.
    public static let clientHelloPaddingExtensionType = Int(NETBENCH_QUIC_CLIENT_HELLO_PAD_TYPE)

    public init() {}

    /// The same settings with the given changes; reads well in tests and in the runner.
    public func with(_ change: (inout QUICConfiguration) -> Void) -> QUICConfiguration {
        var copy = self
        change(&copy)
        return copy
    }
}

/// A certificate chain and its private key, both PEM, served by `HTTP3Server`.
public struct QUICServerCredentials: Sendable {
    public var certificateChainPEM: String
    public var privateKeyPEM: String

    public init(certificateChainPEM: String, privateKeyPEM: String) {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
    }
}

/// What a client needs to resume a session with 0-RTT: the TLS session ticket and the server
/// transport parameters it remembered (RFC 9000 §7.4.1: 0-RTT data may use no more than them).
public struct QUICResumptionState: Sendable, Codable, Equatable {
    /// GnuTLS session data (`gnutls_session_get_data2`) holding the NewSessionTicket.
    public var ticket: [UInt8]
    public var serverName: String
    public var alpn: String
    public var initialMaxStreamsBidi: UInt64
    public var initialMaxStreamsUni: UInt64
    public var initialMaxStreamDataBidiLocal: UInt64
    public var initialMaxStreamDataBidiRemote: UInt64
    public var initialMaxStreamDataUni: UInt64
    public var initialMaxData: UInt64
    public var activeConnectionIDLimit: UInt64
    public var maxIdleTimeout: UInt64
    public var maxUDPPayloadSize: UInt64
    public var disableActiveMigration: Bool
    public var maxDatagramFrameSize: UInt64

    public init(
        ticket: [UInt8], serverName: String, alpn: String,
        initialMaxStreamsBidi: UInt64, initialMaxStreamsUni: UInt64,
        initialMaxStreamDataBidiLocal: UInt64, initialMaxStreamDataBidiRemote: UInt64,
        initialMaxStreamDataUni: UInt64, initialMaxData: UInt64,
        activeConnectionIDLimit: UInt64, maxIdleTimeout: UInt64, maxUDPPayloadSize: UInt64,
        disableActiveMigration: Bool, maxDatagramFrameSize: UInt64
    ) {
        self.ticket = ticket
        self.serverName = serverName
        self.alpn = alpn
        self.initialMaxStreamsBidi = initialMaxStreamsBidi
        self.initialMaxStreamsUni = initialMaxStreamsUni
        self.initialMaxStreamDataBidiLocal = initialMaxStreamDataBidiLocal
        self.initialMaxStreamDataBidiRemote = initialMaxStreamDataBidiRemote
        self.initialMaxStreamDataUni = initialMaxStreamDataUni
        self.initialMaxData = initialMaxData
        self.activeConnectionIDLimit = activeConnectionIDLimit
        self.maxIdleTimeout = maxIdleTimeout
        self.maxUDPPayloadSize = maxUDPPayloadSize
        self.disableActiveMigration = disableActiveMigration
        self.maxDatagramFrameSize = maxDatagramFrameSize
    }
}

/// A snapshot of one connection's recovery and congestion state (`ngtcp2_conn_get_conn_stat`)
/// plus counters the engine keeps itself.
public struct QUICStatistics: Sendable, Equatable {
    /// `nil` until the first RTT sample.
    public var smoothedRTT: Nanoseconds?
    public var minRTT: Nanoseconds?
    public var latestRTT: Nanoseconds?
    public var rttVariance: Nanoseconds?
    public var congestionWindow: UInt64 = 0
    public var slowStartThreshold: UInt64 = 0
    public var bytesInFlight: UInt64 = 0
    /// Current delivery rate estimate in bytes per second (0 before any estimate).
    public var deliveryRate: UInt64 = 0
    /// Probe timeouts in a row right now.
    public var ptoCount: Int = 0
    /// Datagrams handed to `emit` and accepted by `receive`, and their UDP payload bytes.
    public var datagramsSent: UInt64 = 0
    public var datagramsReceived: UInt64 = 0
    public var bytesSent: UInt64 = 0
    public var bytesReceived: UInt64 = 0
    /// Stream frames declared lost, summed over this connection's request streams
    /// (`ngtcp2_conn_get_stream_loss_count`); ngtcp2 0.12.1 keeps no per-packet loss counter.
    public var streamFramesLost: UInt64 = 0
    /// Path validations that succeeded (migration, NAT rebinding) and that failed.
    public var pathValidations: Int = 0
    public var pathValidationFailures: Int = 0
    /// The ECN codepoints of the datagrams `receive` was given (what the socket read; ngtcp2 0.12.1
    /// keeps its own counts private).
    public var ecnReceived = ECNCounts()
    /// The codepoints ngtcp2 asked for on the datagrams it wrote, and on the last one: it asks for
    /// ECT(0) while ECN validation (RFC 9000 §13.4.2) is testing or has succeeded and stops when
    /// it fails, so the last one says whether ECN is still in use.
    public var ecnRequested = ECNCounts()
    public var lastRequestedECN: ECNCodepoint?

    public init() {}
}
