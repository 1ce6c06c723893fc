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

/// A real site recorded and replayed: Chromium records Jinja2's documentation from a local nginx
/// under two host names (`ChromiumRecorder`), the import path makes the scenario, and Chromium
/// loads the replay over h1, h2 and h3 on loopback: every recorded resource requested again, each
/// with the recorded bytes, which for the site's files are the files nginx served.
final class RecordReplayTests: XCTestCase {
    override func setUpWithError() throws {
        if ChromiumBrowser.locate() == nil { try missingPrerequisite("Chromium: " + ChromiumBrowser.installHint) }
    }

    func testARecordedNginxSiteReplaysWithItsExactBytes() throws {
        let site = try LocalDocSite()
        defer { site.stop() }
        let dir = NSTemporaryDirectory() + "netbench-record-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)

        var settings = ChromiumRecorder.Settings()
        settings.resolve = LocalDocSite.hosts.map { ($0, "127.0.0.1") }
        settings.insecure = true
        let recording = try ChromiumRecorder.record(
            url: site.url("index.html"), executable: ChromiumBrowser.locate()!, settings: settings)
        XCTAssertEqual(recording.failedRequests, [])
        let result = try HARImporter.importHAR(
            recording.har, file: dir + "/site.har", options: .init(name: "site", bodiesDirectory: "bodies"))
        try ImportHARCommand.writeBodies(result.bodies, to: "bodies", besideScenario: dir + "/site.json")
        try AtomicFile.write(try JSONFile.encode(result.scenario), to: dir + "/site.json")
        let scenario = try Scenario.load(from: dir + "/site.json")
        XCTAssertEqual(Set(scenario.origins.map(\.host)), Set(LocalDocSite.hosts))
        XCTAssertGreaterThanOrEqual(scenario.resources.count, 10, "HTML, CSS (with @import), scripts, images")
        XCTAssertEqual(scenario.recordedBodyCount, scenario.resources.count)
        for kind in [Scenario.ResourceType.document, .stylesheet, .script, .image] {
            XCTAssertTrue(scenario.resources.contains { $0.type == kind }, "no \(kind) recorded")
        }
        // The site's own files (all but the pages, which nginx rewrites) were recorded byte for byte.
        var compared = 0
        for r in scenario.resources where r.type != .document {
            let path = LocalDocSite.root + (r.path.split(separator: "?").first.map(String.init) ?? r.path)
            let file = try XCTUnwrap(FileManager.default.contents(atPath: path), path)
            XCTAssertEqual(r.body?.sha256, SHA256.hex([UInt8](file)), r.path)
            compared += 1
        }
        XCTAssertGreaterThan(compared, 8)

        let out = dir + "/out"
        var request = RunRequest(
            suiteName: "replay", scenarios: [(dir + "/site.json", scenario)], profiles: [.loopback],
            transports: [.h1, .h2, .h3], runs: 1, outputDirectory: out)
        request.pageLoads.timeout = .seconds(60)
        request.pageLoads.clients = [.chromium]
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        XCTAssertEqual(results.runs.count, 3)
        for run in results.runs {
            let t = run.transport.rawValue
            XCTAssertEqual(run.status, .ok, "\(t): \(run.error ?? "")")
            XCTAssertNil(run.notRequested, "\(t): the same page asks for the same resources")
            XCTAssertNil(run.server?.notFound, t)
            XCTAssertEqual(run.requests.count, scenario.resources.count, t)
            for r in scenario.resources {
                let got = run.requests.first { $0.id == r.id }
                XCTAssertEqual(got?.bytes, r.bytes, "\(t) \(r.path)")
                XCTAssertEqual(got?.protocol, ChromiumResults.nextHopProtocol(run.transport), "\(t) \(r.path)")
            }
            XCTAssertNotNil(run.metrics.pltMs, t)
            XCTAssertNotNil(run.metrics.largestContentfulPaintMs, t)
        }
    }

    /// A page whose recording holds a resource its HTML no longer asks for: the run completes at
    /// network quiet, lists it as not requested and counts the page's request outside the recording.
    func testARealPageNeedNotRequestEveryRecordedResource() throws {
        let dir = NSTemporaryDirectory() + "netbench-realpage-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let html = "<html><head><link rel=stylesheet href=/a.css></head><body><img src=/late.png>hi</body></html>"
        let scenario = try RecordedHAR.importInto(
            dir, name: "p",
            entries: [
                RecordedHAR.entry("https://real.test/", "text/html", html),
                RecordedHAR.entry("https://real.test/a.css", "text/css", "b{}"),
                RecordedHAR.entry("https://real.test/unused.js", "application/javascript", "var x = 1;"),
            ])
        var request = RunRequest(
            suiteName: "real", scenarios: [(dir + "/p.json", scenario)], profiles: [.loopback],
            transports: [.h2], runs: 1, outputDirectory: dir + "/out")
        request.pageLoads.timeout = .seconds(30)
        request.pageLoads.clients = [.chromium]
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        let run = try XCTUnwrap(results.runs.first)
        XCTAssertEqual(run.status, .ok, run.error ?? "")
        XCTAssertEqual(run.requests.map(\.id).sorted(), ["a.css", "document"])
        XCTAssertEqual(run.notRequested, ["unused.js"])
        let notFound = run.server?.notFound ?? []
        XCTAssertTrue(notFound.contains { $0.hasSuffix("/late.png") }, "\(notFound)")
    }
}
