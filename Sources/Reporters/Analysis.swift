import BenchModel
import Statistics

/// One cell of the run matrix.
public struct CellKey: Hashable, Sendable {
    public var scenario: String
    public var profile: String
    public var transport: TransportKind
    public init(scenario: String, profile: String, transport: TransportKind) {
        self.scenario = scenario; self.profile = profile; self.transport = transport
    }
    var labels: [String] { [scenario, profile, transport.rawValue] }
}

/// A results file grouped by (scenario, profile, transport) with the statistics every reporter
/// shows, computed once. Only counted runs (status ok, not warm-up) enter the statistics.
///
/// Orders are stable: scenarios and profiles as they first appear in the runs (the plan's order),
/// transports in the suite's order. Every bootstrap is seeded from the suite's seed and the labels
/// of its figure (`Bootstrap.seed`), so a report renders the same bytes every time.
public struct ResultsAnalysis: Sendable {
    public let results: ResultsFile
    public let scenarios: [String]
    public let profiles: [String]
    public let transports: [TransportKind]
    public let resamples: Int
    private let runsByCell: [CellKey: [RunRecord]]
    private let summaries: [SummaryKey: Summary]
    private let comparisons: [SummaryKey: Comparison]

    struct SummaryKey: Hashable { var cell: CellKey; var metric: String }

    public init(_ results: ResultsFile, resamples: Int = Bootstrap.defaultResamples) {
        self.results = results
        self.resamples = resamples
        var scenarios: [String] = [], profiles: [String] = [], present = Set<TransportKind>()
        var byCell: [CellKey: [RunRecord]] = [:]
        for run in results.runs {
            if !scenarios.contains(run.scenario) { scenarios.append(run.scenario) }
            if !profiles.contains(run.profile) { profiles.append(run.profile) }
            present.insert(run.transport)
            byCell[CellKey(scenario: run.scenario, profile: run.profile, transport: run.transport), default: []].append(run)
        }
        let order = results.suite.transports + TransportKind.allCases.filter { !results.suite.transports.contains($0) }
        self.scenarios = scenarios
        self.profiles = profiles
        self.transports = order.filter { present.contains($0) }
        self.runsByCell = byCell

        var summaries: [SummaryKey: Summary] = [:]
        for (cell, runs) in byCell {
            for metric in Metric.all {
                let xs = runs.filter(\.counts).compactMap { $0.metrics.value(named: metric.name) }
                let seed = Bootstrap.seed(results.suite.seed, cell.labels + [metric.name])
                if let s = Summary(xs, seed: seed, resamples: resamples) { summaries[SummaryKey(cell: cell, metric: metric.name)] = s }
            }
        }
        self.summaries = summaries
        var comparisons: [SummaryKey: Comparison] = [:]
        for (cell, runs) in byCell {
            guard let base = Self.baseline(results.suite, cell.scenario, cell.profile, byCell), base != cell.transport,
                  let baseRuns = byCell[CellKey(scenario: cell.scenario, profile: cell.profile, transport: base)] else { continue }
            for metric in Metric.compared {
                let a = baseRuns.filter(\.counts).compactMap { $0.metrics.value(named: metric.name) }
                let b = runs.filter(\.counts).compactMap { $0.metrics.value(named: metric.name) }
                let seed = Bootstrap.seed(results.suite.seed, ["vs", base.rawValue] + cell.labels + [metric.name])
                if let c = Comparison(baseline: a, candidate: b, seed: seed, resamples: resamples) {
                    comparisons[SummaryKey(cell: cell, metric: metric.name)] = c
                }
            }
        }
        self.comparisons = comparisons
    }

    /// The suite's `baselineTransport`, else h2, else the first transport with runs in this scenario × profile.
    private static func baseline(_ suite: SuiteInfo, _ scenario: String, _ profile: String,
                                 _ byCell: [CellKey: [RunRecord]]) -> TransportKind? {
        let order = suite.transports + TransportKind.allCases.filter { !suite.transports.contains($0) }
        let present = order.filter { byCell[CellKey(scenario: scenario, profile: profile, transport: $0)] != nil }
        if let b = suite.baselineTransport, present.contains(b) { return b }
        if present.contains(.h2) { return .h2 }
        return present.first
    }

    // MARK: Queries

    public func baselineTransport(scenario: String, profile: String) -> TransportKind? {
        Self.baseline(results.suite, scenario, profile, runsByCell)
    }

    /// Transports with runs in this scenario × profile, in display order.
    public func transports(scenario: String, profile: String) -> [TransportKind] {
        transports.filter { runsByCell[CellKey(scenario: scenario, profile: profile, transport: $0)] != nil }
    }

    /// Every run of the cell, failed and warm-up included, in recorded order.
    public func runs(_ cell: CellKey) -> [RunRecord] { runsByCell[cell] ?? [] }

    /// The runs that enter statistics.
    public func countedRuns(_ cell: CellKey) -> [RunRecord] { runs(cell).filter(\.counts) }

    public func values(_ metric: String, _ cell: CellKey) -> [Double] {
        countedRuns(cell).compactMap { $0.metrics.value(named: metric) }
    }

    public func summary(_ metric: String, _ cell: CellKey) -> Summary? {
        summaries[SummaryKey(cell: cell, metric: metric)]
    }

    /// The cell against its scenario × profile's baseline transport; nil for the baseline itself.
    public func comparison(_ metric: String, _ cell: CellKey) -> Comparison? {
        comparisons[SummaryKey(cell: cell, metric: metric)]
    }

    /// Cells with at least one run, in display order.
    public var cells: [CellKey] {
        scenarios.flatMap { s in profiles.flatMap { p in
            transports(scenario: s, profile: p).map { CellKey(scenario: s, profile: p, transport: $0) }
        } }
    }

    /// Scenario × profile pairs with runs, in display order.
    public var panels: [(scenario: String, profile: String)] {
        scenarios.flatMap { s in profiles.compactMap { p in transports(scenario: s, profile: p).isEmpty ? nil : (s, p) } }
    }

    public func profile(named name: String) -> Profile? { results.suite.profiles.first { $0.name == name } }

    public var failedRuns: [RunRecord] { results.runs.filter { $0.status == .failed } }

    /// The counted run whose page load time is closest to the cell's median (ties: the earlier run):
    /// the run a waterfall shows as typical.
    public func medianRun(_ cell: CellKey, metric: String = "pltMs") -> RunRecord? {
        guard let m = summary(metric, cell)?.median else { return nil }
        return countedRuns(cell)
            .filter { $0.metrics.value(named: metric) != nil }
            .min { abs($0.metrics.value(named: metric)! - m) < abs($1.metrics.value(named: metric)! - m) }
    }
}
