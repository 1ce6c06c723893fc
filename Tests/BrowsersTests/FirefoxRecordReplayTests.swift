import Foundation
import XCTest
import TestSupport
import BenchCore
import BenchModel
import SystemIO
@testable import Runner
@testable import Testbed
@testable import Browsers
@testable import NetbenchCommands

/// A recorded page in Firefox: its HTML names its resources by absolute URLs on the recorded port
/// (443, the default) of two host names, which reach the replay server's port through
/// `network.socket.forcePort`; the run ends at the load event plus network quiet, lists the recorded
/// resource the page no longer asks for, and the server lists the page's request outside the
/// recording. Over h1, h2 and h3, every requested resource arrives with its recorded bytes over the
/// run's protocol.
final class FirefoxRecordReplayTests: XCTestCase {
    override func setUpWithError() throws {
        if FirefoxBrowser.locate() == nil { try missingPrerequisite("Firefox: " + FirefoxBrowser.installHint) }
        if FirefoxBrowser.locateCertutil() == nil {
            try missingPrerequisite("certutil is not installed (libnss3-tools): " + FirefoxBrowser.installHint)
        }
    }

    func testARecordedPageOnItsOwnPortsReplaysOverH1H2AndH3() throws {
        let dir = NSTemporaryDirectory() + "netbench-ffreal-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let css = "body { color: #123; }\n" + String(repeating: "/* recorded stylesheet */\n", count: 40)
        let js = "document.title = 'replayed';\n" + String(repeating: "// recorded script\n", count: 60)
        let html = """
            <html><head><link rel=stylesheet href="https://www.real.test/site.css">
            <script src="https://cdn.real.test/app.js"></script></head>
            <body><p>recorded</p><img src="https://cdn.real.test/late.png"></body></html>
            """
        let scenario = try RecordedHAR.importInto(
            dir, name: "p",
            entries: [
                RecordedHAR.entry("https://www.real.test/", "text/html", html),
                RecordedHAR.entry("https://www.real.test/site.css", "text/css", css),
                RecordedHAR.entry("https://cdn.real.test/app.js", "application/javascript", js),
                RecordedHAR.entry("https://cdn.real.test/unused.js", "application/javascript", "var unused = 1;"),
            ])
        XCTAssertTrue(PageCompletion.rule(for: scenario).isRealPage)

        var request = RunRequest(
            suiteName: "ffreal", scenarios: [(dir + "/p.json", scenario)], profiles: [.loopback],
            transports: [.h1, .h2, .h3], runs: 1, outputDirectory: dir + "/out")
        request.pageLoads.timeout = .seconds(40)
        request.pageLoads.clients = [.firefox]
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        XCTAssertEqual(results.runs.count, 3)
        for run in results.runs {
            let t = run.transport.rawValue
            XCTAssertEqual(run.status, .ok, "\(t): \(run.error ?? "")")
            XCTAssertEqual(run.client, .firefox, t)
            XCTAssertEqual(run.requests.map(\.id).sorted(), ["app.js", "document", "site.css"], t)
            XCTAssertEqual(run.notRequested, ["unused.js"], t)
            for got in run.requests {
                let r = try XCTUnwrap(scenario.resources.first { $0.id == got.id })
                XCTAssertEqual(got.bytes, r.bytes, "\(t) \(r.id)")
                XCTAssertEqual(got.protocol, ChromiumResults.nextHopProtocol(run.transport), "\(t) \(r.id)")
            }
            let notFound = run.server?.notFound ?? []
            XCTAssertTrue(notFound.contains { $0.hasSuffix("/late.png") }, "\(t): \(notFound)")
            let plt = try XCTUnwrap(run.metrics.pltMs, t)
            XCTAssertGreaterThan(plt, 0, t)
        }
    }
}
