import XCTest
import BenchCore
import BenchModel
@testable import Runner

/// The scheduler with stand-in executors: what runs, in which order, what is kept.
final class SchedulerTests: XCTestCase {
    func testWarmupsFirstThenRoundsInterleaved() throws {
        let f = StandInFactory()
        let observer = CollectingObserver()
        let (results, sink) = try Plans.execute(
            try Plans.request(scenarios: 2, transports: [.h1, .h2, .h3], runs: 2, warmup: 1), f,
            observer: observer)
        XCTAssertEqual(observer.started.map(\.position), Array(1...18))
        XCTAssertEqual(Set(observer.started.map(\.total)), [18], "the total is known from the first run")
        XCTAssertEqual(observer.started[0].label, "s0 · p0 · h1 · warm-up")
        XCTAssertEqual(observer.started[6].label, "s0 · p0 · h1 · run 1/2")
        var expected: [Executed] = []
        for index in [-1, 0, 1] {
            for s in 0..<2 {
                for t in [TransportKind.h1, .h2, .h3] {
                    expected.append(
                        Executed(
                            profile: "p0", scenario: s, transport: t, index: index, withEvents: true, client: .builtin))
                }
            }
        }
        XCTAssertEqual(f.log, expected)
        XCTAssertEqual(sink.began, 1)
        XCTAssertEqual(sink.records.count, 18, "every run handed to the sink once, as it ends")
        XCTAssertEqual(results.runs.count, 18)
        XCTAssertEqual(results.runs.filter { $0.warmup == true }.count, 6)
        XCTAssertTrue(results.runs.allSatisfy { $0.host != nil && $0.startedAt != nil })
    }

    func testOneExecutorPerProfileBlockClosedAfterIt() throws {
        let f = StandInFactory()
        try Plans.execute(try Plans.request(profiles: ["a", "b"], transports: [.h2], runs: 2), f)
        XCTAssertEqual(f.opened, ["a", "b"])
        XCTAssertEqual(f.closed, ["a", "b"])
        XCTAssertEqual(f.log.map(\.profile), ["a", "a", "b", "b"])
    }

    func testCancelKeepsFinishedRunsOnlyAndClosesTheBlock() throws {
        let f = StandInFactory()
        let request = try Plans.request(transports: [.h1, .h2, .h3], runs: 3)
        let (results, sink) = try Plans.execute(request, f) { runner in
            f.onRun = { _ in if f.log.count == 3 { runner.cancel() } }
        }
        XCTAssertEqual(f.log.count, 3, "no run starts after the cancel")
        XCTAssertEqual(sink.records.count, 2, "the run interrupted by the cancel is not kept")
        XCTAssertEqual(results.runs.map(\.transport), [.h1, .h2])
        XCTAssertEqual(f.closed, ["p0"])
    }

    func testMigrationRunsArePairedWithABaselineWithoutEvents() throws {
        let f = StandInFactory()
        f.eventProfiles = ["wifi-to-lte"]
        // Event runs take 300 ms, baselines 200 ms; the second h2 run fails (no baseline then).
        f.plt = { e, _ in
            if e.transport == .h2 && e.index == 1 && e.withEvents { return nil }
            return e.withEvents ? 300 : 200
        }
        let (results, _) = try Plans.execute(
            try Plans.request(profiles: ["wifi-to-lte"], transports: [.h2, .h3], runs: 2), f)
        XCTAssertEqual(
            f.log.map { "\($0.transport.rawValue)\($0.index)\($0.withEvents ? "e" : "b")" },
            ["h20e", "h20b", "h30e", "h30b", "h21e", "h31e", "h31b"])
        XCTAssertEqual(results.runs.count, 4, "baselines are not runs of their own")
        let ok = results.runs.filter { $0.status == .ok }
        XCTAssertEqual(ok.count, 3)
        XCTAssertTrue(ok.allSatisfy { $0.metrics.migration?.baselinePltMs == 200 })
        XCTAssertNil(results.runs.first { $0.status == .failed }?.metrics.migration?.baselinePltMs)
    }

