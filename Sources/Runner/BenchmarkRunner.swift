import Foundation
import BenchCore
import BenchModel
import SystemIO
import Transport
import TLS
import QUIC
import Synchronization
import Replay


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

/// Progress reports for the executable to display (the runner prints nothing itself).
public protocol RunObserver: AnyObject {
    func blockStarting(profile: Profile, runs: Int)
    func runStarting(position: Int, total: Int, label: String)
    func runFinished(position: Int, total: Int, record: RunRecord)
    func notice(_ text: String)
    /// After every run: where the plan stands and how long the rest should take.
    func progress(_ progress: RunProgress)
}

extension RunObserver {
    public func progress(_ progress: RunProgress) {}
}

/// Where a plan stands after a run.
public struct RunProgress: Sendable {
    public var position: Int
    public var total: Int
    /// Seconds the remaining runs should take, from each cell's own measured run time (or its
    /// ideal page load before its first run); nil when nothing can be estimated yet.
    public var etaSeconds: Double?
}

/// Where the runs go as they finish: `begin` once with the results' header (no runs), then
/// `append` after every run. The command's sink appends to `runs.jsonl`.
public protocol RunSink: AnyObject {
    func begin(_ results: ResultsFile) throws
    func append(_ record: RunRecord) throws
}

/// Executes a run request: for each profile, sets up the network (loopback or emulated), starts the
/// replay servers, runs the interleaved matrix, and after every run rewrites the results atomically.
public final class BenchmarkRunner: @unchecked Sendable {
    public let request: RunRequest
    private let cancelled = Atomic<Bool>(false)
    let currentLoop = Mutex<StopFlag?>(nil)
    private let netbenchVersion: String
    private let executors: PageExecutorFactory?

    /// `executors` makes each profile's block; nil: the built-in servers and clients.
    public init(request: RunRequest, netbenchVersion: String, executors: PageExecutorFactory? = nil) {
        self.request = request
        self.netbenchVersion = netbenchVersion
        self.executors = executors
    }

    /// Asks the runner to stop after the current run (safe from any thread, e.g. a SIGINT handler).
    public func cancel() {
        cancelled.store(true, ordering: .releasing)
        currentLoop.withLock { $0?.set() }
    }
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Runs everything; `persist` is called with all results so far before the first run and after
    /// every run (a whole-file rewrite each time: for tests and small runs; `netbench run` appends
    /// through a `RunSink` instead).
    public func execute(observer: RunObserver, persist: @escaping (ResultsFile) throws -> Void) throws -> ResultsFile {
        final class Rewriter: RunSink {
            var results: ResultsFile?
            let persist: (ResultsFile) throws -> Void
            init(_ persist: @escaping (ResultsFile) throws -> Void) { self.persist = persist }
            func begin(_ r: ResultsFile) throws { results = r; try persist(r) }
            func append(_ record: RunRecord) throws { results!.runs.append(record); try persist(results!) }
        }
        return try execute(observer: observer, sink: Rewriter(persist))
    }

    /// The results' header as this runner records it (no runs).
    public func header() -> ResultsFile {
        let r = request
        var results = ResultsFile(
            netbenchVersion: netbenchVersion, startedAt: BenchmarkRunner.utcTimestamp(), host: BenchmarkRunner.hostInfo(),
            suite: SuiteInfo(name: r.suiteName, scenarios: r.scenarios.map { $0.scenario.name }, profiles: r.profiles,
                             transports: r.transports, runs: r.runs, warmupRuns: r.warmupRuns, seed: r.seed,
                             baselineTransport: r.baselineTransport, client: r.clients.map(\.rawValue).joined(separator: ",")))
        results.planDigest = r.planDigest
        results.suite.adaptive = r.adaptive.map {
            AdaptiveSettings(precision: $0.precision, minRuns: $0.minRuns, maxRuns: $0.maxRuns, budgetSeconds: $0.budget.map { Double($0) / 1e9 })
        }
        if let s = r.shard { results.shards = [ShardRecord(shard: s, host: results.host, startedAt: results.startedAt)] }
        return results
    }

    /// Runs this request's share of the plan (its shard, less the runs already finished), handing
    /// every run to `sink` as it ends; returns all results, the finished runs included.
    public func execute(observer: RunObserver, sink: RunSink) throws -> ResultsFile {
        if request.clients.contains(.chromium) && ChromiumBrowser.locate() == nil {
            throw BenchError.run("--client chromium: Chromium is not installed; " + ChromiumBrowser.installHint)
        }
        var results = header()
        try sink.begin(results)
        results.runs = request.finishedRuns
        let factory = try executors ?? BuiltinExecutorFactory(request: request)
        if request.clients.contains(.chromium) { noteRenderedSizes(observer) }
        var scheduler = Scheduler(request: request, factory: factory, runner: self)
        try scheduler.run(observer: observer) { record in
            try sink.append(record)
            results.runs.append(record)
        }
        return results
    }

    /// Says, once, which rendered pages could not keep their scenario's size (they are served
    /// larger, never cut) and what a browser cannot discover as the scenario says.
    private func noteRenderedSizes(_ observer: RunObserver) {
        for (_, s) in request.scenarios where s.bulk == nil {
            let renderer = PageRenderer(scenario: s, port: 65535)
            let over = s.resources.filter { renderer.servedBytes(of: $0) > $0.bytes }
            if !over.isEmpty {
                observer.notice("\(s.name): rendered for the browser, " + over.map { "\($0.id) is \(renderer.servedBytes(of: $0) - $0.bytes) B larger" }.joined(separator: ", ")
                                + " than the scenario says (content does not fit; served whole)")
            }
            if !renderer.notes.isEmpty {
                observer.notice("\(s.name): for the browser, " + renderer.notes.prefix(3).joined(separator: "; ")
                                + (renderer.notes.count > 3 ? "; and \(renderer.notes.count - 3) more" : ""))
            }
        }
    }

    static func utcTimestamp(_ date: Date = Date()) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }

    static func hostInfo() -> HostInfo {
        let kernel = ProcessControl.readSmallFile("/proc/sys/kernel/osrelease")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown"
        return HostInfo(kernel: "Linux " + kernel, cpuCount: ProcessInfo.processInfo.activeProcessorCount,
                        hostname: ProcessInfo.processInfo.hostName)
    }
}

extension RunClient {
    /// The Chromium binary runs would use, or nil; `chromiumInstallHint` says how to get one.
    public static var chromiumPath: String? { ChromiumBrowser.locate() }
    public static var chromiumInstallHint: String { ChromiumBrowser.installHint }
}
