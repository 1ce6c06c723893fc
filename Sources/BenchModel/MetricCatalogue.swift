/// One metric of a run as every reader knows it (reports, `compare`, `check`, study claims,
/// metrics export): its key in results files, label, unit, which direction is better, its lower
/// bound, and how to read it from `RunMetrics`. Declared once, in `RunMetrics.catalogue`.
public struct Metric: Sendable, Hashable {
    /// The key in `RunMetrics`, results files and every report.
    public let name: String
    public let label: String
    public let unit: String
    public let higherIsBetter: Bool
    /// The key of this metric's physical lower bound, if any.
    public let idealName: String?
    /// Whether `compare` and `check` test it for change.
    public let isCompared: Bool
    /// Whether a study claim may name it (a figure of the page load itself).
    public let claimable: Bool
    let read: @Sendable (RunMetrics) -> Double?

    init(
        _ name: String, _ label: String, _ unit: String, higherIsBetter: Bool = false, idealName: String? = nil,
        compared: Bool = false, claimable: Bool = false, read: @escaping @Sendable (RunMetrics) -> Double?
    ) {
        self.name = name; self.label = label; self.unit = unit; self.higherIsBetter = higherIsBetter
        self.idealName = idealName; self.isCompared = compared; self.claimable = claimable; self.read = read
    }

    public func value(in metrics: RunMetrics) -> Double? { read(metrics) }

    public static func == (a: Metric, b: Metric) -> Bool { a.name == b.name }
    public func hash(into h: inout Hasher) { h.combine(name) }
}

extension RunMetrics {
    /// Every metric, in display order.
    public static let catalogue: [Metric] = [
        Metric("pltMs", "Page load time", "ms", idealName: "idealPltMs", compared: true, claimable: true) { $0.pltMs },
        Metric("ttfbMs", "Time to first byte", "ms", idealName: "idealTtfbMs", compared: true, claimable: true) {
            $0.ttfbMs
        },
        Metric("handshakeMs", "Handshake", "ms", compared: true, claimable: true) { $0.handshakeMs },
        Metric("goodputMbps", "Goodput", "Mbit/s", higherIsBetter: true, compared: true, claimable: true) {
            $0.goodputMbps
        },
        Metric("idealPltMs", "Ideal page load time", "ms") { $0.idealPltMs },
        Metric("idealTtfbMs", "Ideal time to first byte", "ms") { $0.idealTtfbMs },
        Metric("stallMs", "Stall at path change", "ms") { $0.migration?.stallMs },
        Metric("bytes", "Bytes", "B", claimable: true) { $0.bytes.map(Double.init) },
        Metric("requests", "Requests", "", claimable: true) { $0.requests.map(Double.init) },
        Metric("connections", "Connections", "", claimable: true) { $0.connections.map(Double.init) },
        Metric("loadEventMs", "Load event (browser)", "ms") { $0.loadEventMs },
        Metric("firstPaintMs", "First paint (browser)", "ms") { $0.firstPaintMs },
        Metric("firstContentfulPaintMs", "First contentful paint (browser)", "ms") { $0.firstContentfulPaintMs },
        Metric("largestContentfulPaintMs", "Largest contentful paint (browser)", "ms") {
            $0.largestContentfulPaintMs
        },
        Metric("speedIndexMs", "Speed Index (browser)", "ms", compared: true) { $0.speedIndexMs },
        Metric("firstVisualChangeMs", "First visual change (browser)", "ms") { $0.firstVisualChangeMs },
        Metric("visuallyComplete85Ms", "Visually complete 85% (browser)", "ms") { $0.visuallyComplete85Ms },
        Metric("visuallyComplete95Ms", "Visually complete 95% (browser)", "ms") { $0.visuallyComplete95Ms },
        Metric("visuallyComplete99Ms", "Visually complete 99% (browser)", "ms") { $0.visuallyComplete99Ms },
        Metric("visuallyCompleteMs", "Visually complete (browser)", "ms") { $0.visuallyCompleteMs },
        Metric("mainThreadTaskMs", "Main-thread task time (Chromium)", "ms") { $0.mainThreadTaskMs },
        Metric("mainThreadScriptMs", "Main-thread script time (Chromium)", "ms") { $0.mainThreadScriptMs },
        Metric("mainThreadStyleLayoutMs", "Main-thread style and layout time (Chromium)", "ms") {
            $0.mainThreadStyleLayoutMs
        },
        Metric("processCPUMs", "CPU per load (netbench process)", "ms") { $0.processCPUMs },
        Metric("clientCPUMs", "CPU per load (client thread)", "ms") { $0.clientCPUMs },
        Metric("serverCPUMs", "CPU per load (server thread)", "ms") { $0.serverCPUMs },
        Metric("downQueueDelayP50Ms", "Queueing delay down p50", "ms") { $0.downlinkQueueDelay?.p50Ms },
        Metric("downQueueDelayP90Ms", "Queueing delay down p90", "ms") { $0.downlinkQueueDelay?.p90Ms },
        Metric("downQueueDelayP99Ms", "Queueing delay down p99", "ms") { $0.downlinkQueueDelay?.p99Ms },
        Metric("downQueueDelayMaxMs", "Queueing delay down max", "ms") { $0.downlinkQueueDelay?.maxMs },
        Metric("upQueueDelayP50Ms", "Queueing delay up p50", "ms") { $0.uplinkQueueDelay?.p50Ms },
        Metric("upQueueDelayP90Ms", "Queueing delay up p90", "ms") { $0.uplinkQueueDelay?.p90Ms },
        Metric("upQueueDelayP99Ms", "Queueing delay up p99", "ms") { $0.uplinkQueueDelay?.p99Ms },
        Metric("upQueueDelayMaxMs", "Queueing delay up max", "ms") { $0.uplinkQueueDelay?.maxMs },
    ]

    /// The metric names a study claim may name, in display order.
    public static var names: [String] { catalogue.filter(\.claimable).map(\.name) }

    public static func metric(named name: String) -> Metric? { catalogue.first { $0.name == name } }

    public func value(named name: String) -> Double? { Self.metric(named: name)?.value(in: self) }
}
