import BenchCore

/// How fast a link direction drains its bottleneck queue.
public enum LinkRate: Sendable, Equatable {
    /// No bottleneck: packets leave the queue the moment they arrive.
    case unlimited
    /// A constant rate in bits per second.
    case constant(bitsPerSecond: Double)
    /// A Mahimahi packet-delivery trace (one 1,500-byte opportunity per entry).
    case trace(MahimahiTrace)

    /// The long-run rate in bit/s (a trace's mean), or nil when unlimited.
    public var meanBitsPerSecond: Double? {
        switch self {
        case .unlimited: return nil
        case .constant(let bps): return bps
        case .trace(let t): return t.meanBitsPerSecond
        }
    }
}

/// The drop-tail limit of a bottleneck queue.
public enum QueueLimit: Sendable, Equatable {
    case bytes(Int)
    case packets(Int)

    /// The floor applied to the default (one bandwidth-delay product): 30 full-size packets,
    /// so a small-BDP link can still hold a burst of a TCP initial window and its retransmits.
    public static let floorBytes = 30 * 1500

    /// One bandwidth-delay product at `bitsPerSecond` over `roundTrip`, never below `floorBytes`;
    /// an unlimited rate gets the floor (its queue never fills).
    public static func bandwidthDelayProduct(bitsPerSecond: Double?, roundTrip: Nanoseconds) -> QueueLimit {
        guard let bps = bitsPerSecond, bps > 0 else { return .bytes(floorBytes) }
        let bdp = bps / 8 * Double(max(0, roundTrip)) / 1e9
        return .bytes(max(floorBytes, Int(bdp.rounded(.up))))
    }
}

/// A window during which the link is down, as offsets from the link's start.
///
/// A down link behaves like an interface that went down: packets arriving in [start, end) are
/// dropped, and packets still waiting in the bottleneck queue at `start` are flushed (dropped).
/// Packets that already left the bottleneck (propagating) are delivered.
public struct Outage: Sendable, Equatable {
    public var start: Nanoseconds
    public var end: Nanoseconds
    public init(start: Nanoseconds, end: Nanoseconds) {
        self.start = start
        self.end = end
    }
}

/// One direction of an emulated link. Stages, in order: outage → loss → bottleneck (queue
/// discipline + rate) → delay.
public struct LinkConfiguration: Sendable, Equatable {
    /// One-way propagation delay (a profile's `rtt` gives each direction rtt/2); with a delay
    /// trace, the trace's mean (what sizes the default queue and predicts round trips).
    public var delay: Nanoseconds
    public var rate: LinkRate
    public var loss: LossModel
    /// The drop-tail / drop-head limit; nil: one bandwidth-delay product of the path (see
    /// `QueueLimit.bandwidthDelayProduct`). The AQMs carry their own limits.
    public var queueLimit: QueueLimit?
    /// Which packet goes next, and which are dropped or marked (default drop-tail).
    public var discipline: DisciplineConfiguration
    public var outages: [Outage]
    /// A delay trace replacing `delay`, jitter and explicit reordering (see `DelayStage`).
    public var delayVariation: DelayVariation

    public init(
        delay: Nanoseconds = 0, rate: LinkRate = .unlimited, loss: LossModel = .none,
        queueLimit: QueueLimit? = nil, discipline: DisciplineConfiguration = .dropTail, outages: [Outage] = [],
        delayVariation: DelayVariation = .none
    ) {
        self.delay = delay
        self.delayVariation = delayVariation
        self.rate = rate
        self.loss = loss
        self.queueLimit = queueLimit
        self.discipline = discipline
        self.outages = outages
    }

    /// The queue limit in force: the configured one, or one BDP over `roundTrip` at the mean rate.
    public func effectiveQueueLimit(roundTrip: Nanoseconds) -> QueueLimit {
        queueLimit ?? .bandwidthDelayProduct(bitsPerSecond: rate.meanBitsPerSecond, roundTrip: roundTrip)
    }
}

/// A client network path (e.g. "wifi", "cell"): its uplink (client → server) and downlink.
public struct PathConfiguration: Sendable, Equatable {
    public var name: String
    public var uplink: LinkConfiguration
    public var downlink: LinkConfiguration

    public init(name: String, uplink: LinkConfiguration, downlink: LinkConfiguration) {
        self.name = name
        self.uplink = uplink
        self.downlink = downlink
    }

    /// The base round trip: both one-way delays (no serialization, no queueing).
    public var roundTrip: Nanoseconds { uplink.delay + downlink.delay }

    /// A symmetric path with the netbench RTT convention: each direction gets `roundTrip / 2`.
    public static func symmetric(
        name: String, roundTrip: Nanoseconds, rate: LinkRate = .unlimited,
        loss: LossModel = .none, queueLimit: QueueLimit? = nil, discipline: DisciplineConfiguration = .dropTail
    ) -> PathConfiguration {
        let half = roundTrip / 2
        return PathConfiguration(
            name: name,
            uplink: LinkConfiguration(
                delay: half, rate: rate, loss: loss, queueLimit: queueLimit, discipline: discipline),
            downlink: LinkConfiguration(
                delay: roundTrip - half, rate: rate, loss: loss, queueLimit: queueLimit, discipline: discipline))
    }
}
