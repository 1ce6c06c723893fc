import BenchCore
import BenchModel
import Statistics

/// One cell of the run matrix.
public struct CellKey: Hashable, Sendable {
    public var scenario: String
    public var profile: String
    public var transport: TransportKind
    /// The client ("builtin", "chromium") when the results hold runs of more than one; else nil.
    public var client: RunClient?
    public init(scenario: String, profile: String, transport: TransportKind, client: RunClient? = nil) {
        self.scenario = scenario; self.profile = profile; self.transport = transport; self.client = client
    }
    var labels: [String] { [scenario, profile, transport.rawValue] + (client.map { [$0.rawValue] } ?? []) }
    /// How reports name the cell in a panel: the transport, and the client when there are several.
    public var label: String { client.map { "\(transport.rawValue) · \($0)" } ?? transport.rawValue }
}

/// A results file grouped by (scenario, profile, transport) with the statistics every reporter
/// shows, computed once. Only counted runs (status ok, not warm-up) enter the statistics.
///
/// When the runs come from more than one client (netbench's own loader and a browser), the client
/// joins the key: every figure is per client, each client's transports are compared with that
/// client's baseline, and each client is compared with the first (`referenceClient`, the built-in
/// one when present) transport by transport (`clientComparison`).
///
/// Orders are stable: scenarios and profiles as they first appear in the runs (the plan's order),
/// transports in the suite's order. Every bootstrap is seeded from the suite's seed and the labels
/// of its figure (`Bootstrap.seed`), so a report renders the same bytes every time.
public struct ResultsAnalysis: Sendable {
    public let results: ResultsFile
    public let scenarios: [String]
    public let profiles: [String]
    public let transports: [TransportKind]
    /// The clients of the runs, the built-in one first; one entry when there is nothing to set side by side.
    public let clients: [RunClient]
    public let resamples: Int
    private let runsByCell: [CellKey: [RunRecord]]
    private let summaries: [SummaryKey: Summary]
    private let comparisons: [SummaryKey: Comparison]
    private let clientComparisons: [SummaryKey: Comparison]

    struct SummaryKey: Hashable { var cell: CellKey; var metric: String }