    func testEveryShardCountPartitionsThePlanKeepingComparisonsTogether() throws {
        let base = try Plans.request(scenarios: 2, profiles: ["a", "b"], transports: [.h1, .h2, .h3], runs: 3)
        let unsharded = StandInFactory()
        try Plans.execute(base, unsharded)
        let all = unsharded.log.filter { $0.index >= 0 }
        XCTAssertEqual(all.count, 36)
        for n in 1...13 {
            var seen: [Executed: Int] = [:]
            var blockShards: [String: Set<Int>] = [:]
            var unitShards: [String: Set<Int>] = [:]
            for i in 1...n {
                var r = base
                r.shard = ShardSpec(index: i, count: n)
                let f = StandInFactory()
                try Plans.execute(r, f)
                for e in f.log where e.index >= 0 {
                    seen[e, default: 0] += 1
                    blockShards["\(e.profile)/\(e.scenario)", default: []].insert(i)
                    unitShards["\(e.profile)/\(e.scenario)/\(e.index)", default: []].insert(i)
                }
            }
            XCTAssertEqual(Set(seen.keys), Set(all), "\(n) shards cover the plan")
            XCTAssertTrue(seen.values.allSatisfy { $0 == 1 }, "\(n) shards: each run once")
            XCTAssertTrue(
                unitShards.values.allSatisfy { $0.count == 1 },
                "\(n) shards: all transports of a run index on one shard")
            if n <= 4 {
                XCTAssertTrue(blockShards.values.allSatisfy { $0.count == 1 }, "\(n) shards ≤ 4 blocks: whole blocks")
            }
        }
    }

    func testAShardRunsTheWarmupsOfItsBlocksOnly() throws {
        var r = try Plans.request(scenarios: 2, profiles: ["a"], transports: [.h1, .h2], runs: 2, warmup: 1)
        r.shard = ShardSpec(index: 2, count: 2)
        let f = StandInFactory()
        try Plans.execute(r, f)
        XCTAssertEqual(Set(f.log.map(\.scenario)), [1])
        XCTAssertEqual(f.log.filter { $0.index < 0 }.count, 2)
    }

    func testResumeSkipsFinishedRunsAndRepeatsTheWarmupOfUnfinishedCells() throws {
        var r = try Plans.request(scenarios: 1, profiles: ["a", "b"], transports: [.h1, .h2], runs: 2, warmup: 1)
        func done(_ p: String, _ t: TransportKind, _ i: Int) -> RunRecord {
            var rec = RunRecord(scenario: "s0", profile: p, transport: t, index: i, status: .ok)
            rec.client = .builtin
            return rec
        }
        // Profile a finished; in b, h1 run 0 finished (h2 run 0 was cut off and never logged).
        var warm = done("a", .h1, 0); warm.warmup = true
        r.finishedRuns = [
            warm, done("a", .h1, 0), done("a", .h2, 0), done("a", .h1, 1), done("a", .h2, 1), done("b", .h1, 0),
        ]
        let f = StandInFactory()
        let (results, sink) = try Plans.execute(r, f)
        XCTAssertEqual(f.opened, ["b"], "a finished block is not set up again")
        XCTAssertEqual(f.log.map { "\($0.transport.rawValue)\($0.index)" }, ["h1-1", "h2-1", "h20", "h11", "h21"])
        XCTAssertEqual(sink.records.count, 5)
        XCTAssertEqual(results.runs.count, 11, "finished runs are kept")
    }

    func testETAUsesEachCellsIdealUntilItsFirstRunThenItsOwnTime() throws {
        let f = StandInFactory()
        f.ideal = 1000
        let observer = CollectingObserver()
        try Plans.execute(try Plans.request(transports: [.h1, .h2], runs: 3), f, observer: observer)
        XCTAssertEqual(observer.progress.count, 6)
        // After h1's first run: h1's 2 left cost its own (≈ 0 s) time, h2's 3 left its ideal (1 s each).
        XCTAssertEqual(observer.progress[0].etaSeconds ?? -1, 3, accuracy: 0.2)
        // After h2's first run both cells are measured: ≈ 0 s.
        XCTAssertEqual(observer.progress[1].etaSeconds ?? -1, 0, accuracy: 0.2)
        XCTAssertEqual(observer.progress.map(\.total), [6, 6, 6, 6, 6, 6])
    }

