import Foundation
import XCTest
import BenchCore
import BenchModel
import Transport
@testable import Runner
import TestSupport

/// What a stand-in executor was asked to do.
struct Executed: Hashable {
    var profile: String
    var scenario: Int
    var transport: TransportKind
    var index: Int
    var withEvents: Bool
    var client: RunClient
}

/// Executors that load nothing: each run returns at once with a PLT from `plt`.
final class StandInFactory: PageExecutorFactory {
    var log: [Executed] = []
    var opened: [String] = []
    var closed: [String] = []
    /// Profiles whose runs have network events (each ok run then gets a baseline run).
    var eventProfiles: Set<String> = []
    var plt: (Executed, Int) -> Double? = { _, _ in 100 }
    var ideal: Double? = nil
    /// Called before each run returns (e.g. to cancel the runner during a run).
    var onRun: (Executed) -> Void = { _ in }

    func makeExecutor(profile: Profile, profileIndex: Int) throws -> PageExecutor {
        opened.append(profile.name)
        return StandInExecutor(factory: self, profile: profile)
    }

    func idealPltMs(profile: Profile, scenarioIndex: Int, transport: TransportKind) -> Double? { ideal }
}

final class StandInExecutor: PageExecutor {
    let factory: StandInFactory
    let profile: Profile
    init(factory: StandInFactory, profile: Profile) { self.factory = factory; self.profile = profile }

    var hasPathEvents: Bool { factory.eventProfiles.contains(profile.name) }

    func execute(_ run: RunSpec, register: (StopFlag?) -> Void) -> RunRecord {
        register(nil)
        let e = Executed(
            profile: profile.name, scenario: run.scenarioIndex, transport: run.transport, index: run.index,
            withEvents: run.withEvents, client: run.client)
        factory.log.append(e)
        let n = factory.log.count
        var record = RunRecord(
            scenario: "s\(run.scenarioIndex)", profile: profile.name, transport: run.transport,
            index: max(run.index, 0), status: .ok)
        if run.index < 0 { record.warmup = true }
        if let plt = factory.plt(e, n) {
            record.metrics.pltMs = plt
        } else {
            record.status = .failed; record.error = "stand-in failure"
        }
        if hasPathEvents && run.withEvents { record.metrics.migration = MigrationMetrics(survived: true) }
        factory.onRun(e)
        return record
    }

    func close() { factory.closed.append(profile.name) }
}

final class CollectingSink: RunSink {
    var began = 0
    var records: [RunRecord] = []
    func begin(_ results: ResultsFile) throws { began += 1 }
    func append(_ record: RunRecord) throws { records.append(record) }
}

final class CollectingObserver: RunObserver {
    var progress: [RunProgress] = []
    var notices: [String] = []
    var started: [(position: Int, total: Int, label: String)] = []
    func blockStarting(profile: Profile, runs: Int) {}
    func runStarting(position: Int, total: Int, label: String) { started.append((position, total, label)) }
    func runFinished(position: Int, total: Int, record: RunRecord) {}
    func notice(_ text: String) { notices.append(text) }
    func progress(_ p: RunProgress) { progress.append(p) }
}

enum Plans {
    static func scenarios(_ count: Int) throws -> [(path: String, scenario: Scenario)] {
        let path = Fixture.path("small-page.json")
        let base = try Scenario.load(from: path)
        return (0..<count).map { i in
            var s = base
            s.name = "s\(i)"
            return (path, s)
        }
    }

    static func profiles(_ names: [String]) -> [Profile] {
        names.map { n in
            var p = Profile.loopback
            p.name = n
            return p
        }
    }

    static func request(
        scenarios: Int = 1, profiles: [String] = ["p0"], transports: [TransportKind] = [.h1, .h2, .h3],
        runs: Int = 2, warmup: Int = 0
    ) throws -> RunRequest {
        RunRequest(
            suiteName: "test", scenarios: try self.scenarios(scenarios), profiles: self.profiles(profiles),
            transports: transports, runs: runs, warmupRuns: warmup, outputDirectory: "/nonexistent")
    }

    /// Runs `request` with the stand-in factory; returns the results and what the sink received.
    @discardableResult
    static func execute(
        _ request: RunRequest, _ factory: StandInFactory, observer: CollectingObserver = CollectingObserver(),
        configure: (BenchmarkRunner) -> Void = { _ in }
    ) throws -> (ResultsFile, CollectingSink) {
        let runner = BenchmarkRunner(request: request, netbenchVersion: "test", executors: factory)
        configure(runner)
        let sink = CollectingSink()
        let results = try runner.execute(observer: observer, sink: sink)
        return (results, sink)
    }
}
