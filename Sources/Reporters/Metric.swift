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

    /// The milestones with Speed Index after LCP when `speedIndex` (runs made with `--visual-metrics`),
    /// as the reports show them beside FCP and LCP.
    public static func browserMilestones(speedIndex: Bool) -> [(metric: Metric, short: String)] {
        guard speedIndex else { return browserMilestones }
        var out = browserMilestones
        let at = (out.firstIndex { $0.metric.name == "largestContentfulPaintMs" } ?? out.count - 1) + 1
        out.insert((named("speedIndexMs")!, "SI"), at: at)
        return out
    }
}