    public init(_ results: ResultsFile, resamples: Int = Bootstrap.defaultResamples) {
        self.results = results
        self.resamples = resamples
        var scenarios: [String] = [], profiles: [String] = [], present = Set<TransportKind>()
        var clients: [RunClient] = []
        for run in results.runs where !clients.contains(run.client ?? .builtin) {
            clients.append(run.client ?? .builtin)
        }
        if let i = clients.firstIndex(of: .builtin), i > 0 { clients.insert(clients.remove(at: i), at: 0) }
        let split = clients.count > 1
        var byCell: [CellKey: [RunRecord]] = [:]
        for run in results.runs {
            if !scenarios.contains(run.scenario) { scenarios.append(run.scenario) }
            if !profiles.contains(run.profile) { profiles.append(run.profile) }
            present.insert(run.transport)
            byCell[
                CellKey(
                    scenario: run.scenario, profile: run.profile, transport: run.transport,
                    client: split ? run.client ?? .builtin : nil), default: []
            ].append(run)
        }
        self.clients = clients.isEmpty ? [.builtin] : clients
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
                if let s = Summary(xs, seed: seed, resamples: resamples) {
                    summaries[SummaryKey(cell: cell, metric: metric.name)] = s
                }
            }
        }
        self.summaries = summaries
        var comparisons: [SummaryKey: Comparison] = [:]
        for (cell, runs) in byCell {
            guard let base = Self.baseline(results.suite, cell.scenario, cell.profile, byCell), base != cell.transport,
                let baseRuns = byCell[
                    CellKey(scenario: cell.scenario, profile: cell.profile, transport: base, client: cell.client)]
            else { continue }
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
        var clientComparisons: [SummaryKey: Comparison] = [:]
        for (cell, runs) in byCell {
            guard let reference = split ? self.clients.first : nil, cell.client != reference,
                let refRuns = byCell[
                    CellKey(
                        scenario: cell.scenario, profile: cell.profile, transport: cell.transport, client: reference)]
            else { continue }
            for metric in Metric.compared {
                let a = refRuns.filter(\.counts).compactMap { $0.metrics.value(named: metric.name) }
                let b = runs.filter(\.counts).compactMap { $0.metrics.value(named: metric.name) }
                let seed = Bootstrap.seed(
                    results.suite.seed, ["vs client", reference.rawValue] + cell.labels + [metric.name])
                if let c = Comparison(baseline: a, candidate: b, seed: seed, resamples: resamples) {
                    clientComparisons[SummaryKey(cell: cell, metric: metric.name)] = c
                }
            }
        }
        self.clientComparisons = clientComparisons
    }

    /// The suite's `baselineTransport`, else h2, else the first transport with runs in this scenario × profile.
    private static func baseline(
        _ suite: SuiteInfo, _ scenario: String, _ profile: String,
        _ byCell: [CellKey: [RunRecord]]
    ) -> TransportKind? {
        let order = suite.transports + TransportKind.allCases.filter { !suite.transports.contains($0) }
        let present = order.filter { t in
            byCell.keys.contains { $0.scenario == scenario && $0.profile == profile && $0.transport == t }
        }
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
        transports.filter { !cells(scenario: scenario, profile: profile, transport: $0).isEmpty }
    }

    /// Whether the runs come from more than one client, set side by side in every panel.
    public var comparesClients: Bool { clients.count > 1 }
    /// The client the others are compared with (the built-in one when present); nil with one client.
    public var referenceClient: RunClient? { comparesClients ? clients.first : nil }

    /// The cells of this scenario × profile, by transport and then client, in display order.
    public func cells(scenario: String, profile: String) -> [CellKey] {
        transports.flatMap { cells(scenario: scenario, profile: profile, transport: $0) }
    }

    private func cells(scenario: String, profile: String, transport: TransportKind) -> [CellKey] {
        let keys = comparesClients ? clients.map { Optional($0) } : [nil]
        return keys.map { CellKey(scenario: scenario, profile: profile, transport: transport, client: $0) }
            .filter { runsByCell[$0] != nil }
    }

    /// The cell against the same transport's cell of the reference client (browser vs built-in);
    /// nil for the reference client itself or when there is one client.
    public func clientComparison(_ metric: String, _ cell: CellKey) -> Comparison? {
        clientComparisons[SummaryKey(cell: cell, metric: metric)]
    }

    /// The cell of the same scenario, profile and transport made by `client`.
    public func cell(_ cell: CellKey, client: RunClient?) -> CellKey {
        CellKey(scenario: cell.scenario, profile: cell.profile, transport: cell.transport, client: client)
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
        scenarios.flatMap { s in profiles.flatMap { p in cells(scenario: s, profile: p) } }
    }

    /// Scenario × profile pairs with runs, in display order.
    public var panels: [(scenario: String, profile: String)] {
        scenarios.flatMap { s in profiles.compactMap { p in transports(scenario: s, profile: p).isEmpty ? nil : (s, p) }
        }
    }

    public func profile(named name: String) -> Profile? { results.suite.profiles.first { $0.name == name } }

    public var failedRuns: [RunRecord] { results.runs.filter { $0.status == .failed } }

    /// The counted run whose page load time is closest to the cell's median (ties: the earlier run):
    /// the run a waterfall shows as typical.
    public func medianRun(_ cell: CellKey, metric: String = "pltMs") -> RunRecord? {
        guard let m = summary(metric, cell)?.median else { return nil }
        let runs = countedRuns(cell)
        let values = runs.indices.compactMap { i in runs[i].metrics.value(named: metric).map { (i, $0) } }
        return Self.closest(to: m, values).map { runs[$0] }
    }

    /// The first of `values` (index, value) whose value is closest to `m`.
    static func closest(to m: Double, _ values: [(Int, Double)]) -> Int? {
        values.min { abs($0.1 - m) < abs($1.1 - m) }?.0
    }

    /// The indices (in `results.runs`) of the runs the reports draw with their requests and
    /// connections: each cell's median run by page load time (`medianRun`, the waterfalls) and every
    /// run with path events or migration figures (the path change timelines). The rest need only
    /// their metrics, so a report can read the others skimmed (`ResultsLog.load(from:skimming:)`).
    public static func runsDrawnWhole(_ results: ResultsFile) -> [Int] {
        let split = Set(results.runs.map { $0.client ?? .builtin }).count > 1
        var byCell: [CellKey: [(Int, Double)]] = [:]
        var out = Set<Int>()
        for (i, run) in results.runs.enumerated() {
            if !run.pathEvents.isEmpty || run.metrics.migration != nil { out.insert(i) }
            guard run.counts, let plt = run.metrics.value(named: "pltMs") else { continue }
            let cell = CellKey(
                scenario: run.scenario, profile: run.profile, transport: run.transport,
                client: split ? run.client ?? .builtin : nil)
            byCell[cell, default: []].append((i, plt))
        }
        for values in byCell.values {
            let m = Descriptive.percentile(sorted: values.map(\.1).sorted(), 50)
            if let i = closest(to: m, values) { out.insert(i) }
        }
        return out.sorted()
    }
}
