import Foundation
import XCTest
import BenchCore
import BenchModel
import LinkModel
import LinkEmulator
@testable import Testbed

/// A run's record of what each link direction measured: one-way delay quantiles and reordering.
final class LinkDirectionRecordTests: XCTestCase {
    func testRecordFromHistogramAndCounters() throws {
        var h = OneWayDelayHistogram()
        for i in 0..<1_000 { h.record(.milliseconds(20) + Nanoseconds(i) * 10_000) }  // 20 … 29.99 ms
        var counters = LinkCounters()
        counters.forwarded = PacketCount(packets: 1_000, bytes: 1_500_000)
        counters.reordered = PacketCount(packets: 25, bytes: 37_500)
        let r = LinkDirectionRecord(measured: h, counters: counters, path: "wifi", direction: "down")
        XCTAssertEqual(r.packets, 1_000)
        XCTAssertEqual(r.reorderedPackets, 25)
        XCTAssertEqual(r.reorderingRate, 0.025)
        let q = try XCTUnwrap(r.oneWayDelayMs)
        XCTAssertEqual(q.min, 20)
        XCTAssertEqual(q.max, 29.99, accuracy: 1e-9)
        XCTAssertEqual(q.p50, 24.99, accuracy: 0.06)
        XCTAssertEqual(q.p99, 29.89, accuracy: 0.06)
        XCTAssertNil(
            LinkDirectionRecord(measured: OneWayDelayHistogram(), counters: LinkCounters(), path: "w", direction: "up")
                .oneWayDelayMs)
        let json = try JSONEncoder().encode(r)
        XCTAssertEqual(try JSONDecoder().decode(LinkDirectionRecord.self, from: json), r)
    }
}
