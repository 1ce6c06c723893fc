import XCTest
import BenchCore
@testable import LinkModel

final class DelayAndRateTests: XCTestCase {
    func testDelayIsExact() {
        let link = Link(configuration: LinkConfiguration(delay: .milliseconds(20)), start: origin, seed: 1)
        let arrivals: [Nanoseconds] = [0, 1, 1_500_000, 7_333_333, 7_333_333, 19_999_999]
        for (i, a) in arrivals.enumerated() {
            XCTAssertEqual(link.enqueue(packet(i, arrival: at(ns: a)), now: at(ns: a)), .accepted)
        }
        // Nothing is due one nanosecond early.
        XCTAssertNil(link.dequeue(now: at(ns: 20_000_000 - 1)))
        let out = drain(link, until: at(ms: 100))
        XCTAssertEqual(out.map(\.handle), [0, 1, 2, 3, 4, 5])
        for (p, a) in zip(out, arrivals) {
            XCTAssertEqual(p.release, at(ns: a + 20_000_000))
        }
        XCTAssertEqual(link.counters.forwarded.packets, 6)
    }

    func testDequeueLateStillStampsScheduledRelease() {
        let link = Link(
            configuration: LinkConfiguration(delay: .milliseconds(5), rate: .constant(bitsPerSecond: 12e6)),
            start: origin, seed: 1)
        for i in 0..<3 { _ = link.enqueue(packet(i, arrival: origin), now: origin) }
        // Polled very late: the releases are those of the schedule, not of the poll.
        var out: [Packet] = []
        while let p = link.dequeue(now: at(ms: 50)) { out.append(p) }
        XCTAssertEqual(out.map(\.release), [at(ms: 6), at(ms: 7), at(ms: 8)])
    }

    func testConstantRateSerializationIsExact() {
        // 1,500 B at 12 Mbit/s = 1 ms; at 10 Mbit/s = 1.2 ms.
        for (bps, perPacketNs) in [(12e6, Int64(1_000_000)), (10e6, 1_200_000)] {
            let link = Link(
                configuration: LinkConfiguration(
                    delay: .milliseconds(10), rate: .constant(bitsPerSecond: bps),
                    queueLimit: .packets(1000)),
                start: origin, seed: 1)
            for i in 0..<100 { _ = link.enqueue(packet(i, arrival: origin), now: origin) }
            let out = drain(link, until: at(ms: 1000))
            XCTAssertEqual(out.count, 100)
            for (i, p) in out.enumerated() {
                XCTAssertEqual(p.departure, at(ns: Int64(i + 1) * perPacketNs), "packet \(i) at \(bps)")
                XCTAssertEqual(p.release, p.departure + .milliseconds(10))
            }
        }
    }

    func testFractionalSerializationDoesNotDrift() {
        // 1,000 B at 3 Mbit/s = 2.666… ms: after 3,000 packets exactly 8 s.
        let q = ConstantRateQueue(bitsPerSecond: 3e6, limit: .packets(10_000))
        for i in 0..<3000 { XCTAssertTrue(q.enqueue(packet(i, size: 1000, arrival: origin), now: origin)) }
        var last = origin
        while let p = q.dequeue(now: at(ms: 100_000)) { last = p.departure }
        XCTAssertEqual(last, at(ms: 8000))
        // 1 B at 3 Mbit/s = 2,666.67 ns: the remainder carries, 3 packets take exactly 8 µs.
        let r = ConstantRateQueue(bitsPerSecond: 3e6, limit: .packets(10))
        for i in 0..<3 { _ = r.enqueue(packet(i, size: 1, arrival: origin), now: origin) }
        var d: [Instant] = []
        while let p = r.dequeue(now: at(ms: 1)) { d.append(p.departure) }
        XCTAssertEqual(d, [at(ns: 2666), at(ns: 5333), at(ns: 8000)])
    }

    func testIdleLinkStartsSerializingOnArrival() {
        let q = ConstantRateQueue(bitsPerSecond: 12e6, limit: .packets(10))
        XCTAssertTrue(q.enqueue(packet(0, arrival: origin), now: origin))
        XCTAssertTrue(q.enqueue(packet(1, arrival: at(ms: 5.25)), now: at(ms: 5.25)))
        XCTAssertEqual(q.dequeue(now: at(ms: 100))?.departure, at(ms: 1))
        XCTAssertEqual(q.dequeue(now: at(ms: 100))?.departure, at(ms: 6.25))
    }

    func testUnlimitedRateAddsNoSerialization() {
        let link = Link(configuration: LinkConfiguration(delay: .milliseconds(1)), start: origin, seed: 1)
        for i in 0..<50 { XCTAssertEqual(link.enqueue(packet(i, arrival: origin), now: origin), .accepted) }
        XCTAssertEqual(drain(link, until: at(ms: 5)).map(\.release), Array(repeating: at(ms: 1), count: 50))
    }
}
