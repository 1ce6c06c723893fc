import Foundation
import XCTest
import BenchModel
import Runner
import NetbenchCommands
import TestSupport

/// A path with a query (as imported HARs have them) is its own resource on the server and in the
/// client, over h1, h2 and h3 (the catalog's side: ReplayTests.QueryPathTests).
final class QueryPathLoadTests: XCTestCase {
    func testLoadsWithQueriesOverEveryTransport() throws {
        let dir = NSTemporaryDirectory() + "netbench-query-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = Fixture.path("query-page.json")
        let scenario = try Scenario.load(from: path)
        var request = RunRequest(
            suiteName: "queries", scenarios: [(path, scenario)], profiles: [.loopback],
            transports: [.h1, .h2, .h3], runs: 1, outputDirectory: dir + "/out")
        request.pageLoads.timeout = .seconds(30)
        let runner = try BenchmarkRunner(request: request, netbenchVersion: "test")
        let results = try runner.execute(observer: QuietObserver()) { _ in }
        XCTAssertEqual(results.runs.count, 3)
        for run in results.runs {
            XCTAssertEqual(run.status, .ok, "\(run.transport.rawValue): \(run.error ?? "")")
            for r in scenario.resources {
                let got = run.requests.first { $0.id == r.id }
                XCTAssertEqual(got?.status, 200, "\(run.transport.rawValue) \(r.path)")
                XCTAssertEqual(got?.bytes, r.bytes, "\(run.transport.rawValue) \(r.path)")
            }
        }
    }
}
