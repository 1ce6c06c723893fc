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
        let t = Thread {
            usleep(20_000); stopper.set()
        }
        t.start()
        let start = Instant.now()
        try loop.run(until: start + .seconds(10))
        XCTAssertLessThan(Instant.now().milliseconds(since: start), 5_000, "stop did not end the loop")
        XCTAssertTrue(stopper.isSet)
    }

    /// Work a handler queues with `runAfterIO` runs once every handler ready in the same turn has
    /// run (a QUIC client's ACKs for every connection leave before the loader's work on any).
    func testWorkQueuedByAHandlerRunsAfterEveryReadyHandlerOfTheTurn() throws {
        let loop = try EventLoop()
        let a = try Socket.bindUDP(Endpoint(address: Endpoint.loopbackAddress, port: 0))
        let b = try Socket.bindUDP(Endpoint(address: Endpoint.loopbackAddress, port: 0))
        defer { Socket.close(a.0); Socket.close(b.0) }
        var order: [String] = []
        for (name, socket) in [("a", a.0), ("b", b.0)] {
            try loop.register(socket, .read) { _ in
                loop.unregister(socket)
                order.append(name)
                if order.count == 1 { loop.runAfterIO { order.append("after") } }
            }
        }
        // Both sockets are readable before the loop's first wait: one turn reports both.
        let byte: [UInt8] = [1]
        _ = try byte.withUnsafeBytes { try Socket.sendDatagram(a.0, $0, to: a.1) }
        _ = try byte.withUnsafeBytes { try Socket.sendDatagram(b.0, $0, to: b.1) }
        try loop.run(until: Instant.now() + .seconds(5)) { order.count == 3 }
        XCTAssertEqual(order.count, 3)
        XCTAssertEqual(order.last, "after", "queued work ran before a handler ready in the same turn: \(order)")
    }

    /// Queued from a timer, the work runs in that turn, not after the loop's next wait.
    func testWorkQueuedByATimerRunsInThatTurn() throws {
        let loop = try EventLoop()
        let start = Instant.now()
        var ran: Instant?
        _ = loop.schedule(after: .milliseconds(5)) { loop.runAfterIO { ran = Instant.now() } }
        _ = loop.schedule(after: .seconds(3)) {}  // the next wait would last until this one
        try loop.run(until: start + .seconds(5)) { ran != nil }
        let at = try XCTUnwrap(ran)
        XCTAssertLessThan(at.milliseconds(since: start), 1_000)
    }
}
