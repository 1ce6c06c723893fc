import XCTest
import BenchCore
import LinkEmulator

final class TimerFloorTests: XCTestCase {
    func testPercentilesFromTheHistogramAndNoGuessedTail() {
        var h = LatenessHistogram()
        for us in 1...999 { h.record(Nanoseconds(us) * 1_000 - 500) }
        let few = TimerFloor(histogram: h, duration: .seconds(1))
        XCTAssertEqual(few.samples, 999)
        XCTAssertEqual(few.p50, 500_000)
        XCTAssertEqual(few.p99, 990_000)
        XCTAssertNil(few.p999, "fewer than 1,000 wake-ups: the 99.9th percentile is unknown")
        h.record(7_000_000)
        let enough = TimerFloor(histogram: h, duration: .seconds(1))
        XCTAssertEqual(enough.p999, 999_000)
        XCTAssertEqual(enough.maximum, 7_000_000)
    }

    func testMeasurementSleepsAndCountsWakeUps() {
        let floor = TimerFloor.measure(duration: .milliseconds(100))
        XCTAssertGreaterThan(floor.samples, 5)
        XCTAssertGreaterThanOrEqual(floor.duration, .milliseconds(100))
        XCTAssertLessThanOrEqual(floor.p50, floor.p99)
        XCTAssertLessThanOrEqual(floor.p99, floor.maximum)
    }

    func testPreciseSpinMarginFollowsTheFloorWithinLimits() {
        func floor(p99: Nanoseconds) -> TimerFloor {
            TimerFloor(samples: 1000, duration: 1, p50: 0, p99: p99, p999: nil, maximum: p99)
        }
        XCTAssertEqual(PreciseMode.spinMargin(floor: floor(p99: 50_000)), 300_000)
        XCTAssertEqual(PreciseMode.spinMargin(floor: floor(p99: 1_400_000)), 1_600_000)
        XCTAssertEqual(PreciseMode.spinMargin(floor: floor(p99: 9_000_000)), 5_000_000)
    }

    func testStealTimeIsReadable() {
        XCTAssertNotNil(StealTime.total(), "/proc/stat has a cpu line with a steal column on Linux ≥ 2.6.11")
    }
}
