import XCTest
import BenchModel
@testable import Runner
@testable import Testbed
@testable import Workloads

/// The fairness suite's plan (pairs, flows) and table, without a network.
final class FairnessMatrixTests: XCTestCase {
    func testDefaultPairsAreTheIssuesMatrix() {
        let names = FairnessMatrix.defaultPairs.map { "\($0.0)/\($0.1)" }
        XCTAssertEqual(
            names,
            [
                "h3:cubic/tcp:cubic", "h3:cubic/tcp:bbr", "h3:bbr/tcp:cubic", "h3:bbr/tcp:bbr",
                "h3:cubic/h3:cubic", "h3:bbr/h3:bbr", "tcp:cubic/tcp:cubic", "tcp:bbr/tcp:bbr",
            ])
    }

    func testPairsParse() {
        let p = FairnessMatrix.parsePair("quic:bbr2/h2:reno")
        XCTAssertEqual(p?.0, .init(transport: .h3, congestionControl: "bbr2"))
        XCTAssertEqual(p?.1, .init(transport: .h2, congestionControl: "reno"))
        XCTAssertNil(FairnessMatrix.parsePair("h3:vegas/tcp:cubic"), "not a QUIC congestion control")
        XCTAssertNil(FairnessMatrix.parsePair("h3:cubic"))
        XCTAssertNil(FairnessMatrix.parsePair("udp:cubic/tcp:cubic"))
    }

    func testFlowsStartTogetherAndRunTheDuration() {
        let flows = FairnessMatrix.flows(FairnessMatrix.defaultPairs[0], duration: .seconds(30))
        XCTAssertEqual(CrossTrafficPlan(flows).timings, Array(repeating: .init(start: 0, stop: .seconds(30)), count: 2))
        XCTAssertEqual(flows.map(\.congestionControl), ["cubic", "cubic"])
        XCTAssertEqual(flows.map(\.transport), [.h3, .h2])
    }

    func testRowSummarisesSharesOverRuns() {
        func record(_ a: Double) -> CrossTrafficRecord {
            var fa = CrossFlowRecord(
                name: "A", transport: .h3, direction: .download, startMs: 0, stopMs: 1000, bytes: 0, bins: [])
            var fb = CrossFlowRecord(
                name: "B", transport: .h2, direction: .download, startMs: 0, stopMs: 1000, bytes: 0, bins: [])
            fa.share = a; fb.share = 1 - a; fa.goodputMbps = 6; fb.goodputMbps = 3
            var r = CrossTrafficRecord(binMs: 100, originMs: 0, flows: [fa, fb])
            r.jainIndex = 0.9
            return r
        }
        let row = FairnessMatrix.row(
            profile: "interop", pair: FairnessMatrix.defaultPairs[0], records: [record(0.6), record(0.7), record(0.8)])
        XCTAssertEqual(row.runs, 3)
        XCTAssertEqual(row.shareA!.mean, 0.7, accuracy: 1e-12)
        XCTAssertEqual(row.shareA!.high - 0.7, 4.303 * 0.1 / 3.0.squareRoot(), accuracy: 1e-9)
        XCTAssertEqual(row.shareB!.mean, 0.3, accuracy: 1e-12)
        XCTAssertEqual(row.combinedMbps!, 9, accuracy: 1e-12)
        let table = FairnessMatrix.render([row])
        XCTAssertTrue(table.contains("70% ["), table)
        XCTAssertTrue(table.contains("h3:cubic vs tcp:cubic"), table)
    }
}
