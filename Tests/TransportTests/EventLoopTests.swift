import XCTest
import BenchCore
import SystemIO
import Transport

/// The event loop every client and server runs on: timers fire in deadline order and not before
/// their deadline, a cancelled timer never fires, `run(until:)` returns at its deadline or when
/// `done` holds, and a stop from another thread ends the loop at once.
final class EventLoopTests: XCTestCase {
    func testTimersFireInDeadlineOrderAndNotEarly() throws {
        let loop = try EventLoop()
        let start = Instant.now()
        var fired: [(Int, Instant)] = []
        for (i, ms) in [(0, 30.0), (1, 10.0), (2, 20.0)] {
            _ = loop.schedule(at: start + .milliseconds(ms)) { fired.append((i, Instant.now())) }
        }
        let cancelled = loop.schedule(after: .milliseconds(15)) { fired.append((99, Instant.now())) }
        loop.cancel(cancelled)
        try loop.run(until: start + .seconds(2)) { fired.count == 3 }
        XCTAssertEqual(fired.map(\.0), [1, 2, 0])
        for (i, at) in fired {
            let due = [30.0, 10.0, 20.0][i]
            XCTAssertGreaterThanOrEqual(at.milliseconds(since: start), due - 0.01, "timer \(i) fired early")
        }
    }

    func testRunReturnsAtItsDeadlineWithNothingToDo() throws {
        let loop = try EventLoop()
        let start = Instant.now()
        try loop.run(until: start + .milliseconds(20))
        XCTAssertGreaterThanOrEqual(Instant.now().milliseconds(since: start), 19.9)
    }

    func testStopFromAnotherThreadEndsTheLoop() throws {
        let loop = try EventLoop()
        let stopper = loop.stopper
        let t = Thread { usleep(20_000); stopper.set() }
        t.start()
        let start = Instant.now()
        try loop.run(until: start + .seconds(10))
        XCTAssertLessThan(Instant.now().milliseconds(since: start), 5_000, "stop did not end the loop")
        XCTAssertTrue(stopper.isSet)
    }
}
