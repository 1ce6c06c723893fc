import BenchCore

// The records of one run's connections in `results.json` (`RunRecord.connections`): each
// connection's timings and addresses, its server's TCP sender figures, ECN, QUIC statistics and
// path validations.

public struct ConnectionRecord: Codable, Sendable, Hashable {
    public var id: Int
    public var origin: String
    public var transport: TransportKind
    public var connectStart: Double
    /// TCP connected (h1/h2); nil for QUIC.
    public var connectEnd: Double?
    /// TLS or QUIC handshake complete.
    public var handshakeEnd: Double?
    public var closedAt: Double?
    /// True when no request went on the connection: HTTP/1.1 binds late, so a connection opened
    /// for a waiting request may find it served by one that freed first (as Chromium's socket
    /// pool). The page's end closes it, its handshake done or not (then no `handshakeEnd`, `alpn`).
    public var unused: Bool?
    public var localAddress: String?
    public var remoteAddress: String?
    public var tlsVersion: String?
    public var alpn: String?
    public var resumed: Bool?
    public var earlyDataAccepted: Bool?
    public var path: String?
    public var error: String?
    /// TCP congestion control in effect on this connection (QUIC's is in `quic`).
    public var congestionControl: String?
    public var quic: QUICStatsRecord?
    /// The server's TCP sender on this connection (h1/h2), read from the kernel as it closed;
    /// nil when unknown (another server, or it had not closed when the run was recorded).
    public var serverTCP: TCPSenderRecord?
    /// ECN on this connection, as the client saw it; nil when not known (results before ECN was
    /// recorded, or TCP_INFO unreadable).
    public var ecn: ECNRecord?
    public init(id: Int, origin: String, transport: TransportKind, connectStart: Double) {
        self.id = id; self.origin = origin; self.transport = transport; self.connectStart = connectStart
    }
}

/// What the kernel's TCP sender counted on one connection (getsockopt TCP_INFO just before close).
public struct TCPSenderRecord: Codable, Sendable, Hashable {
    /// Data segments sent, retransmissions included (tcpi_data_segs_out).
    public var segmentsSent: Int64
    /// Segments sent again (tcpi_total_retrans).
    public var segmentsRetransmitted: Int64
    /// Payload bytes sent and resent (tcpi_bytes_sent, tcpi_bytes_retrans).
    public var bytesSent: Int64
    public var bytesRetransmitted: Int64
    /// Congestion window at close, segments (tcpi_snd_cwnd).
    public var cwndSegments: Int64
    /// Slow-start threshold at close, segments; absent when the connection never left slow start.
    public var ssthreshSegments: Int64?
    /// The sender's minimum and smoothed RTT, ms.
    public var minRttMs: Double
    public var smoothedRttMs: Double
    /// Whether the connection negotiated ECN (tcpi_options & TCPI_OPT_ECN).
    public var ecnNegotiated: Bool?
    /// Delivered packets the receiver reported CE-marked (tcpi_delivered_ce).
    public var deliveredCE: Int64?
    public init(
        segmentsSent: Int64, segmentsRetransmitted: Int64, bytesSent: Int64, bytesRetransmitted: Int64,
        cwndSegments: Int64, ssthreshSegments: Int64?, minRttMs: Double, smoothedRttMs: Double
    ) {
        self.segmentsSent = segmentsSent; self.segmentsRetransmitted = segmentsRetransmitted
        self.bytesSent = bytesSent; self.bytesRetransmitted = bytesRetransmitted
        self.cwndSegments = cwndSegments; self.ssthreshSegments = ssthreshSegments
        self.minRttMs = minRttMs; self.smoothedRttMs = smoothedRttMs
    }
}

/// ECN on one connection (RFC 3168 for TCP, RFC 9000 §13.4 for QUIC), from the client's side.
public struct ECNRecord: Codable, Sendable, Hashable {
    /// TCP: both ends agreed to ECN in the handshake (TCP_INFO's TCPI_OPT_ECN). QUIC: ECN
    /// validated, inferred from ngtcp2 still asking for ECT(0) on the last packet it wrote (0.12.1
    /// stops asking when validation fails and exposes no state).
    public var negotiated: Bool
    /// QUIC: the codepoints of the datagrams the client received, counted at its socket (IP_RECVTOS).
    public var received: ECNCounts?
    /// QUIC: the client's datagrams that left marked ECT(0).
    public var sentECT0: Int64?
    public init(negotiated: Bool, received: ECNCounts? = nil, sentECT0: Int64? = nil) {
        self.negotiated = negotiated; self.received = received; self.sentECT0 = sentECT0
    }
}

public struct QUICStatsRecord: Codable, Sendable, Hashable {
    public var smoothedRttMs: Double?
    public var minRttMs: Double?
    public var cwndBytes: Int64?
    public var packetsSent: Int64?
    public var packetsReceived: Int64?
    /// Read from results written before `streamFramesLost`, which is what it counted; no longer written.
    public var packetsLost: Int64?
    /// STREAM frames declared lost (ngtcp2's per-stream loss count, summed), not packets: a lost
    /// packet may carry several frames or none.
    public var streamFramesLost: Int64?
    public var congestionControl: String?
    public var pathValidations: [PathValidationRecord]?
    public init() {}
}

public struct PathValidationRecord: Codable, Sendable, Hashable {
    /// PATH_CHALLENGE sent / validated, ms from navigation start.
    public var challengeAt: Double?
    public var validatedAt: Double?
    public var path: String?
    public init(challengeAt: Double? = nil, validatedAt: Double? = nil, path: String? = nil) {
        self.challengeAt = challengeAt; self.validatedAt = validatedAt; self.path = path
    }
}
