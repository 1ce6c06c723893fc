import XCTest
import BenchCore
import Statistics
@testable import Workloads

/// The open model's arrival schedule and the load's bookkeeping, on a virtual clock.
final class LoadScheduleTests: XCTestCase {
    let t0 = Instant(nanoseconds: 1_000_000_000)

    func take(_ s: inout LoadSchedule, by ms: Double) -> [(intended: Instant, step: Int)] {
        var out: [(intended: Instant, step: Int)] = []
        s.take(dueBy: t0 + .milliseconds(ms), into: &out)
        return out
    }

    func testConstantRateDueTimesDoNotDependOnWhenTheyAreTaken() {
        var s = LoadSchedule.constant(rate: 1000, duration: .milliseconds(10), start: t0)
        XCTAssertEqual(s.next, t0)
        // Taken late (a stalled generator): everything due so far comes out, at its intended times.
        let first = take(&s, by: 3)
        let expected = ([0, 1, 2, 3] as [Double]).map { Nanoseconds.milliseconds($0) }
        XCTAssertEqual(first.map { $0.intended.since(t0) }, expected)
        XCTAssertEqual(s.next, t0 + .milliseconds(4))
        XCTAssertTrue(take(&s, by: 3).isEmpty)
        let rest = take(&s, by: 1000)
        XCTAssertEqual(rest.count, 6)  // 4 … 9 ms; 10 ms is the end, not a request
        XCTAssertNil(s.next)
        XCTAssertEqual(s.end, t0 + .milliseconds(10))
    }

    func testBeyondTheLimitDueRequestsAreCountedNotKept() {
        var s = LoadSchedule.constant(rate: 1_000_000, duration: .seconds(10), start: t0)
        var out: [(intended: Instant, step: Int)] = []
        var skipped = [0]
        s.take(dueBy: t0 + .seconds(2), into: &out, limit: 1000, skipped: &skipped)
        XCTAssertEqual(out.count, 1000)
        XCTAssertEqual(out.count + skipped[0], 2_000_001)  // 0 … 2 s inclusive at 1 µs apart
        XCTAssertEqual(s.next, t0 + 2_000_001_000)
        s.take(dueBy: t0 + .seconds(60), into: &out, limit: 1000, skipped: &skipped)
        XCTAssertEqual(out.count + skipped[0], 10_000_000)
        XCTAssertNil(s.next)
    }

    func testFractionalRateRoundsEachDueTimeFromTheStepStart() {
        var s = LoadSchedule.constant(rate: 3, duration: .seconds(1), start: t0)
        let all = take(&s, by: 5000)
        XCTAssertEqual(all.map { $0.intended.since(t0) }, [0, 333_333_333, 666_666_667])
    }

    func testRampStepsFollowEachOther() {
        let steps = LoadSchedule.ramp(from: 100, to: 300, count: 3, stepDuration: .milliseconds(100))
        XCTAssertEqual(steps.map(\.rate), [100, 200, 300])
        var s = LoadSchedule(steps: steps, start: t0)
        let all = take(&s, by: 1000)
        XCTAssertEqual(all.filter { $0.step == 0 }.count, 10)
        XCTAssertEqual(all.filter { $0.step == 1 }.count, 20)
        XCTAssertEqual(all.filter { $0.step == 2 }.count, 30)
        XCTAssertEqual(all.first { $0.step == 1 }?.intended, t0 + .milliseconds(100))
        XCTAssertEqual(s.stepIndex(at: t0 + .milliseconds(250)), 2)
    }

