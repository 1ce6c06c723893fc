import Foundation
import BenchCore
import BenchModel
import SystemIO
import Transport
import TLS
import QUIC
import Synchronization


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
    /// `--runs auto`: `total` and `etaSeconds` are upper bounds (`--max-runs`, `--budget`); cells
    /// that reach their precision stop sooner.
    public var isUpperBound = false

    public init(position: Int, total: Int, etaSeconds: Double?, isUpperBound: Bool = false) {
        self.position = position
        self.total = total
        self.etaSeconds = etaSeconds
        self.isUpperBound = isUpperBound
    }
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
    private let executors: PageExecutorFactory

    /// `executors` makes each profile's block: the testbed's (`TestbedFactory`), `run --server`'s
    /// (`RemoteExecutorFactory`) or a test's stand-in.
    public init(request: RunRequest, netbenchVersion: String, executors: PageExecutorFactory) {
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
            netbenchVersion: netbenchVersion, startedAt: BenchmarkRunner.utcTimestamp(),
            host: BenchmarkRunner.hostInfo(),
            suite: SuiteInfo(
                name: r.suiteName, scenarios: r.scenarios.map { $0.scenario.name }, profiles: r.profiles,
                transports: r.transports, runs: r.runs, warmupRuns: r.warmupRuns, seed: r.seed,
                baselineTransport: r.baselineTransport,
                client: r.pageLoads.clients.map(\.rawValue).joined(separator: ",")))
        results.planDigest = r.planDigest
        results.suite.adaptive = r.adaptive.map {
            AdaptiveSettings(
                precision: $0.precision, minRuns: $0.minRuns, maxRuns: $0.maxRuns,
                budgetSeconds: $0.budget.map { Double($0) / 1e9 })
        }
        if let s = r.shard {
            results.shards = [ShardRecord(shard: s, host: results.host, startedAt: results.startedAt)]
        }
        return results
    }

    /// Runs this request's share of the plan (its shard, less the runs already finished), handing
    /// every run to `sink` as it ends; returns all results, the finished runs included.
    public func execute(observer: RunObserver, sink: RunSink) throws -> ResultsFile {
        try executors.prepare(notice: observer.notice)
        var results = header()
        try sink.begin(results)
        results.runs = request.finishedRuns
        let factory = executors
        var scheduler = Scheduler(request: request, factory: factory, runner: self)
        try scheduler.run(
            observer: observer,
            emit: { record in
                try sink.append(record)
                results.runs.append(record)
            }, filmstrip: { results.filmstrips = (results.filmstrips ?? []) + [$0] })
        return results
    }

    package static func utcTimestamp(_ date: Date = Date()) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }

    package static func hostInfo() -> HostInfo {
        let kernel =
            ProcessControl.readSmallFile("/proc/sys/kernel/osrelease")?.trimmingCharacters(in: .whitespacesAndNewlines)
            ?? "unknown"
        return HostInfo(
            kernel: "Linux " + kernel, cpuCount: ProcessInfo.processInfo.activeProcessorCount,
            hostname: ProcessInfo.processInfo.hostName)
    }
}
