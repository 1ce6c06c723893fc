import BenchModel

/// The report's views of `RunMetrics.catalogue`, where each metric is declared.
extension Metric {
    public static let plt = RunMetrics.metric(named: "pltMs")!
    public static let ttfb = RunMetrics.metric(named: "ttfbMs")!
    public static let handshake = RunMetrics.metric(named: "handshakeMs")!
    public static let goodput = RunMetrics.metric(named: "goodputMbps")!

    /// The metrics `compare` and `check` test for change: times (lower is better) and goodput.
    public static let compared: [Metric] = RunMetrics.catalogue.filter(\.isCompared)

    /// Every metric `summary.csv` and the figure tables list, in display order.
    public static let all: [Metric] = RunMetrics.catalogue

    public static func named(_ name: String) -> Metric? { RunMetrics.metric(named: name) }

    /// The browser's page milestones in the order a page reaches them (a real browser's runs carry
    /// them; the built-in client's have none), with the short names reports use.
    public static let browserMilestones: [(metric: Metric, short: String)] = [
        ("firstPaintMs", "FP"), ("firstContentfulPaintMs", "FCP"), ("largestContentfulPaintMs", "LCP"),
        ("loadEventMs", "load"),
    ].map { (named($0.0)!, $0.1) }
}
