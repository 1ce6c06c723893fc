import Foundation
import BenchCore
import BenchModel

/// What `netbench run` asked for, resolved: the plan (scenario files loaded, profiles loaded,
/// transports, runs, seed, shard, adaptive runs) and the settings of servers, emulator, page loads
/// and diagnostics.
public struct RunRequest: Sendable {
    public var suiteName: String
    public var scenarios: [(path: String, scenario: Scenario)]
    public var profiles: [Profile]
    public var transports: [TransportKind]
    public var runs: Int
    public var warmupRuns: Int
    public var seed: UInt64
    public var baselineTransport: TransportKind?
    public var outputDirectory: String
    /// Settings, each passed whole to what it configures.
    public var server = ServerSettings.benchmark
    public var emulator = EmulatorSettings()
    public var pageLoads = PageLoadSettings()
    public var diagnostics = DiagnosticSettings()
    /// Where profiles named by a profile's `paths` are looked up.
    public var library: Library = Library.locate()
    /// Run only this shard's share of the plan (whole scenario × profile blocks, or run indices of
    /// a block when there are more shards than blocks).
    public var shard: ShardSpec?
    /// The plan's digest, recorded with the results (see `PlanDigest`).
    public var planDigest: String?
    /// Resume: runs already made by an earlier, interrupted execution of this plan; they are kept
    /// and not repeated.
    public var finishedRuns: [RunRecord] = []
    /// `--runs auto`: each cell runs until its median's confidence interval is narrow enough; `runs`
    /// is then ignored.
    public var adaptive: AdaptiveRuns?

    public init(
        suiteName: String, scenarios: [(path: String, scenario: Scenario)], profiles: [Profile],
        transports: [TransportKind],
        runs: Int, warmupRuns: Int = 0, seed: UInt64 = 1, baselineTransport: TransportKind? = nil,
        outputDirectory: String
    ) {
        self.suiteName = suiteName; self.scenarios = scenarios; self.profiles = profiles; self.transports = transports
        self.runs = runs; self.warmupRuns = warmupRuns; self.seed = seed; self.baselineTransport = baselineTransport
        self.outputDirectory = outputDirectory
    }
}
