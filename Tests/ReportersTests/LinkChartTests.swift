import XCTest
import BenchModel
@testable import Reporters

/// The emulated link's chart: what it draws for a trace link, a constant one and several paths.
final class LinkChartTests: XCTestCase {
    func record(_ direction: LinkQueueRecord.Direction, path: String = "wifi", capacity: Bool) -> LinkQueueRecord {
        var r = LinkQueueRecord(path: path, direction: direction, received: 4, forwarded: 3, dropped: 1, departed: 3)
        (r.sojournP50Ms, r.sojournP99Ms, r.sojournMaxMs) = (2, 7.5, 8)
        r.series = LinkSeriesRecord(
            binMs: 10, offeredBytes: [3_000, 1_500, 0], departedBytes: [1_500, 1_500, 1_500],
            capacityBytes: capacity ? [1_500, 3_000, 1_500] : nil, drops: [1, 0, 0], delayP50Ms: [1, 4, 2],
            delayMaxMs: [1, 8, 2])
        return r
    }

    func testATraceLinkShowsCapacityOfferedLoadThroughputAndDelay() {
        let svg = LinkChart.render([record(.up, capacity: false), record(.down, capacity: true)], label: "x")
        XCTAssertTrue(svg.hasPrefix("<svg"), svg)
        for text in ["capacity", "offered load", "throughput", "1 packet dropped", "down: p50 2.00, p99 7.50 ms",
                     "up: p50 2.00, p99 7.50 ms", "ms from the emulator"] {
            XCTAssertTrue(svg.contains(text), "\(text) missing")
        }
        // 3,000 B in 10 ms is 2.4 Mbit/s: the throughput axis reaches it.
        XCTAssertTrue(svg.contains(">2.5<") || svg.contains(">3<"), "axis to the peak of 2.4 Mbit/s")
    }

    func testWithoutCapacityNoCapacityLineAndPathsAreNamedWhenSeveral() {
        let one = LinkChart.render([record(.down, capacity: false)], label: "x")
        XCTAssertFalse(one.contains("capacity"))
        XCTAssertFalse(one.contains("(wifi)"), "a single path goes unnamed")
        let two = LinkChart.render(
            [record(.down, capacity: false), record(.down, path: "lte", capacity: false)], label: "x")
        XCTAssertTrue(two.contains("throughput (wifi)") && two.contains("throughput (lte)"))
        XCTAssertEqual(LinkChart.render([], label: "x"), "", "nothing to draw without series")
    }
}
