import Foundation
import XCTest
import TestSupport
import BenchCore
import BenchModel
import SystemIO
@testable import Runner
@testable import Testbed
@testable import Browsers
import NetbenchCommands

/// A real headless Firefox, driven over WebDriver BiDi by netbench's own WebSocket client, loads the
/// replay through an emulated profile (its namespace, the link emulator) over h1, h2 and h3: every
/// resource arrives over the run's protocol with the scenario's exact size, the browser's paint
/// metrics and load event are recorded, and no browser process outlives its run. Skipped only
/// outside CI when Firefox is missing (CI installs it: `scripts/bootstrap.sh --test`).
final class FirefoxLoadTests: XCTestCase {
    override func setUpWithError() throws {
        if FirefoxBrowser.locate() == nil {
            try missingPrerequisite("Firefox is not installed: " + FirefoxBrowser.installHint)
        }
        if FirefoxBrowser.locateCertutil() == nil {
            try missingPrerequisite("certutil is not installed (libnss3-tools): " + FirefoxBrowser.installHint)
        }
        try requireRoot("emulated runs need root (network namespaces and TUN devices)")
    }

    func assertNoBrowserLeft(file: StaticString = #filePath, line: UInt = #line) {
        let left = ProcessTree.descendants(of: getpid()).filter {
            (ProcessControl.readSmallFile("/proc/\($0.pid)/cmdline") ?? "").contains("firefox")
        }
        XCTAssertEqual(left.map(\.pid), [], "browser processes outlived their run", file: file, line: line)
    }

    func testSmallPageThroughCableOverH1H2AndH3() throws {
        let library = Library(root: packageRoot + "/Scenarios")
        let path = Fixture.path("small-page.json")
        let scenario = try Scenario.load(from: path)
        let out = NSTemporaryDirectory() + "netbench-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        var request = RunRequest(
            suiteName: "firefox", scenarios: [(path, scenario)], profiles: [try library.profile("Cable")],
            transports: [.h1, .h2, .h3], runs: 1, outputDirectory: out)
        request.library = library
        request.pageLoads.timeout = .seconds(60)
        request.pageLoads.clients = [.firefox]
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        assertNoBrowserLeft()
        XCTAssertEqual(results.suite.client, "firefox")
        XCTAssertEqual(results.runs.map(\.transport), [.h1, .h2, .h3])
        for run in results.runs {
            let t = run.transport.rawValue
            XCTAssertEqual(run.client, .firefox)
            XCTAssertEqual(run.status, .ok, "\(t): \(run.error ?? "")")
            let want = ChromiumResults.nextHopProtocol(run.transport)
            XCTAssertEqual(run.requests.count, scenario.resources.count, t)
            for res in scenario.resources {
                guard let req = run.requests.first(where: { $0.id == res.id }) else {
                    XCTFail("\(t) \(res.id) not loaded"); continue
                }
                XCTAssertEqual(req.protocol, want, "\(t) \(res.id) protocol")
                XCTAssertEqual(req.bytes, res.bytes, "\(t) \(res.id) bytes")
                XCTAssertNotNil(req.lastByte, "\(t) \(res.id)")
            }
            XCTAssertEqual(run.metrics.bytes, scenario.totalBytes, t)
            XCTAssertNotNil(run.metrics.pltMs, t)
            XCTAssertNil(run.metrics.connections, "\(t): BiDi names no connection, so the count is unknown")
            // Over a 28 ms round trip the document cannot arrive sooner than one round trip
            // (the handshake is before it too).
            XCTAssertGreaterThanOrEqual(run.metrics.ttfbMs ?? 0, 28, t)
            let load = try XCTUnwrap(run.metrics.loadEventMs, "\(t): no load event")
            XCTAssertGreaterThanOrEqual(load, run.metrics.ttfbMs ?? 0, t)
            let fcp = try XCTUnwrap(run.metrics.firstContentfulPaintMs, "\(t): no first-contentful-paint")
            XCTAssertGreaterThan(fcp, run.metrics.ttfbMs ?? 0, t)
            let lcp = try XCTUnwrap(run.metrics.largestContentfulPaintMs, "\(t): no largest-contentful-paint")
            XCTAssertGreaterThanOrEqual(lcp, fcp, t)
        }
    }

    func testARunThatTimesOutFailsAndItsBrowserIsGone() throws {
        let path = Fixture.path("small-page.json")
        let out = NSTemporaryDirectory() + "netbench-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        var request = RunRequest(
            suiteName: "firefox", scenarios: [(path, try Scenario.load(from: path))], profiles: [.loopback],
            transports: [.h2], runs: 1, outputDirectory: out)
        request.pageLoads.timeout = .milliseconds(1)
        request.pageLoads.clients = [.firefox]
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        assertNoBrowserLeft()
        XCTAssertEqual(results.runs.first?.status, .failed)
        XCTAssertTrue(results.runs.first?.error?.contains("timed out") == true, results.runs.first?.error ?? "")
    }
}
