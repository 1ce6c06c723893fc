import XCTest
import BenchCore
@testable import LinkModel

final class QueueTests: XCTestCase {
    func testDropTailInBytesDropsExactlyWhenFull() {
        let link = Link(
            configuration: LinkConfiguration(rate: .constant(bitsPerSecond: 12e6), queueLimit: .bytes(4000)),
            start: origin, seed: 1)
        // 1500 + 1500 + 1000 = 4000 fits exactly; one more byte does not.
        XCTAssertEqual(link.enqueue(packet(0, size: 1500, arrival: origin), now: origin), .accepted)
        XCTAssertEqual(link.enqueue(packet(1, size: 1500, arrival: origin), now: origin), .accepted)
        XCTAssertEqual(link.enqueue(packet(2, size: 1000, arrival: origin), now: origin), .accepted)
        XCTAssertEqual(link.enqueue(packet(3, size: 1, arrival: origin), now: origin), .droppedByQueue)
        // Packet 0 leaves at 1 ms: 1,500 bytes of room from then on, not one nanosecond before.
        XCTAssertEqual(
            link.enqueue(packet(4, size: 1500, arrival: at(ns: 999_999)), now: at(ns: 999_999)), .droppedByQueue)
        XCTAssertEqual(link.enqueue(packet(5, size: 1500, arrival: at(ms: 1)), now: at(ms: 1)), .accepted)
        XCTAssertEqual(link.enqueue(packet(6, size: 1, arrival: at(ms: 1)), now: at(ms: 1)), .droppedByQueue)
        XCTAssertEqual(link.counters.droppedByQueue, PacketCount(packets: 3, bytes: 1502))
        XCTAssertEqual(link.counters.received.packets, 7)
    }

    func testDropTailInPacketsDropsExactlyWhenFull() {
        let link = Link(
            configuration: LinkConfiguration(rate: .constant(bitsPerSecond: 1e6), queueLimit: .packets(3)),
            start: origin, seed: 1)
        for i in 0..<3 { XCTAssertEqual(link.enqueue(packet(i, size: 40, arrival: origin), now: origin), .accepted) }
        XCTAssertEqual(link.enqueue(packet(3, size: 40, arrival: origin), now: origin), .droppedByQueue)
        // 40 B at 1 Mbit/s = 320 µs.
        XCTAssertEqual(link.enqueue(packet(4, size: 40, arrival: at(ns: 320_000)), now: at(ns: 320_000)), .accepted)
        XCTAssertEqual(link.counters.droppedByQueue.packets, 1)
    }

    func testDefaultQueueIsOneBandwidthDelayProductWithAFloor() {
        XCTAssertEqual(
            QueueLimit.bandwidthDelayProduct(bitsPerSecond: 100e6, roundTrip: .milliseconds(40)), .bytes(500_000))
        XCTAssertEqual(
            QueueLimit.bandwidthDelayProduct(bitsPerSecond: 1e6, roundTrip: .milliseconds(40)),
            .bytes(QueueLimit.floorBytes))
        XCTAssertEqual(
            QueueLimit.bandwidthDelayProduct(bitsPerSecond: nil, roundTrip: .milliseconds(40)),
            .bytes(QueueLimit.floorBytes))
        let path = PathConfiguration.symmetric(
            name: "wifi", roundTrip: .milliseconds(40), rate: .constant(bitsPerSecond: 100e6))
        XCTAssertEqual(path.downlink.effectiveQueueLimit(roundTrip: path.roundTrip), .bytes(500_000))
    }

    func testRingGrowsAndKeepsOrder() {
        var ring = PacketRing(capacity: 2)
        for i in 0..<5 { ring.append(packet(i, arrival: origin)) }
        XCTAssertEqual(ring.popFirst()?.handle, 0)
        for i in 5..<40 { ring.append(packet(i, arrival: origin)) }
        var handles: [Int32] = []
        while let p = ring.popFirst() { handles.append(p.handle) }
        XCTAssertEqual(handles, (1..<40).map { Int32($0) })
    }
}
