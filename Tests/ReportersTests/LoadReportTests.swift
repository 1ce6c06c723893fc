import XCTest
import BenchCore
@testable import Reporters

/// `netbench report` of load results: the latency-vs-rate chart, the percentile curves, the table.
final class LoadReportTests: XCTestCase {
    static func point(_ asked: Double, _ achieved: Double, _ p50: Double, _ p99: Double) -> LoadReport.Point {
        LoadReport.Point(
            askedRate: asked, achievedRate: achieved, p50: p50, p90: (p50 + p99) / 2, p99: p99, p999: p99 * 1.5,
            max: p99 * 2, count: Int64(achieved * 10))
    }

    static let input = LoadReport.Input(
        title: "netbench load, 2026-11-27T12:00:00Z", server: "netbench serve in process behind profile link-100M",
        series: [
            LoadReport.Series(
                transport: .h3, label: "h3",
                points: [point(625, 624, 21.2, 24), point(1125, 1120, 23.5, 61)],
                curve: [(0, 20.9), (50, 22), (90, 30), (99, 55), (99.9, 80), (99.99, 90), (100, 120)]),
            LoadReport.Series(
                transport: .h2, label: "h2", points: [point(625, 625, 21.5, 30), point(1125, 1000, 40, 250)],
                curve: [(0, 20.9), (50, 25), (90, 80), (99, 200), (100, 400)]),
        ],
        idealMs: 20.8, capacityRate: 1250)

    func testGoldenLoadReport() throws {
        try GoldenTests.assertGolden(LoadReport.html(Self.input), "load-report.html")
    }

    func testChartsDrawEveryStepAndTheLinksBounds() {
        let svg = LoadReport.latencyVsRate(Self.input)
        // Two transports × four percentiles × two steps: one marker each, and one line per percentile.
        XCTAssertEqual(svg.components(separatedBy: "<circle").count - 1, 16)
        XCTAssertEqual(svg.components(separatedBy: "<path").count - 1, 8)
        XCTAssertTrue(svg.contains("ideal 20.8 ms") && svg.contains(">capacity<"), svg)
        XCTAssertTrue(svg.contains("h3 at 1120 req/s: p99 61 ms"), svg)
        let curves = LoadReport.percentileCurves(Self.input)
        XCTAssertEqual(curves.components(separatedBy: "<path").count - 1, 2)
        XCTAssertTrue(curves.contains(">99.99%<") && curves.contains(">max<"), curves)
        // The table: a row per step.
        let table = LoadReport.table(Self.input)
        XCTAssertEqual(table.components(separatedBy: "<tr>").count - 1, 5)
        XCTAssertTrue(table.contains("<td>1120</td>"), table)
    }

    func testTheNinesAxis() {
        XCTAssertEqual(LoadReport.nines(0), 0)
        XCTAssertEqual(LoadReport.nines(90), 1, accuracy: 1e-9)
        XCTAssertEqual(LoadReport.nines(99.9), 3, accuracy: 1e-9)
        XCTAssertEqual(LoadReport.nines(100), 5.5)
    }
}
