import XCTest
import BenchModel
@testable import Runner
@testable import Testbed
@testable import Workloads

/// Goodput, shares and Jain's index from the flows' bins (no network).
final class CrossTrafficSummaryTests: XCTestCase {
    func testSharesComeFromTheWindowAllFlowsRan() {
        // Origin −2000 ms, 100 ms bins. Flow a: −2000…1000 ms, 1,000 B per bin. Flow b starts at
        // −1000 ms (bin 10) and stops at 500 ms (bin 25), 3,000 B per bin while running.
        let a = CrossTrafficSummary.Flow(
            name: "a", transport: .h2, startMs: -2000, stopMs: 1000, bins: Array(repeating: 1000, count: 30))
        let b = CrossTrafficSummary.Flow(
            name: "b", transport: .h3, startMs: -1000, stopMs: 500,
            bins: Array(repeating: 0, count: 10) + Array(repeating: 3000, count: 15))
        let r = CrossTrafficSummary.record(flows: [a, b], originMs: -2000, binMs: 100)
        XCTAssertEqual(r.shareWindowStartMs, -1000)
        XCTAssertEqual(r.shareWindowEndMs, 500)
        XCTAssertEqual(r.flows[0].share!, 0.25, accuracy: 1e-12)
        XCTAssertEqual(r.flows[1].share!, 0.75, accuracy: 1e-12)
        XCTAssertEqual(r.jainIndex!, 0.8, accuracy: 1e-12, "(1+3)² / (2·(1+9))")
        // Goodput over each flow's own life: 30,000 B in 3 s = 0.08 Mbit/s.
        XCTAssertEqual(r.flows[0].goodputMbps!, 0.08, accuracy: 1e-12)
        XCTAssertEqual(r.flows[1].bytes, 45_000)
    }

    func testOneFlowHasNoShare() {
        let a = CrossTrafficSummary.Flow(name: "a", transport: .h2, startMs: 0, stopMs: 1000, bins: [5])
        let r = CrossTrafficSummary.record(flows: [a], originMs: 0, binMs: 100)
        XCTAssertNil(r.jainIndex)
        XCTAssertNil(r.flows[0].share)
    }

    func testNoCommonWholeBinMeansNoShares() {
        let a = CrossTrafficSummary.Flow(name: "a", transport: .h2, startMs: 0, stopMs: 150, bins: [5, 5])
        let b = CrossTrafficSummary.Flow(name: "b", transport: .h2, startMs: 120, stopMs: 400, bins: [0, 5, 5, 5])
        XCTAssertNil(CrossTrafficSummary.record(flows: [a, b], originMs: 0, binMs: 100).jainIndex)
    }

    /// Uploads and downloads queue on different links: each direction's flows share among
    /// themselves, over their own window, with their own Jain's index.
    func testEachDirectionSharesItsOwnLink() {
        let d1 = CrossTrafficSummary.Flow(
            name: "d1", transport: .h2, startMs: 0, stopMs: 1000, bins: Array(repeating: 1000, count: 10))
        let d2 = CrossTrafficSummary.Flow(
            name: "d2", transport: .h3, startMs: 0, stopMs: 1000, bins: Array(repeating: 1000, count: 10))
        var u1 = CrossTrafficSummary.Flow(
            name: "u1", transport: .h2, startMs: 200, stopMs: 800, bins: [0, 0] + Array(repeating: 100, count: 6))
        var u2 = CrossTrafficSummary.Flow(
            name: "u2", transport: .h3, startMs: 200, stopMs: 800, bins: [0, 0] + Array(repeating: 300, count: 6))
        u1.direction = .upload; u2.direction = .upload
        let r = CrossTrafficSummary.record(flows: [d1, u1, d2, u2], originMs: 0, binMs: 100)
        XCTAssertEqual(r.flows.map(\.direction), [.download, .upload, .download, .upload])
        XCTAssertEqual(r.flows[0].share!, 0.5, accuracy: 1e-12)
        XCTAssertEqual(r.flows[2].share!, 0.5, accuracy: 1e-12)
        XCTAssertEqual(r.jainIndex!, 1, accuracy: 1e-12)
        XCTAssertEqual(r.shareWindowStartMs, 0)
        XCTAssertEqual(r.flows[1].share!, 0.25, accuracy: 1e-12)
        XCTAssertEqual(r.flows[3].share!, 0.75, accuracy: 1e-12)
        XCTAssertEqual(r.uploadJainIndex!, 0.8, accuracy: 1e-12)
        XCTAssertEqual(r.uploadShareWindowStartMs, 200)
        XCTAssertEqual(r.uploadShareWindowEndMs, 800)
    }
}
