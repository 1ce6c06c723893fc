import Foundation
import XCTest
import BenchCore
import BenchModel
import Runner
@testable import Testbed
import NetbenchCommands
import TestSupport

/// Repeat views (`--repeat-view`): every later load resumes its TLS sessions and sends its HTTP/3
/// requests as 0-RTT early data on every connection, also when the suite serves several pages
/// whose origins share host names (each page has its own listener and ticket key: the client keeps
/// tickets by origin, name and port, as a browser does — with tickets by name only, the other
/// page's tickets resumed without 0-RTT on most connections).
final class RepeatViewTests: XCTestCase {
    func testEveryRepeatViewConnectionResumesAndSendsZeroRTTAcrossPagesSharingHostNames() throws {
        let page = { (name: String, extra: String) in
            Scenario(
                name: name,
                origins: [.init(id: "www", host: "www.shop.test"), .init(id: extra, host: "\(extra).shop.test")],
                resources: [
                    .init(id: "doc", origin: "www", path: "/", bytes: 20_000, type: .document),
                    .init(id: "img", origin: extra, path: "/i.png", bytes: 30_000, type: .image, parent: "doc"),
                ])
        }
        let out = NSTemporaryDirectory() + "netbench-repeat-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        var request = RunRequest(
            suiteName: "repeat", scenarios: [("a", page("a", "cdn")), ("b", page("b", "cdn"))], profiles: [.loopback],
            transports: [.h2, .h3], runs: 2, outputDirectory: out)
        request.pageLoads.repeatView = true
        request.warmupRuns = 1
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        let counted = results.runs.filter { $0.warmup != true }
        XCTAssertEqual(counted.count, 8)
        for run in counted {
            let cell = "\(run.scenario) \(run.transport.rawValue) run \(run.index)"
            XCTAssertEqual(run.status, .ok, "\(cell): \(run.error ?? "")")
            XCTAssertEqual(run.connections.count, 2, cell)
            for c in run.connections {
                XCTAssertEqual(c.resumed, true, "\(cell): \(c.origin) not resumed")
                if run.transport == .h3 {
                    XCTAssertEqual(c.earlyDataAccepted, true, "\(cell): \(c.origin) without 0-RTT")
                }
            }
        }
    }
}
