import XCTest
import BenchCore
import Statistics
@testable import Workloads

/// `check` thresholds on load results, the link's capacity and ideal, and the merged interval log.
final class LoadThresholdTests: XCTestCase {
    /// A load of `steps` (rate, latencies in µs) through the recorder, as the generator records it.
    func record(
        transport: LoadTransport = .h3, steps: [(rate: Double, latenciesUs: [Int64])], errors: [String: Int] = [:]
    ) throws -> LoadRecord {
        var r = try LoadRecorder(steps: steps.count, interval: .seconds(1))
        let start = Instant(nanoseconds: 1_000_000_000)
        r.begin(at: start, wallClock: 1_700_000_000)
        for (i, s) in steps.enumerated() {
            for (k, us) in s.latenciesUs.enumerated() {
                r.scheduled += 1; r.sent += 1; r.stepScheduled[i] += 1
                r.ok(latency: us * 1000, step: i, at: start + .seconds(Double(i)) + .milliseconds(Double(k)))
            }
        }
        for (kind, n) in errors { r.count(kind, n, example: kind) }
        var outcome = r.finish(
            at: start + .seconds(Double(steps.count)), loadEnd: start + .seconds(Double(steps.count)))
        outcome.steps = steps.enumerated().map { i, s in
            LoadOutcome.Step(
                rate: s.rate, duration: .seconds(1), scheduled: r.stepScheduled[i], ok: r.stepOK[i],
                latency: r.stepHistograms[i])
        }
        let settings = LoadSettings(
            transport: transport, model: .open(steps.map { .init(rate: $0.rate, duration: .seconds(1)) }),
            connections: 1, streams: 1)
        return try LoadRecord(outcome, settings: settings)
    }

    func results(_ loads: [LoadRecord]) -> LoadResults {
        LoadResults(netbenchVersion: "test", startedAt: "2026-11-27T00:00:00Z", server: "s", targets: [], loads: loads)
    }

    func testThresholdsOnAStepAndOnTheWholeLoadPassAndFail() throws {
        // Step 1: 10 req/s, latencies 1..10 ms; step 2: 20 req/s, 10 answers (half the rate), 100 ms each.
        var load = try record(steps: [
            (10, (1...10).map { Int64($0) * 1000 }), (20, Array(repeating: 100_000, count: 10)),
        ])
        load.link = LoadLinkRecord(
            profile: "p", rttMs: 20, downlinkBitsPerSecond: 100e6, uplinkBitsPerSecond: 100e6, responseBytes: 10_000)
        let r = results([load])
        let checks = r.check([
            try LoadThreshold(parsing: "latencyMs.p99 <= 11", rate: 10),
            try LoadThreshold(parsing: "latencyMs.p99 <= 11", rate: 20),
            try LoadThreshold(parsing: "achievedRate >= 0.99 * asked", transport: .h3, rate: 10),
            try LoadThreshold(parsing: "achievedRate >= 0.99 * asked", rate: 20),
            try LoadThreshold(parsing: "latencyMs.p50 >= ideal"),
            try LoadThreshold(parsing: "errors == 0"),
            try LoadThreshold(parsing: "latencyMs.max < 1000", transport: .h1),
            try LoadThreshold(parsing: "latencyMs.p50 < 1000", rate: 15),
        ])
        XCTAssertEqual(checks.map(\.passed), [true, false, true, false, false, true, false, false], "\(checks)")
        XCTAssertEqual(checks[1].message, "latencyMs.p99 = 100 ms (n=10); expected <= 11")
        XCTAssertEqual(checks[3].message, "achievedRate = 10 req/s; expected >= 0.99 × asked 20 req/s")
        // The ideal: 20 ms RTT + 10 KB at 100 Mbit/s = 20.8 ms; the whole load's p50 is 10 ms (below: fails).
        XCTAssertEqual(checks[4].message, "latencyMs.p50 = 10 ms (n=20); expected >= ideal 20.8 ms")
        XCTAssertEqual(checks[6].name, "latencyMs.max < 1000 [h1]")
        XCTAssertEqual(checks[7].message, "no load in 15 req/s (no step asked at that rate)")
    }

    func testErrorsAndIdealWithoutALink() throws {
        let r = results([try record(steps: [(10, [1000])], errors: ["closed": 2, "timeout": 1])])
        let checks = r.check([
            try LoadThreshold(parsing: "errors == 0"), try LoadThreshold(parsing: "latencyMs.p50 <= 2 * ideal"),
        ])
        XCTAssertEqual(checks.map(\.passed), [false, false])
        XCTAssertEqual(checks[0].message, "errors = 3 (closed 2, timeout 1); expected == 0")
        XCTAssertTrue(checks[1].message.contains("no ideal"), checks[1].message)
    }

