import Foundation
import XCTest
import BenchCore
import LinkModel
import TestSupport
@testable import LinkEmulator

/// The pure parts of the per-run link figures: the sojourn histogram, the time series' bins, the
/// Mahimahi link log's lines; and all three fed by a `Link` driven on a virtual clock.
final class LinkMonitorTests: XCTestCase {
    let origin = Instant(nanoseconds: 5_000_000_000)

    func testLogBucketsContainTheirValuesWithinOneSixteenth() {
        let b = LogBuckets(subBits: 4)
        var last = -1
        for u in [0, 1, 15, 16, 17, 31, 32, 33, 1_000, 65_535, 1 << 40, Int64.max / 2] as [Int64] {
            let i = b.index(ofMicroseconds: u)
            XCTAssertGreaterThanOrEqual(i, last, "\(u)")
            XCTAssertLessThan(i, b.count)
            last = i
            let upper = b.upperEdge(ofBucket: i)
            XCTAssertGreaterThan(upper, u, "\(u) below its bucket's upper edge")
            let lower = i == 0 ? 0 : b.upperEdge(ofBucket: i - 1)
            XCTAssertLessThanOrEqual(lower, u, "\(u) at or above its bucket's lower edge")
            XCTAssertLessThanOrEqual(Double(upper - lower), max(1, Double(u) / 16), "\(u): bucket width")
        }
    }

    func testSojournPercentilesAreNearestRankWithinABucket() {
        var h = SojournHistogram()
        for us in 1...1_000 { h.record(Nanoseconds(us) * 1_000) }
        XCTAssertEqual(h.count, 1_000)
        XCTAssertEqual(h.maximum, 1_000_000)
        let p50 = h.percentile(0.5), p99 = h.percentile(0.99)
        XCTAssertTrue((500_000...(500_000 + 500_000 / 16)).contains(p50), "p50 \(p50)")
        XCTAssertTrue((990_000...1_000_000).contains(p99), "p99 \(p99)")
        XCTAssertEqual(h.percentile(1), 1_000_000, "capped at the exact maximum")
        var other = SojournHistogram()
        other.record(3_000_000_000)
        h.merge(other)
        XCTAssertEqual(h.count, 1_001)
        XCTAssertEqual(h.maximum, 3_000_000_000)
        XCTAssertEqual(SojournHistogram().percentile(0.5), 0)
    }

    func testSeriesBinsAndMergesKeepingTotals() {
        var s = LinkTimeSeries()
        s.arrived(bytes: 1_000, at: 5_000_000)
        s.departed(bytes: 1_000, at: 15_000_000, sojourn: 10_000_000)
        s.dropped(at: 25_000_000)
        var bins = s.bins
        XCTAssertEqual(bins.binWidth, 10_000_000)
        XCTAssertEqual(bins.offeredBytes, [1_000, 0, 0])
        XCTAssertEqual(bins.departedBytes, [0, 1_000, 0])
        XCTAssertEqual(bins.drops, [0, 0, 1])
        XCTAssertEqual(bins.delayMax, [0, 10_000_000, 0])
        // 10 ms within a bucket of ≤ 25% (4 per power of two), capped at the bin's maximum.
        XCTAssertEqual(bins.delayP50, [0, 10_000_000, 0])
        // A 7-second run outgrows 300 bins of 10 ms: widths double to 40 ms (175 bins).
        for k in 0..<700 { s.departed(bytes: 100, at: Nanoseconds(k) * 10_000_000, sojourn: Nanoseconds(k) * 1_000) }
        s.finish(duration: 7_000_000_000)
        bins = s.bins
        XCTAssertEqual(bins.binWidth, 40_000_000)
        XCTAssertEqual(bins.departedBytes.count, 175)
        XCTAssertEqual(bins.departedBytes.reduce(0, +), 1_000 + 70_000)
        XCTAssertEqual(bins.offeredBytes.reduce(0, +), 1_000)
        XCTAssertEqual(bins.drops.reduce(0, +), 1)
        XCTAssertEqual(bins.delayMax[174], 699_000, "the last bin's slowest packet (k = 699)")
        let p50 = bins.delayP50[100]  // k = 400…403: the second smallest, 401 µs, nearest rank
        XCTAssertTrue((401_000...402_000 * 5 / 4).contains(p50), "\(p50)")
    }

    func testCapacityOfATraceAndOfAConstantRate() throws {
        // Two opportunities at 1 ms, one at 5 ms; period 10 ms.
        let trace = try MahimahiTrace(offsetsMs: [1, 1, 5, 10])
        let c = try XCTUnwrap(LinkSeries.capacity(of: .trace(trace), binWidth: 10_000_000, bins: 3))
        // Offsets within bin 0: 1, 1, 5 (10 is in bin 1 with 11, 11, 15; bin 2: 20, 21, 21, 25).
        XCTAssertEqual(c, [3 * 1_500, 4 * 1_500, 4 * 1_500])
        XCTAssertEqual(
            LinkSeries.capacity(of: .constant(bitsPerSecond: 12e6), binWidth: 10_000_000, bins: 2), [15_000, 15_000])
        XCTAssertNil(LinkSeries.capacity(of: .unlimited, binWidth: 10_000_000, bins: 2))
    }

