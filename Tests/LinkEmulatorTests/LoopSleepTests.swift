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
}