    func testBadExpressionsNameWhatIsWrong() {
        for (expr, rate, needle) in [
            ("pltMs.p95 < 3000", nil, "unknown quantity 'pltMs.p95'"),
            ("latencyMs.p42 < 3", nil, "unknown statistic 'p42'"),
            ("latencyMs.p99 3", nil, "no comparison operator"),
            ("achievedRate >= ideal", nil, "'ideal' compares with latencyMs only"),
            ("latencyMs.p99 <= asked", nil, "'asked' compares with achievedRate only"),
            ("errors == 0", 100.0, "per load, not per rate step"),
            ("achievedRate >= fast", nil, "'fast' is not a number"),
        ] as [(String, Double?, String)] {
            XCTAssertThrowsError(try LoadThreshold(parsing: expr, rate: rate), expr) { e in
                XCTAssertTrue("\(e)".contains(needle), "\(expr): \(e)")
            }
        }
        XCTAssertEqual(try LoadThreshold(parsing: "latencyMs.p99.9 < 3").quantity, .latency("p999"))
        XCTAssertEqual(try LoadThreshold(parsing: "latencyMs.median < 3").quantity, .latency("p50"))
    }

    func testThresholdFileErrorsNameTheEntry() throws {
        let path = NSTemporaryDirectory() + "load-thresholds-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"{"thresholds": ["errors == 0", {"expr": "latencyMs.p99 < 5", "transport": "h4"}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try LoadThresholdFile.load(from: path)) { e in
            XCTAssertTrue("\(e)".contains("thresholds[1]") && "\(e)".contains("'h4'"), "\(e)")
        }
        try #"{"thresholds": [{"expr": "latencyMs.p99 < 5", "transport": "h2", "rate": 500}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let t = try LoadThresholdFile.load(from: path)
        XCTAssertEqual(t.first?.rate, 500)
        XCTAssertEqual(t.first?.transport, .h2)
    }

    func testCapacityAndIdealFromTheLinkModel() {
        // 100 Mbit/s and 10,000-byte bodies: 1250 responses per second; ideal 20 ms + 0.8 ms.
        XCTAssertEqual(LoadLinkRecord.capacity(downlinkBitsPerSecond: 100e6, responseBytes: 10_000), 1250)
        XCTAssertEqual(
            LoadLinkRecord.ideal(rttMs: 20, downlinkBitsPerSecond: 100e6, responseBytes: 10_000), 20.8,
            accuracy: 1e-9)
        XCTAssertNil(LoadLinkRecord.capacity(downlinkBitsPerSecond: nil, responseBytes: 10_000))
        var link = LoadLinkRecord(
            profile: "p", rttMs: 20, downlinkBitsPerSecond: 100e6, uplinkBitsPerSecond: nil, responseBytes: 10_000)
        link.measured(downlinkBytes: 10_600_000, ok: 1000, achievedRate: 625, flags: [])
        XCTAssertEqual(link.wireBytesPerResponse, 10_600)
        XCTAssertEqual(link.downlinkUtilization ?? 0, 0.53, accuracy: 1e-9)
        XCTAssertNil(link.emulatorFlags)
    }

    /// Two shards' interval logs, started 0.4 s apart: the merged log's intervals add up to every
    /// shard interval exactly, each shard interval whole in the merged interval its start falls in.
    func testMergedIntervalLogIsTheExactSum() throws {
        func log(start: Double, _ intervals: [[Int64]]) throws -> HistogramLog {
            var l = HistogramLog(startTime: start, maxValueUnitRatio: 1000)
            for (i, values) in intervals.enumerated() {
                var h = try HDRHistogram(HDRHistogram.latencyMicroseconds)
                for v in values { h.record(v) }
                l.intervals.append(try .init(startSeconds: Double(i), lengthSeconds: 1, histogram: h))
            }
            return l
        }
        let a = try log(start: 100.0, [[1000, 2000], [3000]])
        let b = try log(start: 100.4, [[5000], [7000, 9000], [11000]])
        let m = try HistogramLog.merged([a, b])
        XCTAssertEqual(m.startTime, 100.0)
        // a0 + b0 (starts 0, 0.4) | a1 + b1 (1, 1.4) | b2 (2.4): lengths 1, 1, and to b2's end (3.4 − 2).
        XCTAssertEqual(m.intervals.map(\.totalCount), [3, 3, 1])
        XCTAssertEqual(m.intervals.map(\.startSeconds), [0, 1, 2])
        XCTAssertEqual(m.intervals.last?.lengthSeconds ?? 0, 1.4, accuracy: 1e-9)
        XCTAssertEqual(try m.intervals[1].histogram().maxValue, try HDRHistogram.latencyMicrosecondsMax(9000))
        // Round trip through the text: the same intervals.
        let back = try HistogramLog.parse(m.render())
        XCTAssertEqual(back.intervals.map(\.totalCount), [3, 3, 1])
    }
}

extension HDRHistogram {
    /// The value a histogram of `latencyMicroseconds` reports as its max after recording `v`.
    static func latencyMicrosecondsMax(_ v: Int64) throws -> Int64 {
        var h = try HDRHistogram(HDRHistogram.latencyMicroseconds)
        h.record(v)
        return h.maxValue
    }
}
