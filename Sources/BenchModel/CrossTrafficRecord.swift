import BenchCore

/// The cross traffic of one run (results.json `runs[].crossTraffic`): each competing flow's bytes
/// over time and, with two or more, how they shared the link.
public struct CrossTrafficRecord: Codable, Sendable, Hashable {
    /// Bin width, ms (100).
    public var binMs: Double
    /// Where bin 0 of every flow starts, ms from the page's navigation start (negative: before it;
    /// the earliest flow's start).
    public var originMs: Double
    public var flows: [CrossFlowRecord]
    /// The window all flows were running in (ms from navigation start, whole bins): shares and the
    /// fairness index are computed over it; nil with fewer than two flows or no common window.
    public var shareWindowStartMs: Double?
    public var shareWindowEndMs: Double?
    /// Jain's fairness index of the download flows' rates over the share window (1: equal; 1/n:
    /// one takes all). Downloads and uploads queue on different links: each direction has its own.
    public var jainIndex: Double?
    /// The same for upload flows (two or more), over their own window.
    public var uploadShareWindowStartMs: Double?
    public var uploadShareWindowEndMs: Double?
    public var uploadJainIndex: Double?
    public init(binMs: Double, originMs: Double, flows: [CrossFlowRecord]) {
        self.binMs = binMs; self.originMs = originMs; self.flows = flows
    }
}

/// One competing flow as it ran.
public struct CrossFlowRecord: Codable, Sendable, Hashable {
    public var name: String
    public var transport: TransportKind
    public var direction: Scenario.Bulk.Direction
    /// The congestion control asked for.
    public var congestionControl: String?
    /// TCP: what the server's accepted socket reported (getsockopt TCP_CONGESTION); QUIC: what
    /// the QUIC stack reports for the connection's sender.
    public var congestionControlReadBack: String?
    /// Planned start and actual stop, ms from the page's navigation start.
    public var startMs: Double
    public var stopMs: Double
    /// Application bytes over the flow's life: downloads count body bytes the client received;
    /// uploads the bytes the server acknowledged (TCP: tcpi_bytes_acked after the request was
    /// sent, TLS framing included; QUIC: STREAM bytes acknowledged, HTTP/3 framing included).
    public var bytes: Int64
    /// bytes × 8 / (stop − start), Mbit/s.
    public var goodputMbps: Double?
    /// Application bytes received per bin (bin k covers originMs + k·binMs …).
    public var bins: [Int64]
    /// This flow's part of the bytes of all flows in its direction over that direction's share window (0…1).
    public var share: Double?
    /// Why the flow failed or ended early (connection refused, reset…).
    public var error: String?
    public init(
        name: String, transport: TransportKind, direction: Scenario.Bulk.Direction, startMs: Double, stopMs: Double,
        bytes: Int64, bins: [Int64]
    ) {
        self.name = name; self.transport = transport; self.direction = direction
        self.startMs = startMs; self.stopMs = stopMs; self.bytes = bytes; self.bins = bins
    }
}

/// Counts bytes into fixed-width bins from an origin. Pure: the caller passes each arrival's
/// offset from the origin.
public struct ThroughputBins: Sendable, Equatable {
    public let width: Nanoseconds
    public private(set) var bins: [Int64] = []
    public private(set) var total: Int64 = 0

    public init(width: Nanoseconds = .milliseconds(100)) {
        precondition(width > 0)
        self.width = width
    }

    /// Adds `bytes` that arrived `offset` after the origin (a negative offset counts in bin 0).
    public mutating func add(_ bytes: Int, at offset: Nanoseconds) {
        let k = Int(max(0, offset) / width)
        if k >= bins.count { bins.append(contentsOf: repeatElement(0, count: k - bins.count + 1)) }
        bins[k] += Int64(bytes)
        total += Int64(bytes)
    }
}