    func testRecorderSplitsIntervalsByCompletionTimeWithoutGaps() throws {
        var r = try LoadRecorder(steps: 1, interval: .seconds(1))
        r.begin(at: t0, wallClock: 1000)
        r.ok(latency: .milliseconds(2), step: 0, at: t0 + .milliseconds(100))
        r.ok(latency: .milliseconds(900), step: 0, at: t0 + .milliseconds(2500))  // nothing in second 1
        r.count("closed", 2, example: "first")
        r.count("closed", 1, example: "second")
        let o = r.finish(at: t0 + .milliseconds(2600), loadEnd: t0 + .seconds(2))
        XCTAssertEqual(o.intervals.map(\.startSeconds), [0, 1, 2])
        XCTAssertEqual(o.intervals.map(\.totalCount), [1, 0, 1])
        XCTAssertEqual(o.intervals[2].lengthSeconds, 0.6, accuracy: 1e-9)
        XCTAssertEqual(o.latency.totalCount, 2)
        XCTAssertEqual(o.latency.maxRecorded, 900_000)
        XCTAssertEqual(o.errors, ["closed": 3])
        XCTAssertEqual(o.errorExamples, ["closed": "first"])
        XCTAssertEqual(o.achievedRate, 1)  // 2 answers over the 2 s load
    }

    func testBehindWhenDueRequestsWereNotAnswered() throws {
        var r = try LoadRecorder(steps: 1, interval: .seconds(1))
        r.begin(at: t0, wallClock: 0)
        r.scheduled = 100
        for _ in 0..<98 { r.ok(latency: 1000, step: 0, at: t0) }
        var o = r.finish(at: t0 + .seconds(1), loadEnd: t0 + .seconds(1))
        XCTAssertTrue(LoadRecord.isBehind(o, open: true))  // 98 of 100
        o.errors = ["status": 2]
        XCTAssertFalse(LoadRecord.isBehind(o, open: true))  // answered, with errors
        o.unsent = 1
        XCTAssertTrue(LoadRecord.isBehind(o, open: true))
        XCTAssertFalse(LoadRecord.isBehind(o, open: false))
    }
}

/// Shards of one load merge exactly: counts summed, histograms added, other layouts refused.
final class LoadMergeTests: XCTestCase {
    func record(_ latenciesUs: [Int64], rate: Double) throws -> LoadRecord {
        let t0 = Instant(nanoseconds: 5_000_000_000)
        var r = try LoadRecorder(steps: 1, interval: .seconds(1))
        r.begin(at: t0, wallClock: 0)
        r.scheduled = latenciesUs.count
        r.sent = latenciesUs.count
        for l in latenciesUs { r.ok(latency: l * 1000, step: 0, at: t0 + .milliseconds(10)) }
        var o = r.finish(at: t0 + .seconds(1), loadEnd: t0 + .seconds(1))
        o.steps = [
            .init(
                rate: rate, duration: .seconds(1), scheduled: latenciesUs.count, ok: latenciesUs.count,
                latency: o.latency)
        ]
        let settings = LoadSettings(
            transport: .h2, model: .open([.init(rate: rate, duration: .seconds(1))]), connections: 2, streams: 4)
        return try LoadRecord(o, settings: settings)
    }

    func testShardsAddExactly() throws {
        let a = LoadResults(
            netbenchVersion: "t", startedAt: "2026-01-01T00:00:01Z", server: "s", targets: [],
            loads: [try record([100, 200, 300], rate: 3)])
        let b = LoadResults(
            netbenchVersion: "t", startedAt: "2026-01-01T00:00:00Z", server: "s", targets: [],
            loads: [try record([5000], rate: 1)])
        let m = try LoadResults.merged([("a", a), ("b", b)])
        let l = try XCTUnwrap(m.loads.first)
        XCTAssertEqual(l.ok, 4)
        XCTAssertEqual(l.achievedRate, 4)
        XCTAssertEqual(l.latencyMs.count, 4)
        XCTAssertEqual(l.latencyMs.max, 5.003)  // 5000 µs: bucket 2, width 4 → 5003 µs highest equivalent
        XCTAssertEqual(l.latencyMs.p50, 0.2)
        XCTAssertEqual(l.steps[0].rate, 4)
        XCTAssertEqual(m.startedAt, "2026-01-01T00:00:00Z")
        var other = b
        other.loads[0].streams = 8
        XCTAssertThrowsError(try LoadResults.merged([("a", a), ("c", other)])) { XCTAssertTrue("\($0)".contains("c:")) }
    }
}
