import XCTest
import BenchCore
@testable import LinkEmulator

/// The packet loop's sleep on a virtual clock: until the release, warm hops after traffic, the
/// precise mode's polling, the drain's quiet time.
final class LoopSleepTests: XCTestCase {
    private let t0 = Instant(nanoseconds: 5_000_000_000)
    private let ms: Nanoseconds = 1_000_000

    private func plan(
        next: Nanoseconds?, last: Nanoseconds?, spin: Nanoseconds? = nil, more: Bool = false, quiet: Nanoseconds = 0
    ) -> LoopSleep {
        LoopSleep.plan(
            now: t0, nextRelease: next.map { t0 + $0 }, moreWaiting: more, spinMargin: spin,
            lastPacket: last.map { t0 + -$0 }, drainQuiet: quiet)
    }

    func testColdLoopSleepsUntilTheReleaseOrForever() {
        // No packet for longer than the warm window: one sleep to the release, its deadline kept.
        XCTAssertEqual(plan(next: 25 * ms, last: 2_000 * ms), LoopSleep(timeout: 25 * ms, deadline: t0 + 25 * ms))
        XCTAssertEqual(plan(next: nil, last: nil), LoopSleep(timeout: nil, deadline: nil))
        XCTAssertEqual(plan(next: nil, last: 1_000 * ms), LoopSleep(timeout: nil, deadline: nil))
    }

    func testWarmLoopHopsUntilTheWindowEnds() {
        // 50 ms after a ping: a 25 ms wait becomes hops, which end at no release.
        let hop = LoopSleep(timeout: LoopSleep.warmHop, deadline: nil)
        XCTAssertEqual(plan(next: 25 * ms, last: 50 * ms), hop)
        XCTAssertEqual(plan(next: nil, last: 999 * ms), hop)
        // A release closer than a hop is slept to exactly, and its lateness is the floor's.
        XCTAssertEqual(plan(next: 150_000, last: 1 * ms), LoopSleep(timeout: 150_000, deadline: t0 + 150_000))
        // A release already due: no sleep.
        XCTAssertEqual(plan(next: -5_000, last: 1 * ms), LoopSleep(timeout: 0, deadline: nil))
        // The window can be switched off.
        XCTAssertEqual(
            LoopSleep.plan(
                now: t0, nextRelease: t0 + 25 * ms, moreWaiting: false, spinMargin: nil, lastPacket: t0 + -ms,
                drainQuiet: 0, warmWindow: 0),
            LoopSleep(timeout: 25 * ms, deadline: t0 + 25 * ms))
    }

    func testPreciseModeWakesEarlyThenPolls() {
        let spin: Nanoseconds = 400_000
        let cold: Nanoseconds = 5_000 * ms
        XCTAssertEqual(
            plan(next: 25 * ms, last: cold, spin: spin),
            LoopSleep(timeout: 25 * ms - spin, deadline: t0 + (25 * ms - spin)))
        let hop = LoopSleep.pollHop
        XCTAssertEqual(plan(next: 300_000, last: cold, spin: spin), LoopSleep(timeout: hop, deadline: t0 + hop))
        XCTAssertEqual(plan(next: 20_000, last: cold, spin: spin), LoopSleep(timeout: 20_000, deadline: t0 + 20_000))
    }

    func testMoreWaitingAndDrain() {
        XCTAssertEqual(plan(next: 25 * ms, last: 1 * ms, more: true), LoopSleep(timeout: 0, deadline: nil))
        // A drain looks again within its quiet time, even when cold and idle.
        XCTAssertEqual(plan(next: nil, last: nil, quiet: 20 * ms), LoopSleep(timeout: 20 * ms, deadline: nil))
        XCTAssertEqual(plan(next: 5 * ms, last: nil, quiet: 20 * ms), LoopSleep(timeout: 5 * ms, deadline: t0 + 5 * ms))
    }

    func testSpinWindowPollsTheLastStretchBeforeARelease() {
        let window: Nanoseconds = 60_000
        func spin(next: Nanoseconds?, last: Nanoseconds?) -> LoopSleep {
            LoopSleep.plan(
                now: t0, nextRelease: next.map { t0 + $0 }, moreWaiting: false, spinMargin: nil,
                lastPacket: last.map { t0 + -$0 }, drainQuiet: 0, spinWindow: window)
        }
        // Within the window: a zero-timeout pass marked as a spin (charged to the budget).
        XCTAssertEqual(spin(next: 40_000, last: 1 * ms), LoopSleep(timeout: 0, deadline: nil, spin: true))
        XCTAssertEqual(spin(next: window, last: nil), LoopSleep(timeout: 0, deadline: nil, spin: true))
        // Beyond it, cold: one sleep that ends a window before the release.
        XCTAssertEqual(
            spin(next: 25 * ms, last: nil), LoopSleep(timeout: 25 * ms - window, deadline: t0 + (25 * ms - window)))
        // Warm: hops, and the last hop ends a window before the release, not at it.
        XCTAssertEqual(spin(next: 25 * ms, last: 1 * ms), LoopSleep(timeout: LoopSleep.warmHop, deadline: nil))
        XCTAssertEqual(spin(next: 150_000, last: 1 * ms), LoopSleep(timeout: 90_000, deadline: t0 + 90_000))
        // A release already due is work, not a spin; no release: no spin.
        XCTAssertEqual(spin(next: -5_000, last: 1 * ms), LoopSleep(timeout: 0, deadline: nil))
        XCTAssertEqual(spin(next: nil, last: nil), LoopSleep(timeout: nil, deadline: nil))
    }

    func testSpinBudgetCapsPollingPerPeriod() {
        var budget = SpinBudget(period: 100 * ms, allowance: 2 * ms)
        XCTAssertTrue(budget.allows(at: t0))
        // 40 releases polled for 50 µs each use the 2 ms of the period.
        for i in 0..<40 { budget.charge(50_000, at: t0 + Nanoseconds(i) * ms) }
        XCTAssertFalse(budget.allows(at: t0 + 50 * ms))
        XCTAssertFalse(budget.allows(at: t0 + 99 * ms))
        // A new period starts with the whole allowance; the total keeps counting.
        XCTAssertTrue(budget.allows(at: t0 + 100 * ms))
        budget.charge(30_000, at: t0 + 101 * ms)
        XCTAssertEqual(budget.total, 2_030_000)
        XCTAssertTrue(budget.allows(at: t0 + 150 * ms))
    }
}