    /// 20 packets of 1,500 B at once into a 12 Mbit/s link (1 ms each) with a 10-packet queue: ten
    /// leave 1, 2, …, 10 ms after arriving, ten are dropped; the log read back agrees line for line.
    func testALinkDrivenOnAVirtualClockFeedsHistogramSeriesAndLog() throws {
        let dir = NSTemporaryDirectory() + "netbench-linklog-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rate = LinkRate.constant(bitsPerSecond: 12e6)
        let link = Link(
            configuration: LinkConfiguration(delay: .milliseconds(5), rate: rate, queueLimit: .packets(10)),
            start: origin, seed: 1)
        let log = try MahimahiLinkLog(path: dir + "/up.log", name: "test uplink", rate: rate, start: origin)
        let monitor = LinkMonitor(start: origin, log: log)
        link.observer = monitor
        for i in 0..<20 { _ = link.enqueue(Packet(handle: Int32(i), size: 1_500, arrival: origin), now: origin) }
        var released = 0
        while link.dequeue(now: origin + 100_000_000) != nil { released += 1 }
        let q = monitor.finish(at: origin + 100_000_000, rate: rate)
        XCTAssertEqual(released, 10)
        XCTAssertEqual(q.sojourn.count, 10)
        XCTAssertEqual(q.sojourn.maximum, 10_000_000)
        // 5 ms, reported as the upper edge of its bucket [4.864, 5.12) ms.
        XCTAssertEqual(q.sojourn.percentile(0.5), 5_120_000)
        XCTAssertEqual(q.series.departedBytes.reduce(0, +), 15_000)
        XCTAssertEqual(q.series.offeredBytes.reduce(0, +), 30_000)
        XCTAssertEqual(q.series.drops.reduce(0, +), 10)
        XCTAssertEqual(q.series.capacityBytes?.reduce(0, +), 100 * 1_500, "100 ms at 12 Mbit/s")

        let parsed = try MahimahiLogReader(path: dir + "/up.log")
        XCTAssertEqual(parsed.base, Int64(origin.nanoseconds / 1_000_000))
        XCTAssertEqual(parsed.arrivals.count, Int(link.counters.received.packets))
        XCTAssertEqual(parsed.departures.count, 10)
        XCTAssertEqual(parsed.departures.map(\.delay), Array(1...10).map(Int64.init))
        XCTAssertEqual(parsed.departures.map { $0.time - parsed.base }, Array(1...10).map(Int64.init))
        XCTAssertEqual(parsed.drops, Int(link.counters.dropped.packets))
        XCTAssertEqual(parsed.droppedBytes, link.counters.dropped.bytes)
        // One opportunity per ms from the start through the stop: 0…100 ms.
        XCTAssertEqual(parsed.opportunities, 101)
        XCTAssertEqual(parsed.times, parsed.times.sorted(), "lines in time order")
    }

    /// A trace link's `#` lines are its trace's opportunities, wraps included, used or not.
    func testATraceLinkLogsEveryOpportunityOfItsTrace() throws {
        let dir = NSTemporaryDirectory() + "netbench-linklog-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rate = LinkRate.trace(try MahimahiTrace(offsetsMs: [1, 1, 5, 10]))
        let link = Link(configuration: LinkConfiguration(rate: rate), start: origin, seed: 1)
        let monitor = LinkMonitor(start: origin, log: try MahimahiLinkLog(
            path: dir + "/down.log", name: "trace", rate: rate, start: origin))
        link.observer = monitor
        _ = link.enqueue(Packet(handle: 0, size: 1_000, arrival: origin + 2_000_000), now: origin + 2_000_000)
        while link.dequeue(now: origin + 30_000_000) != nil {}
        _ = monitor.finish(at: origin + 30_000_000, rate: rate)
        let parsed = try MahimahiLogReader(path: dir + "/down.log")
        // 1, 1, 5, 10, 11, 11, 15, 20, 21, 21, 25, 30 ms.
        XCTAssertEqual(parsed.opportunityTimes.map { $0 - parsed.base }, [1, 1, 5, 10, 11, 11, 15, 20, 21, 21, 25, 30])
        XCTAssertEqual(parsed.departures.map { $0.time - parsed.base }, [5], "the first opportunity after 2 ms")
        XCTAssertEqual(parsed.departures.map(\.delay), [3])
    }
}

/// The drain's view of /proc/net/tcp: which connections still have packets to send.
final class ClosingConnectionsTests: XCTestCase {
    func testClosingStatesAreCountedAndOthersAreNot() {
        let text = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1
               1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 2 1
               2: 0100007F:1F90 0100007F:C351 04 00000000:00000000 01:00000014 00000000     0        0 0 1
               3: 0100007F:1F90 0100007F:C352 06 00000000:00000000 03:00001770 00000000     0        0 0 3
               4: 0100007F:1F90 0100007F:C353 09 00000001:00000000 01:00000014 00000001     0        0 0 1
               5: 0100007F:1F90 0100007F:C354 0B 00000000:00000000 01:00000014 00000000     0        0 0 1
               6: 0100007F:1F90 0100007F:C355 05 00000000:00000000 00:00000000 00000000     0        0 0 1
               7: 0100007F:1F90 0100007F:C356 08 00000000:00000000 00:00000000 00000000     0        0 0 1
            """
        // LISTEN (0A), ESTABLISHED (01) and TIME_WAIT (06) send nothing more on their own.
        XCTAssertEqual(ClosingConnections.count(inProcNetTCP: text), 5)
        XCTAssertEqual(ClosingConnections.count(inProcNetTCP: text.components(separatedBy: "\n")[0]), 0)
    }
}
