import BenchCore
import XCTest
import BenchModel
@testable import Reporters

final class EmulatorFlagsTests: XCTestCase {
    /// h1 against the h2 baseline on one emulated profile, 8 runs each; `flaggedH1` of h1's runs
    /// are flagged and take `flaggedPlt`.
    private func results(h2Plt: Double, h1Plt: Double, flaggedH1: Int, flaggedPlt: Double) -> ResultsFile {
        var runs: [RunRecord] = []
        for (t, plt) in [(TransportKind.h2, h2Plt), (.h1, h1Plt)] {
            for i in 0..<8 {
                var r = RunRecord(scenario: "page", profile: "cable", transport: t, index: i, status: .ok)
                let flagged = t == .h1 && i < flaggedH1
                var m = RunMetrics()
                m.pltMs = (flagged ? flaggedPlt : plt) + Double(i)
                m.ttfbMs = 100 + Double(i)
                r.metrics = m
                var e = EmulatorRecord(profile: "cable", configured: "5/1 Mbit/s, 28 ms", flagged: flagged)
                e.pltLatenessBoundMs = flagged ? 80 : 2
                r.emulator = e
                runs.append(r)
            }
        }
        return SampleResults.file(
            runs: runs, profiles: [SampleResults.cable], transports: [.h1, .h2], scenarios: ["page"], perCell: 8)
    }

    func testNothingFlaggedNothingToSay() {
        let a = ResultsAnalysis(results(h2Plt: 1000, h1Plt: 1000, flaggedH1: 0, flaggedPlt: 0), resamples: 200)
        let f = EmulatorFlags(a)
        XCTAssertEqual(f.emulatedRuns, 16)
        XCTAssertEqual(f.flaggedRuns, 0)
        XCTAssertNil(f.sentence)
    }

    func testFlaggedRunsThatMakeTheDifferenceAreNamed() throws {
        // h1 equals h2 except for 4 flagged runs that are much slower: without them, no difference.
        let a = ResultsAnalysis(results(h2Plt: 1000, h1Plt: 1000, flaggedH1: 4, flaggedPlt: 2000), resamples: 200)
        let f = EmulatorFlags(a)
        XCTAssertEqual(f.flaggedRuns, 4)
        XCTAssertEqual(f.changedVerdicts.count, 1, "\(f.changedVerdicts)")
        XCTAssertTrue(f.changedVerdicts[0].hasPrefix("cable · page · h1 pltMs:"), f.changedVerdicts[0])
        XCTAssertTrue(try XCTUnwrap(f.sentence).contains("changes 1 verdict"))
    }

    func testFlaggedRunsThatChangeNothingAreSaidToChangeNothing() throws {
        // h1 is clearly slower with or without its 2 flagged runs.
        let a = ResultsAnalysis(results(h2Plt: 1000, h1Plt: 1500, flaggedH1: 2, flaggedPlt: 1500), resamples: 200)
        let f = EmulatorFlags(a)
        XCTAssertEqual(f.flaggedRuns, 2)
        XCTAssertEqual(f.changedVerdicts, [])
        XCTAssertTrue(try XCTUnwrap(f.sentence).contains("changes no verdict"))
    }

    func testBoundShownIsTheCellsMedian() {
        let a = ResultsAnalysis(results(h2Plt: 1000, h1Plt: 1000, flaggedH1: 5, flaggedPlt: 1000), resamples: 200)
        XCTAssertEqual(EmulatorFlags.pltBoundMs(a, CellKey(scenario: "page", profile: "cable", transport: .h1)), 80)
        XCTAssertEqual(EmulatorFlags.pltBoundMs(a, CellKey(scenario: "page", profile: "cable", transport: .h2)), 2)
        XCTAssertTrue(TextSummary.render(a).contains("emu≤80"))
    }
}
