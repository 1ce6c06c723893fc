import XCTest
import BenchCore
import CommandLineKit
@testable import NetbenchCommands

/// `calibrate` over several rates: the highest rate whose goodput held 90% of it.
final class CalibrateLadderTests: XCTestCase {
    func testHighestRateHoldingNinetyPercent() {
        let line = CalibrateCommand.ladderSummary([(1e9, 0.93), (10e9, 0.41), (5e9, 0.9), (2e9, 0.95)])
        XCTAssertEqual(
            line, "highest rate holding goodput ≥ 90%: 5 Gbit/s (of 1 Gbit/s, 2 Gbit/s, 5 Gbit/s, 10 Gbit/s)")
        XCTAssertEqual(
            CalibrateCommand.ladderSummary([(1e9, 0.5), (10e9, 0.1)]),
            "highest rate holding goodput ≥ 90%: none (of 1 Gbit/s, 10 Gbit/s)")
        // One rate (several queues or flows of it) is no ladder.
        XCTAssertNil(CalibrateCommand.ladderSummary([(1e9, 0.95), (1e9, 0.5)]))
        XCTAssertNil(CalibrateCommand.ladderSummary([]))
    }

    /// The loop's sleeps a second, and the share of a core they cost at the floor's price per wake-up.
    func testTheLoopsSleepsAndWhatTheyCost() {
        XCTAssertEqual(
            CalibrateCommand.sleepShare(sleeps: 91_000, in: 10_000_000_000, cost: 33_000),
            "; 9100 sleeps a second, ≈ 30% of a core at the timer floor's 33 µs per short sleep")
        XCTAssertEqual(
            CalibrateCommand.sleepShare(sleeps: 500, in: 500_000_000, cost: nil), "; 1000 sleeps a second")
        XCTAssertEqual(CalibrateCommand.sleepShare(sleeps: nil, in: 1_000_000_000, cost: 33_000), "")
    }

    /// `--release-window` reaches the emulator's settings; 0 turns the window off, absent keeps the default.
    func testReleaseWindowOption() throws {
        XCTAssertNil(try ArgumentParser.parse(CalibrateCommand.self, ["-p", "4G"]).emulatorSettings.releaseWindow)
        XCTAssertEqual(
            try ArgumentParser.parse(CalibrateCommand.self, ["-p", "4G", "--release-window", "250us"])
                .emulatorSettings.releaseWindow, 250_000)
        XCTAssertEqual(
            try ArgumentParser.parse(CalibrateCommand.self, ["-p", "4G", "--release-window", "0"])
                .emulatorSettings.releaseWindow, 0)
        XCTAssertThrowsError(try ArgumentParser.parse(CalibrateCommand.self, ["-p", "4G", "--release-window", "x"]))
    }
}
