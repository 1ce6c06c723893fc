import XCTest
import Foundation
@testable import BenchModel

/// `RunMetrics.catalogue` is the one declaration of every metric: each numeric figure a run record
/// carries must be in it, read from the right field.
final class MetricCatalogueTests: XCTestCase {
    /// A record with every figure set to a value of its own.
    private func filled() -> RunMetrics {
        var m = RunMetrics()
        m.pltMs = 1; m.ttfbMs = 2; m.handshakeMs = 3; m.bytes = 4; m.requests = 5; m.connections = 6
        m.idealPltMs = 7; m.idealTtfbMs = 8; m.goodputMbps = 9; m.loadEventMs = 10; m.firstPaintMs = 11
        m.firstContentfulPaintMs = 12; m.largestContentfulPaintMs = 13; m.clientCPUMs = 14; m.serverCPUMs = 15
        m.processCPUMs = 16
        m.migration = MigrationMetrics(survived: true, stallMs: 17)
        return m
    }

    func testEveryNumericFieldOfARecordIsInTheCatalogueAndReadFromItsOwnField() throws {
        let m = filled()
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(m)) as? [String: Any])
        // rttMs is the bound's input, not a figure of the load.
        let numeric = json.filter { $0.value is NSNumber && $0.key != "rttMs" }
        for (key, value) in numeric {
            let metric = try XCTUnwrap(RunMetrics.metric(named: key), "\(key) is not in RunMetrics.catalogue")
            XCTAssertEqual(metric.value(in: m), (value as! NSNumber).doubleValue, key)
        }
        XCTAssertEqual(m.value(named: "stallMs"), 17)
        XCTAssertEqual(Set(RunMetrics.catalogue.map(\.name)).count, RunMetrics.catalogue.count, "names are unique")
    }

    func testBoundsAndClaimsNameMetricsOfTheCatalogue() {
        for metric in RunMetrics.catalogue {
            if let ideal = metric.idealName { XCTAssertNotNil(RunMetrics.metric(named: ideal), ideal) }
        }
        XCTAssertEqual(
            RunMetrics.names,
            [
                "pltMs", "ttfbMs", "handshakeMs", "goodputMbps", "bytes", "requests",
                "connections",
            ])
        XCTAssertNil(RunMetrics().value(named: "noSuchMetric"))
    }
}
