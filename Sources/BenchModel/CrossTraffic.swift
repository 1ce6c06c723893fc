import BenchCore

/// A competing bulk flow on a profile's bottleneck (`"crossTraffic"` in a profile): its own client
/// and server in the same emulated network, downloading for as long as its timing says, so that
/// the page meets a loaded queue.
///
/// Timing is relative to the page's navigation start. By default a flow starts 2 s before the
/// page (long enough to fill the queue at the usual rates) and stops when the page ends.
public struct CrossFlowSpec: Codable, Hashable, Sendable {
    /// Shown in results and the report; default `flow<index>`.
    public var name: String?
    /// h2 (or h1): a TCP+TLS connection; h3: a QUIC connection. One request on one connection.
    public var transport: TransportKind
    /// `download` (default: the server sends, with the flow's congestion control) or `upload` (the
    /// client POSTs an endless body; its congestion control is the run's, `--tcp-cc` / QUIC cubic,
    /// and the flow counts what the server acknowledged).
    public var direction: Scenario.Bulk.Direction?
    /// The sender's congestion control. TCP: a kernel name (`cubic`, `bbr`, `reno`), set on the
    /// flow's own listener and read back from the accepted socket; QUIC: ngtcp2's `reno`, `cubic`,
    /// `bbr` or `bbr2`. Default: the run's TCP congestion control, QUIC's cubic.
    public var congestionControl: String?
    /// Start this long before the page's navigation start (default 2 s when `startAfter` is absent).
    public var startBefore: DurationValue?
    /// Start this long after the page's navigation start instead.
    public var startAfter: DurationValue?
    /// Stop this long after the page's navigation start (default: when the page ends).
    public var stopAfter: DurationValue?
    /// Stop this long after the flow's own start instead.
    public var duration: DurationValue?

    public init(
        name: String? = nil, transport: TransportKind, direction: Scenario.Bulk.Direction? = nil,
        congestionControl: String? = nil, startBefore: DurationValue? = nil, startAfter: DurationValue? = nil,
        stopAfter: DurationValue? = nil, duration: DurationValue? = nil
    ) {
        self.name = name; self.transport = transport; self.direction = direction;
        self.congestionControl = congestionControl
        self.startBefore = startBefore; self.startAfter = startAfter; self.stopAfter = stopAfter;
        self.duration = duration
    }

    /// The QUIC congestion controllers ngtcp2 0.12 offers (`ngtcp2_cc_algo`).
    public static let quicCongestionControls = ["reno", "cubic", "bbr", "bbr2"]

    public func displayName(index: Int) -> String { name ?? "flow\(index)" }

    /// Problems with this flow, as (key below `crossTraffic[i]`, message) pairs.
    func problems() -> [(String, String)] {
        var out: [(String, String)] = []
        if startBefore != nil && startAfter != nil {
            out.append(("startAfter", "give startBefore or startAfter, not both"))
        }
        if stopAfter != nil && duration != nil { out.append(("duration", "give stopAfter or duration, not both")) }
        if let d = duration, d.nanoseconds <= 0 { out.append(("duration", "\(d) must be positive")) }
        let timing = CrossTrafficPlan.timing(of: self)
        if let stop = timing.stop, stop <= timing.start {
            out.append(
                (
                    "stopAfter",
                    "the flow would stop (\(stop.inMilliseconds) ms) before it starts (\(timing.start.inMilliseconds) "
                        + "ms from navigation start)"
                ))
        }
        if transport == .h3, let cc = congestionControl, !Self.quicCongestionControls.contains(cc) {
            out.append(
                (
                    "congestionControl",
                    "'\(cc)' is not a QUIC congestion control (\(Self.quicCongestionControls.joined(separator: ", ")))"
                ))
        }
        if let cc = congestionControl, cc.isEmpty || cc.contains(" ") {
            out.append(("congestionControl", "'\(cc)' is not a name"))
        }
        return out
    }
}

/// When each cross-traffic flow runs, as offsets from the page's navigation start. Pure: the
/// runner starts the flows `lead` before the page and stops each at `stop(of:pageEnd:)`.
public struct CrossTrafficPlan: Sendable, Equatable {
    public struct Timing: Sendable, Equatable {
        /// From navigation start; negative: before the page.
        public var start: Nanoseconds
        /// From navigation start; nil: when the page ends.
        public var stop: Nanoseconds?
        public init(start: Nanoseconds, stop: Nanoseconds?) { self.start = start; self.stop = stop }
    }

    /// How long before the page a flow starts by default: time for a bulk flow to leave slow start
    /// and fill the queue at the profiles' rates.
    public static let defaultLead: Nanoseconds = .seconds(2)

    public let timings: [Timing]

    public init(_ flows: [CrossFlowSpec]) { timings = flows.map(Self.timing(of:)) }
    public init(timings: [Timing]) { self.timings = timings }

    static func timing(of f: CrossFlowSpec) -> Timing {
        let start: Nanoseconds = f.startAfter.map { $0.nanoseconds } ?? -(f.startBefore?.nanoseconds ?? defaultLead)
        let stop: Nanoseconds? = f.stopAfter.map { $0.nanoseconds } ?? f.duration.map { start + $0.nanoseconds }
        return Timing(start: start, stop: stop)
    }

    /// How long before navigation start the earliest flow starts (0 when none starts before it):
    /// the runner starts the cross traffic this long before the page.
    public var lead: Nanoseconds { max(0, -(timings.map(\.start).min() ?? 0)) }

    /// The earliest start: the origin of the flows' 100 ms bins.
    public var origin: Nanoseconds { timings.map(\.start).min() ?? 0 }

    /// Flow `i`'s stop once the page's end is known (a flow stopping at page end that would start
    /// after it never runs: its stop is its start).
    public func stop(of i: Int, pageEnd: Nanoseconds) -> Nanoseconds {
        let t = timings[i]
        return max(t.start, t.stop ?? pageEnd)
    }

    /// When the last flow stops: the runner waits this long after navigation start.
    public func lastStop(pageEnd: Nanoseconds) -> Nanoseconds {
        timings.indices.map { stop(of: $0, pageEnd: pageEnd) }.max() ?? pageEnd
    }

    /// Whether flow `i` is sending at `t` (from navigation start).
    public func isActive(_ i: Int, at t: Nanoseconds, pageEnd: Nanoseconds) -> Bool {
        t >= timings[i].start && t < stop(of: i, pageEnd: pageEnd)
    }
}
