import XCTest
import BenchCore
import BenchModel
@testable import Reporters

/// `netbench check` decisions on crafted results: 30 runs per side, PLT ≈ N(1000 ms, 50 ms).
final class CheckTests: XCTestCase {
    static func results(
        seed: UInt64, plt: Double, sd: Double = 50, goodput: Double? = nil, runs: Int = 30,
        transports: [TransportKind] = [.h2, .h3]
    ) -> ResultsFile {
        var rng = SeededRandom(seed: seed)
        var records: [RunRecord] = []
        for i in 0..<runs {
            for t in transports {
                var m = RunMetrics()
                m.pltMs = SampleResults.normal(&rng, mean: plt, sd: sd)
                m.ttfbMs = SampleResults.normal(&rng, mean: 300, sd: 15)
                m.handshakeMs = SampleResults.normal(&rng, mean: 200, sd: 10)
                m.idealPltMs = 700
                m.idealTtfbMs = 250
                m.goodputMbps = goodput.map { SampleResults.normal(&rng, mean: $0, sd: $0 * 0.05) }
                records.append(
                    RunRecord(scenario: "news", profile: "4g", transport: t, index: i, status: .ok, metrics: m))
            }
        }
        return SampleResults.file(runs: records, transports: transports, perCell: runs)
    }

    func failures(_ current: ResultsFile, _ baseline: ResultsFile, limit: Double = 0.05) throws -> [CheckOutcome] {
        try CheckRun.regressions(current: current, baseline: baseline, maxRegression: limit, resamples: 500)
            .filter { $0.status == .failed }
    }

    func testClearRegressionFails() throws {
        let failed = try failures(Self.results(seed: 2, plt: 1200), Self.results(seed: 1, plt: 1000))
        XCTAssertEqual(failed.map(\.name), ["news · 4g · h2 · pltMs", "news · 4g · h3 · pltMs"])
        XCTAssertTrue(failed[0].message.contains("regression beyond 5%"), failed[0].message)
    }

    func testNoiseOfTheSameDistributionPasses() throws {
        // Twenty independent pairs from the same distribution: none may fail.
        for seed in UInt64(10)..<30 {
            let failed = try failures(Self.results(seed: seed + 100, plt: 1000), Self.results(seed: seed, plt: 1000))
            XCTAssertEqual(failed, [], "seed \(seed)")
        }
    }

    func testRegressionSmallerThanTheLimitPasses() throws {
        // +3% is real (significant) but under the 5% limit.
        let failed = try failures(Self.results(seed: 2, plt: 1030, sd: 10), Self.results(seed: 1, plt: 1000, sd: 10))
        XCTAssertEqual(failed, [])
        XCTAssertEqual(
            try failures(
                Self.results(seed: 2, plt: 1030, sd: 10), Self.results(seed: 1, plt: 1000, sd: 10), limit: 0.01
            ).count, 2)
    }

    func testImprovementPasses() throws {
        let outcomes = try CheckRun.regressions(
            current: Self.results(seed: 2, plt: 800), baseline: Self.results(seed: 1, plt: 1000),
            maxRegression: 0.05, resamples: 500)
        XCTAssertFalse(CheckRun(outcomes: outcomes).failed)
        XCTAssertTrue(outcomes.first { $0.name == "news · 4g · h2 · pltMs" }!.message.hasSuffix("improved"))
    }

    func testLowerGoodputIsARegression() throws {
        let failed = try failures(
            Self.results(seed: 2, plt: 1000, goodput: 40), Self.results(seed: 1, plt: 1000, goodput: 50))
        XCTAssertEqual(failed.map(\.name), ["news · 4g · h2 · goodputMbps", "news · 4g · h3 · goodputMbps"])
        XCTAssertEqual(
            try failures(Self.results(seed: 2, plt: 1000, goodput: 60), Self.results(seed: 1, plt: 1000, goodput: 50)),
            [])
    }

    func testCellsOnOneSideAreSkippedAndNoOverlapIsADataError() throws {
        let outcomes = try CheckRun.regressions(
            current: Self.results(seed: 2, plt: 1000),
            baseline: Self.results(seed: 1, plt: 1000, transports: [.h2]), maxRegression: 0.05, resamples: 100)
        XCTAssertEqual(outcomes.filter { $0.status == .skipped }.map(\.name), ["news · 4g · h3 · *"])
        XCTAssertThrowsError(
            try CheckRun.regressions(
                current: Self.results(seed: 2, plt: 1000, transports: [.h3]),
                baseline: Self.results(seed: 1, plt: 1000, transports: [.h2]), maxRegression: 0.05)
        ) {
            XCTAssertEqual(($0 as? BenchError)?.exitCode, .dataError)
        }
    }

    func testMissingBaselineAndOtherSchemaVersionAreDataErrors() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("netbench-check-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        XCTAssertThrowsError(try ResultsFile.load(from: dir.appendingPathComponent("missing.json").path)) {
            XCTAssertEqual(($0 as? BenchError)?.exitCode, .dataError)
        }
        var other = Self.results(seed: 1, plt: 1000)
        other.schemaVersion = 2
        let path = dir.appendingPathComponent("v2.json").path
        try JSONFile.encode(other).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try ResultsFile.load(from: path)) {
            XCTAssertEqual(($0 as? BenchError)?.exitCode, .dataError)
            XCTAssertTrue(($0 as? BenchError)?.message.contains("schemaVersion is 2") == true)
        }
    }
}
