/// One link direction of one path during a run, as measured by the emulator: the one-way delay
/// every forwarded packet had (its write to the far TUN − its arrival at the near one: queueing,
/// serialization, the configured delay, jitter and the emulator's own lateness) and how many
/// packets left out of arrival order. The configured delay model is in the results' `profiles`.
public struct LinkDirectionRecord: Codable, Sendable, Hashable {
    /// The client path ("wifi", "cell").
    public var path: String
    /// `up` (client → server) or `down`.
    public var direction: String
    public var packets: Int64
    /// Nearest-rank quantiles of the one-way delay, ms (0.2% buckets above 1 ms; absent without packets).
    public var oneWayDelayMs: DelayQuantiles?
    /// Packets released after a packet that arrived later (RFC 4737: its arrival sequence is below
    /// the highest released before it), and their share of `packets`.
    public var reorderedPackets: Int64
    public var reorderingRate: Double

    public init(
        path: String, direction: String, packets: Int64, oneWayDelayMs: DelayQuantiles?, reorderedPackets: Int64
    ) {
        self.path = path; self.direction = direction; self.packets = packets; self.oneWayDelayMs = oneWayDelayMs
        self.reorderedPackets = reorderedPackets
        reorderingRate = packets > 0 ? Double(reorderedPackets) / Double(packets) : 0
    }

    public struct DelayQuantiles: Codable, Sendable, Hashable {
        public var min: Double
        public var p1: Double
        public var p10: Double
        public var p50: Double
        public var p90: Double
        public var p99: Double
        public var max: Double
        public init(min: Double, p1: Double, p10: Double, p50: Double, p90: Double, p99: Double, max: Double) {
            self.min = min; self.p1 = p1; self.p10 = p10; self.p50 = p50; self.p90 = p90; self.p99 = p99
            self.max = max
        }
    }
}