    /// A cell not yet run is estimated at its ideal times what the measured runs took against theirs:
    /// runs of 100 ms against a 20 ms ideal make the unmeasured h2 cell 5 × 20 ms a run.
    func testETAScalesTheIdealOfUnmeasuredCellsByWhatMeasuredRunsTook() throws {
        let f = StandInFactory()
        f.ideal = 20
        f.onRun = { _ in Thread.sleep(forTimeInterval: 0.1) }
        let observer = CollectingObserver()
        try Plans.execute(try Plans.request(transports: [.h1, .h2], runs: 2), f, observer: observer)
        // After h1's first run: h1's 1 left at its own 0.1 s, h2's 2 at 5 × 0.02 s: 0.3 s (the ideal
        // alone would say 0.14 s).
        XCTAssertEqual(observer.progress[0].etaSeconds ?? -1, 0.3, accuracy: 0.06)
    }

    func testETACountsTheWarmupsStillToCome() throws {
        let f = StandInFactory()
        f.ideal = 1000
        let observer = CollectingObserver()
        try Plans.execute(
            try Plans.request(profiles: ["a", "b"], transports: [.h1, .h2], runs: 1, warmup: 1), f, observer: observer)
        // After a's h1 warm-up: a·h2's warm-up and run (1 s each, ideal), b's two cells' warm-ups and runs (4 s).
        XCTAssertEqual(observer.progress[0].etaSeconds ?? -1, 6, accuracy: 0.2)
        XCTAssertEqual(observer.progress.map(\.total), Array(repeating: 8, count: 8))
    }

    func testAdaptiveRunsStopWhenTheMedianIsPreciseAndAtTheMaximumOtherwise() throws {
        var r = try Plans.request(transports: [.h1, .h2], runs: 1)
        r.adaptive = AdaptiveRuns(precision: 0.02, minRuns: 5, maxRuns: 12)
        let f = StandInFactory()
        // h1 is steady (±0.5%); h2 alternates 100 / 150 ms, which no number of runs pins to ±2%.
        f.plt = { e, _ in e.transport == .h1 ? 100 + Double(e.index % 3) * 0.5 : (e.index % 2 == 0 ? 100 : 150) }
        let (results, _) = try Plans.execute(r, f)
        let h1 = results.runs.filter { $0.transport == .h1 }.count
        let h2 = results.runs.filter { $0.transport == .h2 }.count
        XCTAssertEqual(h1, 6, "no 95% interval exists at n = 5 (93.75%): the sixth run gives [min, max]")
        XCTAssertEqual(h2, 12)
    }

    func testAdaptiveETAIsAnUpperBoundFromMaxRunsThatNarrowsAsCellsStop() throws {
        var r = try Plans.request(transports: [.h1, .h2], runs: 1)
        r.adaptive = AdaptiveRuns(precision: 0.02, minRuns: 5, maxRuns: 12)
        let f = StandInFactory()
        f.ideal = 1000
        f.plt = { e, _ in e.transport == .h1 ? 100 : (e.index % 2 == 0 ? 100 : 150) }
        let observer = CollectingObserver()
        try Plans.execute(r, f, observer: observer)
        let p = observer.progress
        // After the first run: h1's 11 more and h2's 12 at most, h2's at its ideal (1 s each).
        XCTAssertEqual(p[0].total, 24, "1 made + up to 11 + 12")
        XCTAssertTrue(p[0].isUpperBound)
        XCTAssertGreaterThanOrEqual(p[0].etaSeconds ?? -1, 12 - 0.2)
        // h1 settles after its sixth run: the bound drops to what h2 may still need.
        XCTAssertEqual(p.last?.total, 18, "6 + 12 runs made")
        XCTAssertEqual(p.last?.isUpperBound, false, "nothing left to bound")
        XCTAssertTrue(zip(p, p.dropFirst()).allSatisfy { $0.total >= $1.total }, "the bound only narrows")
    }

    func testAdaptiveETAIsCappedByTheBudget() throws {
        var r = try Plans.request(transports: [.h1, .h2], runs: 1)
        r.adaptive = AdaptiveRuns(precision: 0.0001, minRuns: 5, maxRuns: 30, budget: .seconds(5))
        let f = StandInFactory()
        f.ideal = 60_000
        f.plt = { e, _ in 100 + Double(e.index % 2) * 50 }
        let observer = CollectingObserver()
        try Plans.execute(r, f, observer: observer)
        // After h1's first run, h2's 30 runs at a 60 s ideal would be 30 min: the budget leaves
        // ≤ 5 s plus one round (h2's 60 s).
        let eta = try XCTUnwrap(observer.progress[0].etaSeconds)
        XCTAssertLessThanOrEqual(eta, 5 + 60 + 0.5)
        XCTAssertGreaterThanOrEqual(eta, 60)
    }
}
