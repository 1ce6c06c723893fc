import BenchCore
import BenchModel
import Statistics

/// What `netbench study` computes from a results file: each claim of the suite tested with
/// `SpeedupClaim` (geometric mean of per-page median ratios, two-level bootstrap, verdict), and
/// for bulk transfers the goodput as the QUIC interop runner reports it.
public struct StudyAnalysis: Sendable {
    /// One page on one profile of a claim.
    public struct ClaimCell: Sendable, Hashable {
        public var scenario: String
        public var profile: String
        public var baseline: [Double]
        public var candidate: [Double]
        /// Counted runs that failed (timeouts included): left out of the medians, so a side with
        /// failures looks faster than it was.
        public var baselineFailed: Int
        public var candidateFailed: Int
        public var ratio: Double? {
            SpeedupClaim.Cell(page: scenario, network: profile, baseline: baseline, candidate: candidate).ratio
        }
    }

    public struct ClaimOutcome: Sendable {
        public var claim: StudyClaim
        public var cells: [ClaimCell]
        public var result: SpeedupClaim.Result?
        public var verdict: SpeedupClaim.Verdict
        /// Runs (both sides) whose connections resumed a session: the repeat views.
        public var resumedRuns: Int
        public var runs: Int
        /// Connections of those runs, and how many of them had their early data (0-RTT) accepted.
        public var connections: Int
        public var earlyDataConnections: Int
    }

    /// The interop runner's goodput: kbit/s (1000 bits) over each transfer, mean and sample
    /// standard deviation over the repetitions.
    public struct GoodputRow: Sendable, Hashable {
        public var scenario: String
        public var profile: String
        public var transport: TransportKind
        public var kbps: [Double]
        public var failed: Int
        public var mean: Double? { kbps.isEmpty ? nil : kbps.reduce(0, +) / Double(kbps.count) }
        public var standardDeviation: Double? {
            guard let m = mean, kbps.count > 1 else { return nil }
            return (kbps.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(kbps.count - 1)).squareRoot()
        }
    }

    public var suiteName: String
    public var claims: [ClaimOutcome]
    public var goodput: [GoodputRow]

    public init(results: ResultsFile, claims: [StudyClaim], resamples: Int = Bootstrap.defaultResamples) {
        suiteName = results.suite.name
        let scenarioOrder = results.suite.scenarios
        let profileOrder = results.suite.profiles.map(\.name)
        let suiteClient = results.suite.client.flatMap { RunClient.parseList($0)?.first } ?? .builtin
        self.claims = claims.map {
            Self.outcome(
                $0, defaultClient: suiteClient, runs: results.runs, scenarios: scenarioOrder, profiles: profileOrder,
                seed: Bootstrap.seed(results.suite.seed, ["study", $0.name]), resamples: resamples)
        }
        goodput = Self.goodputRows(
            results.runs, scenarios: scenarioOrder, profiles: profileOrder,
            transports: results.suite.transports)
    }

    static func outcome(
        _ claim: StudyClaim, defaultClient: RunClient, runs: [RunRecord], scenarios: [String], profiles: [String],
        seed: UInt64, resamples: Int
    ) -> ClaimOutcome {
        let client = claim.client ?? defaultClient
        let relevant = runs.filter {
            $0.warmup != true && ($0.client ?? .builtin) == client
                && ($0.transport == claim.baseline || $0.transport == claim.candidate)
                && (claim.profiles?.contains($0.profile) ?? true) && (claim.scenarios?.contains($0.scenario) ?? true)
        }
        var cells: [ClaimCell] = []
        for s in scenarios where claim.scenarios?.contains(s) ?? true {
            for p in profiles where claim.profiles?.contains(p) ?? true {
                let here = relevant.filter { $0.scenario == s && $0.profile == p }
                func values(_ t: TransportKind) -> [Double] {
                    here.filter { $0.transport == t && $0.status == .ok }.compactMap {
                        $0.metrics.value(named: claim.metricName)
                    }
                }
                func failed(_ t: TransportKind) -> Int {
                    here.filter { $0.transport == t && $0.status == .failed }.count
                }
                guard !here.isEmpty else { continue }
                cells.append(
                    ClaimCell(
                        scenario: s, profile: p, baseline: values(claim.baseline), candidate: values(claim.candidate),
                        baselineFailed: failed(claim.baseline), candidateFailed: failed(claim.candidate)))
            }
        }
        let result = SpeedupClaim.estimate(
            cells.map { .init(page: $0.scenario, network: $0.profile, baseline: $0.baseline, candidate: $0.candidate) },
            resamples: resamples, seed: seed)
        let verdict = result.map { SpeedupClaim.verdict($0.interval, minSpeedup: claim.minSpeedup) } ?? .undecided
        let ok = relevant.filter { $0.status == .ok }
        let resumed = ok.filter { $0.connections.contains { $0.resumed == true } }.count
        let connections = ok.flatMap(\.connections)
        return ClaimOutcome(
            claim: claim, cells: cells, result: result, verdict: verdict, resumedRuns: resumed, runs: ok.count,
            connections: connections.count,
            earlyDataConnections: connections.filter { $0.earlyDataAccepted == true }.count)
    }

    static func goodputRows(_ runs: [RunRecord], scenarios: [String], profiles: [String], transports: [TransportKind])
        -> [GoodputRow]
    {
        let bulk = runs.filter { $0.warmup != true && ($0.metrics.goodputMbps != nil || $0.status == .failed) }
        var rows: [GoodputRow] = []
        for s in scenarios {
            let measured = bulk.filter { $0.scenario == s }
            guard measured.contains(where: { $0.metrics.goodputMbps != nil }) else { continue }
            for p in profiles {
                for t in transports {
                    let here = measured.filter { $0.profile == p && $0.transport == t }
                    guard !here.isEmpty else { continue }
                    rows.append(
                        GoodputRow(
                            scenario: s, profile: p, transport: t,
                            kbps: here.filter { $0.status == .ok }.compactMap {
                                $0.metrics.goodputMbps.map { $0 * 1000 }
                            },
                            failed: here.filter { $0.status == .failed }.count))
                }
            }
        }
        return rows
    }
}
