import XCTest
import BenchCore
@testable import LinkModel

final class OutageTests: XCTestCase {
    func testArrivalsDuringOutageAreDropped() {
        let config = LinkConfiguration(
            delay: .milliseconds(5), outages: [Outage(start: .milliseconds(10), end: .milliseconds(20))])
        let link = Link(configuration: config, start: origin, seed: 1)
        let cases: [(Nanoseconds, LinkVerdict)] = [
            (9_999_999, .accepted), (10_000_000, .droppedByOutage), (15_000_000, .droppedByOutage),
            (19_999_999, .droppedByOutage), (20_000_000, .accepted), (25_000_000, .accepted),
        ]
        for (i, (t, verdict)) in cases.enumerated() {
            XCTAssertEqual(link.enqueue(packet(i, arrival: at(ns: t)), now: at(ns: t)), verdict, "at \(t) ns")
        }
        XCTAssertEqual(link.counters.droppedByOutage.packets, 3)
        // The packet that arrived just before the outage had left the bottleneck: it is delivered.
        XCTAssertEqual(drain(link, until: at(ms: 100)).map(\.handle), [0, 4, 5])
    }

    func testGoingDownFlushesTheQueue() {
        let config = LinkConfiguration(
            rate: .constant(bitsPerSecond: 12e6), queueLimit: .packets(100),
            outages: [Outage(start: .milliseconds(10), end: .milliseconds(20))])
        let link = Link(configuration: config, start: origin, seed: 1)
        // Five packets at 8 ms depart at 9, 10, 11, 12, 13 ms: only the first leaves before the outage.
        for i in 0..<5 { XCTAssertEqual(link.enqueue(packet(i, arrival: at(ms: 8)), now: at(ms: 8)), .accepted) }
        XCTAssertEqual(drain(link, until: at(ms: 30)).map(\.handle), [0])
        var flushed: [Int32] = []
        while let p = link.takeDiscarded() { flushed.append(p.handle) }
        XCTAssertEqual(flushed, [1, 2, 3, 4])
        XCTAssertEqual(link.counters.droppedByOutage.packets, 4)
        // After the outage the rate starts afresh: no debt from the flushed packets.
        XCTAssertEqual(link.enqueue(packet(9, arrival: at(ms: 20)), now: at(ms: 20)), .accepted)
        XCTAssertEqual(drain(link, until: at(ms: 40)).first?.release, at(ms: 21))
    }

    func testTraceLinkFlushReturnsItsOpportunities() throws {
        let trace = try MahimahiTrace.parse(text: "1\n")
        let config = LinkConfiguration(
            rate: .trace(trace), queueLimit: .packets(100),
            outages: [Outage(start: .milliseconds(3), end: .milliseconds(4))])
        let link = Link(configuration: config, start: origin, seed: 1)
        for i in 0..<10 { _ = link.enqueue(packet(i, arrival: origin), now: origin) }
        XCTAssertEqual(drain(link, until: at(ms: 4)).map(\.handle), [0, 1])
        XCTAssertEqual(link.enqueue(packet(20, arrival: at(ms: 4)), now: at(ms: 4)), .accepted)
        XCTAssertEqual(drain(link, until: at(ms: 10)).map(\.release), [at(ms: 4)])
    }

    func testOverlappingOutagesMerge() {
        let config = LinkConfiguration(outages: [
            Outage(start: .milliseconds(10), end: .milliseconds(20)),
            Outage(start: .milliseconds(15), end: .milliseconds(30)),
            Outage(start: .milliseconds(40), end: .milliseconds(40)),
        ])
        let link = Link(configuration: config, start: origin, seed: 1)
        XCTAssertEqual(link.enqueue(packet(0, arrival: at(ms: 25)), now: at(ms: 25)), .droppedByOutage)
        XCTAssertEqual(link.enqueue(packet(1, arrival: at(ms: 30)), now: at(ms: 30)), .accepted)
        XCTAssertEqual(link.enqueue(packet(2, arrival: at(ms: 40)), now: at(ms: 40)), .accepted)
    }

    func testLiveDownAndUp() {
        let link = Link(
            configuration: LinkConfiguration(
                delay: .milliseconds(10), rate: .constant(bitsPerSecond: 12e6),
                queueLimit: .packets(100)),
            start: origin, seed: 1)
        for i in 0..<3 { _ = link.enqueue(packet(i, arrival: origin), now: origin) }
        link.setDown(true, now: at(ms: 1.5))
        XCTAssertTrue(link.isDown)
        XCTAssertEqual(link.enqueue(packet(3, arrival: at(ms: 2)), now: at(ms: 2)), .droppedByOutage)
        link.setDown(false, now: at(ms: 3))
        XCTAssertEqual(link.enqueue(packet(4, arrival: at(ms: 3)), now: at(ms: 3)), .accepted)
        XCTAssertEqual(drain(link, until: at(ms: 100)).map(\.handle), [0, 4])
        XCTAssertEqual(link.counters.droppedByOutage.packets, 3)
        XCTAssertEqual(link.counters.forwarded.packets, 2)
    }

    func testPathScheduleHandsOutEventsInOrder() {
        var s = PathSchedule(
            events: [
                PathEvent(at: .milliseconds(20), path: "wifi", action: .up),
                PathEvent(at: .milliseconds(10), path: "wifi", action: .down),
                PathEvent(at: .milliseconds(10), path: "cell", action: .activate),
            ],
            start: origin)
        XCTAssertEqual(s.nextDue, at(ms: 10))
        XCTAssertEqual(s.takeDue(now: at(ms: 9)), [])
        XCTAssertEqual(s.takeDue(now: at(ms: 10)).map(\.path), ["wifi", "cell"])
        s.add([
            PathEvent(at: .milliseconds(30), path: "cell", action: .down),
            PathEvent(at: .milliseconds(5), path: "cell", action: .up),
        ])
        // An added event already in the past comes out at once, then the rest in order.
        XCTAssertEqual(s.takeDue(now: at(ms: 11)).map(\.action), [.up])
        XCTAssertEqual(s.takeDue(now: at(ms: 50)).map(\.action), [.up, .down])
        XCTAssertNil(s.nextDue)
    }
}
