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

    func testMeasurementSleepsAndCountsWakeUps() throws {
        let floor = TimerFloor.measure(duration: .milliseconds(100))
        XCTAssertGreaterThan(floor.samples, 5)
        XCTAssertGreaterThanOrEqual(floor.duration, .milliseconds(100))
        XCTAssertLessThanOrEqual(floor.p50, floor.p99)
        XCTAssertLessThanOrEqual(floor.p99, floor.maximum)
        // A short sleep cost the thread some CPU, no more than the sleep and its wake-up took.
        let cost = try XCTUnwrap(floor.cpuPerWakeUp)
        XCTAssertGreaterThan(cost, 0)
        XCTAssertLessThanOrEqual(cost, TimerFloor.shortSleep + floor.maximum)
        XCTAssertNotNil(floor.idle)
        XCTAssertTrue(floor.summary.contains(", a sleep of 100 µs cost "), floor.summary)
    }

    func testIdlePolicyFromSysfsAndItsAdvice() {
        let off = IdlePolicy(driverFile: "haltpoll\n", haltPollFile: "0\n")
        XCTAssertEqual(off, IdlePolicy(driver: "haltpoll", haltPollNs: 0))
        XCTAssertTrue(off.haltsAtOnce)
        XCTAssertEqual(off.summary, "cpuidle haltpoll, guest halt polling off")
        let advice = off.advice(cpuPerWakeUp: 31_400)
        XCTAssertTrue(advice?.contains("costs about 31 µs of CPU") ?? false, advice ?? "nil")
        XCTAssertTrue(advice?.contains("echo 200000 > /sys/module/haltpoll/parameters/guest_halt_poll_ns") ?? false)
        XCTAssertNil(off.advice(cpuPerWakeUp: 4_000), "a cheap wake-up needs no advice")
        XCTAssertNil(off.advice(cpuPerWakeUp: nil), "an unmeasured one none either")
        let on = IdlePolicy(driverFile: "haltpoll", haltPollFile: "200000")
        XCTAssertFalse(on.haltsAtOnce)
        XCTAssertEqual(on.summary, "cpuidle haltpoll, polls up to 200 µs before halting")
        XCTAssertNil(on.advice(cpuPerWakeUp: 31_400), "polling is already on")
        XCTAssertEqual(IdlePolicy(driverFile: "intel_idle", haltPollFile: nil).summary, "cpuidle intel_idle")
        XCTAssertEqual(IdlePolicy(driverFile: nil, haltPollFile: nil).summary, "cpuidle unknown")
        XCTAssertNil(IdlePolicy(driverFile: " \n", haltPollFile: "x").driver)
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
