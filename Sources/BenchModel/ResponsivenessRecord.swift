import BenchCore

/// One cell of `netbench responsiveness` (a profile, a queue, a transport, a direction), as
/// `--output` writes it: the idle probes and each loaded phase with its RPM figures
/// (draft-ietf-ippm-responsiveness-08, "Aggregating the Measurements").
public struct ResponsivenessRecord: Codable, Sendable, Hashable {
    public var profile: String
    /// The queue asked for (`bdp`, `4bdp`, `1s`) and its size in bytes per direction.
    public var queue: String
    public var queueBytes: Int?
    public var transport: TransportKind
    /// `down`, `up` or `bidir`: which directions the load saturates.
    public var direction: String
    /// `bidir` only: `parallel` (both loads at once, one RPM) or `sequential` (a download phase,
    /// then an upload phase, each with its RPM).
    public var mode: String?
    /// `--ecn`: the endpoints used ECN (TCP negotiated in the namespaces, QUIC sent ECT(0)); nil: off.
    public var ecn: Bool?
    public var idle: Phase?
    public var loaded: [Phase]
    public var emulatorFlags: [String]?
    public var error: String?

    public init(profile: String, queue: String, transport: TransportKind, direction: String) {
        self.profile = profile; self.queue = queue; self.transport = transport; self.direction = direction
        loaded = []
    }

    /// One phase's probes and what they give.
    public struct Phase: Codable, Sendable, Hashable {
        /// `idle`, or the load of a loaded phase: `down`, `up` or `bidir`.
        public var load: String
        /// Round trips per minute: foreign (new connections), self (on the load-generating
        /// connections; idle: on a quiet one) and their mean, the draft's RPM.
        public var rpm: Double?
        public var foreignRPM: Double?
        public var selfRPM: Double?
        /// Trimmed means, ms: each handshake kind (TCP: tcp, tls; QUIC: quic), foreign and self HTTP.
        public var handshakeMs: [Double]?
        public var foreignHTTPMs: Double?
        public var selfHTTPMs: Double?
        public var foreignProbes: Int
        public var selfProbes: Int
        /// Self probes that are the load connections' smoothed RTT estimate instead of a GET, as the
        /// draft allows where a GET cannot be multiplexed on them (HTTP/3 uploads here); nil: none.
        public var selfProbesEstimated: Int?
        /// Probes that failed or were unanswered at the end (left out of RPM).
        public var unfinished: Int
        /// The load flows' goodput while the probes ran, Mbit/s, per direction loaded.
        public var downloadMbps: Double?
        public var uploadMbps: Double?
        /// Loaded phases with `--ecn`: load connections that used ECN (TCP negotiated, QUIC validated).
        public var ecnLoadConnections: Int?
        public var firstFailure: String?

        public init(load: String, foreignProbes: Int, selfProbes: Int, unfinished: Int) {
            self.load = load; self.foreignProbes = foreignProbes; self.selfProbes = selfProbes
            self.unfinished = unfinished
        }
    }
}
