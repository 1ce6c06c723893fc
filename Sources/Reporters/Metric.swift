import BenchModel

/// What reports know about each metric of `RunMetrics`: label, unit and which direction is better.
public struct Metric: Sendable, Hashable {
    /// The key in `RunMetrics` (`value(named:)`) and in every report.
    public var name: String
    public var label: String
    public var unit: String
    public var higherIsBetter: Bool
    /// The `RunMetrics` key of this metric's physical lower bound, if any.
    public var idealName: String?

    public init(name: String, label: String, unit: String, higherIsBetter: Bool = false, idealName: String? = nil) {
        self.name = name; self.label = label; self.unit = unit
        self.higherIsBetter = higherIsBetter; self.idealName = idealName
    }

    public static let plt = Metric(name: "pltMs", label: "Page load time", unit: "ms", idealName: "idealPltMs")
    public static let ttfb = Metric(name: "ttfbMs", label: "Time to first byte", unit: "ms", idealName: "idealTtfbMs")
    public static let handshake = Metric(name: "handshakeMs", label: "Handshake", unit: "ms")
    public static let goodput = Metric(name: "goodputMbps", label: "Goodput", unit: "Mbit/s", higherIsBetter: true)

    /// The metrics `compare` and `check` test for change: times (lower is better) and goodput.
    public static let compared: [Metric] = [.plt, .ttfb, .handshake, .goodput]

    /// Every metric `summary.csv` and the figure tables list, in display order.
    public static let all: [Metric] = compared + [
        Metric(name: "idealPltMs", label: "Ideal page load time", unit: "ms"),
        Metric(name: "idealTtfbMs", label: "Ideal time to first byte", unit: "ms"),
        Metric(name: "stallMs", label: "Stall at path change", unit: "ms"),
        Metric(name: "bytes", label: "Bytes", unit: "B"),
        Metric(name: "requests", label: "Requests", unit: ""),
        Metric(name: "connections", label: "Connections", unit: ""),
        Metric(name: "loadEventMs", label: "Load event (browser)", unit: "ms"),
        Metric(name: "firstPaintMs", label: "First paint (browser)", unit: "ms"),
        Metric(name: "firstContentfulPaintMs", label: "First contentful paint (browser)", unit: "ms"),
        Metric(name: "largestContentfulPaintMs", label: "Largest contentful paint (browser)", unit: "ms"),
        Metric(name: "processCPUMs", label: "CPU per load (netbench process)", unit: "ms"),
        Metric(name: "clientCPUMs", label: "CPU per load (client thread)", unit: "ms"),
        Metric(name: "serverCPUMs", label: "CPU per load (server thread)", unit: "ms"),
    ]

    public static func named(_ name: String) -> Metric? { all.first { $0.name == name } }

    /// The browser's page milestones in the order a page reaches them (a real browser's runs carry
    /// them; the built-in client's have none), with the short names reports use.
    public static let browserMilestones: [(metric: Metric, short: String)] = [
        ("firstPaintMs", "FP"), ("firstContentfulPaintMs", "FCP"), ("largestContentfulPaintMs", "LCP"), ("loadEventMs", "load"),
    ].map { (named($0.0)!, $0.1) }
}
