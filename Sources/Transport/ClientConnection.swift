import BenchCore
import QUIC

/// The HTTP version a client connection speaks.

/// One request the page loader sends.
public struct ClientRequest: Sendable {
    public var method: String
    public var authority: String
    public var path: String
    public var headers: [(String, String)]
    /// A generated (filler) request body of this length, for uploads; 0 for none.
    public var bodyLength: Int64
    /// Bytes the body starts with (a recorded POST's body); `bodyLength` counts them.
    public var body: [UInt8] = []
    /// How urgent the request is, as a browser would say it (HTTP/2: Chromium's dependency chain
    /// and weight; HTTP/3: a `priority: u=N` header, see `H3ClientConnection.priorityField`); nil
    /// sends none.
    public var priority: RequestPriority?
    /// RFC 9218's incremental flag (HTTP/3 only: `priority: …, i`); Chromium's per resource type is
    /// `Scenario.Resource.chromiumIncremental`.
    public var incremental = false
    public init(
        method: String = "GET", authority: String, path: String, headers: [(String, String)] = [],
        bodyLength: Int64 = 0,
        priority: RequestPriority? = nil
    ) {
        self.method = method; self.authority = authority; self.path = path; self.headers = headers;
        self.bodyLength = bodyLength
        self.priority = priority
    }

    /// Sends exactly `bytes` as the request body.
    public mutating func setBody(_ bytes: [UInt8]) {
        body = bytes
        bodyLength = Int64(bytes.count)
    }
}

/// What happens to a request, in order: sent, head, data…, end — or failed at any point.
public enum ClientEvent {
    case sent(Instant)
    case head(status: Int, headers: [(String, String)], Instant)
    case data(count: Int, Instant)
    case end(Instant)
    case failed(String, Instant)
}

/// Connection-level timestamps and facts, read by the loader when it writes results.
public struct ConnectionInfo: Sendable {
    public var kind: TransportKind
    public var connectStart: Instant
    /// TCP connected (nil for QUIC).
    public var connectEnd: Instant?
    /// TLS or QUIC handshake complete.
    public var handshakeEnd: Instant?
    public var closedAt: Instant?
    public var local: Endpoint?
    public var remote: Endpoint
    public var tlsVersion: String?
    public var alpn: String?
    public var resumed: Bool?
    public var earlyDataAccepted: Bool?
    public var error: String?
    /// TCP: the congestion control in effect (read back from the socket).
    public var congestionControl: String?
    /// TCP: whether the handshake negotiated ECN (TCP_INFO, read once connected); nil if unknown.
    public var ecnNegotiated: Bool?
    public var quic: QUICSnapshot?
    public init(kind: TransportKind, connectStart: Instant, remote: Endpoint) {
        self.kind = kind; self.connectStart = connectStart; self.remote = remote
    }
}

/// QUIC statistics copied out of the engine (no engine type leaks into results).
public struct QUICSnapshot: Sendable {
    public var smoothedRTT: Nanoseconds?
    public var minRTT: Nanoseconds?
    public var cwnd: Int64?
    public var packetsSent: Int64?
    public var packetsReceived: Int64?
    /// STREAM frames declared lost (not packets).
    public var streamFramesLost: Int64?
    public var congestionControl: String?
    public var pathValidations: [(challenge: Instant?, validated: Instant?)] = []
    /// Local addresses the connection used, in order (more than one after a migration or rebinding).
    public var localPaths: [Endpoint] = []
    /// ECN codepoints of the datagrams received, read at the socket.
    public var ecnReceived = ECNCounts()
    /// With ECN on (`QUICConfiguration.ecn`): datagrams sent ECT(0), and whether the last packet
    /// ngtcp2 wrote still asked for ECT (validation not failed); nil when ECN is off.
    public var ecnSentECT0: Int64?
    public var ecnValidated: Bool?
    public init() {}
}

/// The client's network changed, as a phone's operating system tells its apps.
public struct NetworkChange: Sendable {
    /// NAT rebinding is not one: a client never learns of it (the emulator's NAT does it).
    public enum Kind: String, Sendable {
        /// The interface in use went away; another path is active now (Wi-Fi → cellular).
        case switchPath = "switch"
    }
    public var kind: Kind
    /// The client's address from now on.
    public var localAddress: UInt32
    /// TCP connections are aborted (the OS drops the sockets of a lost interface): their
    /// requests fail and the loader reconnects.
    public var abortTCP: Bool
    public init(kind: Kind, localAddress: UInt32, abortTCP: Bool) {
        self.kind = kind; self.localAddress = localAddress; self.abortTCP = abortTCP
    }
}

/// A client connection of any protocol, driven by its event loop.
public protocol ClientConnection: AnyObject {
    var info: ConnectionInfo { get }
    /// Not closed or failed.
    var isUsable: Bool { get }
    /// How many more requests it takes now (requests sent before the handshake wait inside).
    var freeSlots: Int { get }
    /// Sends (or queues until the handshake) a request; `events` reports its progress.
    func send(_ request: ClientRequest, _ events: @escaping (ClientEvent) -> Void)
    /// Called when the connection becomes ready, frees a slot, or closes: the loader re-dispatches.
    var onStateChange: (() -> Void)? { get set }
    /// Reacts to a change of the client's network (QUIC migrates or rebinds; TCP may be aborted).
    func networkChanged(_ change: NetworkChange)
    /// Bytes the server acknowledged so far (TCP: tcpi_bytes_acked, TLS framing and handshake
    /// included; QUIC: STREAM bytes acknowledged); nil if unknown. Upload goodput.
    var bytesAcknowledged: Int64? { get }
    func close()
}

extension QUICSnapshot {
    /// The engine's counters of one connection (the per-connection fields, such as path validations
    /// and what ECN sent, are the caller's to add).
    init(_ s: QUICStatistics, congestionControl: String?, localPaths: [Endpoint]) {
        self.init()
        smoothedRTT = s.smoothedRTT
        minRTT = s.minRTT
        cwnd = Int64(s.congestionWindow)
        packetsSent = Int64(s.datagramsSent)
        packetsReceived = Int64(s.datagramsReceived)
        streamFramesLost = Int64(s.streamFramesLost)
        self.congestionControl = congestionControl
        self.localPaths = localPaths
        ecnReceived = s.ecnReceived
    }
}
