import Foundation
import XCTest
import BenchCore
import BenchModel
import Runner
@testable import Testbed
import NetbenchCommands
import TestSupport

/// Every real page shipped in `Scenarios/pages/real/` loads with the built-in client over h1, h2 and
/// h3 on loopback (the replay server under the recorded host names): each resource once, status 200,
/// its exact bytes. One run per transport, think times zeroed so the test stays fast.
final class RealPagesLoopbackTests: XCTestCase {
    func testEveryRealPageLoadsOverEveryTransportWithExactBytes() throws {
        let dir = packageRoot + "/Scenarios/pages/real"
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 3, "the corpus has 3 to 6 pages")
        let out = NSTemporaryDirectory() + "netbench-real-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }
        var scenarios: [(String, Scenario)] = []
        for name in names {
            var s = try Scenario.load(from: dir + "/" + name)
            // The recorded servers' think times (up to seconds) would only slow the test down.
            for i in s.resources.indices { s.resources[i].thinkTimeMs = nil }
            scenarios.append((dir + "/" + name, s))
        }
        var request = RunRequest(
            suiteName: "real-pages", scenarios: scenarios, profiles: [.loopback], transports: [.h1, .h2, .h3],
            runs: 1, outputDirectory: out)
        request.pageLoads.timeout = .seconds(60)
        let runner = try BenchmarkRunner(request: request, netbenchVersion: "test")
        let results = try runner.execute(observer: QuietObserver()) { _ in }
        XCTAssertEqual(results.runs.count, scenarios.count * 3)
        for (_, scenario) in scenarios {
            let runs = results.runs.filter { $0.scenario == scenario.name }
            XCTAssertEqual(runs.map(\.transport).sorted { $0.rawValue < $1.rawValue }, [.h1, .h2, .h3], scenario.name)
            for run in runs {
                let label = "\(scenario.name) \(run.transport.rawValue)"
                XCTAssertEqual(run.status, .ok, "\(label): \(run.error ?? "")")
                XCTAssertEqual(run.requests.count, scenario.resources.count, label)
                let byID = Dictionary(run.requests.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
                for res in scenario.resources {
                    guard let req = byID[res.id] else { XCTFail("\(label): \(res.id) not loaded"); continue }
                    XCTAssertEqual(req.status, 200, "\(label) \(res.path)")
                    XCTAssertEqual(req.bytes, res.bytes, "\(label) \(res.path) size")
                }
                XCTAssertEqual(run.metrics.bytes, scenario.totalBytes, label)
                XCTAssertEqual(run.server?.notFound ?? [], [], label)
            }
        }
    }
}
