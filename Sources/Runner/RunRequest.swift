import Foundation
import BenchCore
import BenchModel
import TLS
import QUIC

/// What `netbench run` asked for, resolved: scenario files loaded, profiles loaded.
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
    /// Per-run limit; nil: derived from the profile (10 × the ideal page load + 30 s, at most 10 min).
    public var timeoutPerRun: Nanoseconds?
    public var keyLogFile: String?
    public var tlsVersion: TLSVersion?
    public var qlogDirectory: String?
    /// `--filmstrip`: after each block's runs, one more browser load per cell capturing what it paints.
    public var filmstrip = false
    public var quicCongestionControl: QUICCongestionControl = .cubic
    /// Each run is made by every client in turn (interleaved, like the transports).
    public var clients: [RunClient] = [.builtin]
    /// Repeat views: keep TLS sessions and QUIC tickets between the runs of a profile block (the
    /// first run is cold; later ones resume, QUIC with 0-RTT). Use a warm-up run to fill them.
    public var repeatView = false
    /// Run the emulator's packet loop under SCHED_FIFO (steadier on a busy machine).
    public var emulatorRealtime = false
    /// The emulator's precise mode (polls shortly before each release; costs CPU, recorded per run).
    public var emulatorPrecise = false
    /// The emulator's packet loop under the normal scheduler (nice -10) instead of SCHED_FIFO 10.
    public var emulatorNormalScheduler = false
    /// TCP congestion control, set on every socket (namespaces here default to bbr).
    public var tcpCongestionControl: String = "cubic"
    /// How the replay server cuts responses into TLS records (`--tls-records`).
    public var tlsRecords: TLSRecordPolicy = .dynamic
    /// Whether the replay server's HTTP/2 decides late what to send (`--late-binding`).
    public var lateBinding: LateBinding = .standard
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

    public init(suiteName: String, scenarios: [(path: String, scenario: Scenario)], profiles: [Profile], transports: [TransportKind],
                runs: Int, warmupRuns: Int = 0, seed: UInt64 = 1, baselineTransport: TransportKind? = nil, outputDirectory: String) {
        self.suiteName = suiteName; self.scenarios = scenarios; self.profiles = profiles; self.transports = transports
        self.runs = runs; self.warmupRuns = warmupRuns; self.seed = seed; self.baselineTransport = baselineTransport
        self.outputDirectory = outputDirectory
    }
}
