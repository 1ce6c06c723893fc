import XCTest
import BenchCore
import BenchModel
@testable import Replay

/// `MigrationMetrics.measured`: the migration record as a pure function of a load's raw timestamps.
final class MigrationMetricsTests: XCTestCase {
    /// `ms` after an arbitrary origin of the monotonic clock.
    private func at(_ ms: Double) -> Instant { Instant(nanoseconds: 50_000_000_000) + .milliseconds(ms) }

    private func arrivals(_ list: [(ms: Double, bytes: Int)]) -> [BodyArrival] {
        list.map { BodyArrival(at: at($0.ms), bytes: $0.bytes) }
    }

    private func measure(
        events: [Double], arrivals: [BodyArrival] = [], connections: [ConnectionLifetime] = [],
        redownloaded: Int64 = 0, rate: Double? = nil
    ) -> MigrationMetrics? {
        MigrationMetrics.measured(
            pathEvents: events.map(at), arrivals: arrivals, connections: connections,
            bytesRedownloaded: redownloaded, recoveryRateBitsPerSecond: rate)
    }

    func testNoPathEventGivesNoRecord() {
        XCTAssertNil(
            measure(
                events: [], arrivals: arrivals([(10, 1000)]),
                connections: [.init(openedAt: at(0), failed: true)]))
    }

    /// From the last byte before the change: packets still arriving on the old path right after it
    /// do not hide the gap that follows them.
    func testTheStallIsTheLongestGapFromTheLastByteBeforeTheChange() throws {
        let m = try XCTUnwrap(
            measure(
                events: [100],
                arrivals: arrivals([
                    (0, 1), (60, 1), (90, 1), (110, 1),
                    (260, 1), (270, 1),
                ])))
        XCTAssertEqual(m.stallMs, 150, "110 → 260; the 60 ms gap before the change does not count")
    }

    /// Only gaps that start within 5 s of the change count (the first change, when there are more).
    func testTheStallIgnoresGapsStartingMoreThanFiveSecondsAfterTheChange() throws {
        let m = try XCTUnwrap(
            measure(
                events: [100, 8_000],
                arrivals: arrivals([
                    (90, 1), (300, 1), (5_200, 1),
                    (12_000, 1),
                ])))
        XCTAssertEqual(m.stallMs, 4_900, "300 → 5200 counts; 5200 → 12000 starts after 5100")
    }

    func testNoBytesBeforeTheChangeGiveNoStall() throws {
        let m = try XCTUnwrap(measure(events: [100], arrivals: arrivals([(150, 1), (400, 1)])))
        XCTAssertNil(m.stallMs)
    }

    func testAConnectionOpenedAfterTheChangeIsAnExtraHandshake() throws {
        let old = ConnectionLifetime(openedAt: at(0), failed: false)
        let kept = try XCTUnwrap(measure(events: [100], connections: [old]))
        XCTAssertTrue(kept.survived)
        XCTAssertEqual(kept.extraHandshakes, 0)
        let fresh = try XCTUnwrap(
            measure(
                events: [100],
                connections: [
                    old, .init(openedAt: at(100), failed: true),
                    .init(openedAt: at(300), failed: false),
                ]))
        XCTAssertFalse(fresh.survived)
        XCTAssertEqual(fresh.extraHandshakes, 2, "opened at the change or after it")
    }

    func testAConnectionFromBeforeTheChangeThatFailedBrokeTheLoad() throws {
        let m = try XCTUnwrap(
            measure(
                events: [100], connections: [.init(openedAt: at(0), failed: true)],
                redownloaded: 4_096))
        XCTAssertFalse(m.survived)
        XCTAssertEqual(m.extraHandshakes, 0)
        XCTAssertEqual(m.bytesRedownloaded, 4_096)
    }

    /// 8 Mbit/s: 90% of it is 90,000 bytes per 100 ms. 20,000 bytes every 10 ms from 200 ms on:
    /// the fifth arrival (240 ms) completes the first window that carries enough.
    func testRecoveryEndsWithTheFirstWindowAtNinetyPercentOfTheRate() throws {
        let list = [(50.0, 90_000)] + (0..<6).map { (200 + Double($0) * 10, 20_000) }
        let m = try XCTUnwrap(measure(events: [100], arrivals: arrivals(list), rate: 8_000_000))
        XCTAssertEqual(m.recoveryMs, 140, "change at 100 ms, recovered at 240 ms; the bytes before it do not count")
    }

    func testSpreadOutBytesNeverRecover() throws {
        let list = (0..<20).map { (150 + Double($0) * 50, 30_000) }
        let m = try XCTUnwrap(measure(events: [100], arrivals: arrivals(list), rate: 8_000_000))
        XCTAssertNil(m.recoveryMs, "60,000 bytes per 100 ms window at most, 90,000 needed")
        XCTAssertNil(try XCTUnwrap(measure(events: [100], arrivals: arrivals(list))).recoveryMs, "no rate, no recovery")
    }
}
