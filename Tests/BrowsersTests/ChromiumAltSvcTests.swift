import Foundation
import XCTest
import TestSupport
import BenchCore
import BenchModel
@testable import Runner
@testable import Browsers

/// Chromium holds low-priority requests (images, async scripts) to an origin it does not know to
/// support request priorities: at most 6 per host and 10 per page in flight (its network service's
/// ResourceScheduler). It knows an origin from an h2 connection or from an `Alt-Svc: h3` advertisement,
/// not from `--origin-to-force-quic-on`, so an h3 run without the advertisement loaded a page as no
/// real browser reaching an h3 site does. The replay server now advertises h3 to browsers.
final class ChromiumAltSvcTests: XCTestCase {
    override func setUpWithError() throws {
        if ChromiumBrowser.locate() == nil {
            try missingPrerequisite("Chromium is not installed: " + ChromiumBrowser.installHint)
        }
    }

    /// One origin, a document and 24 images, each held 400 ms by the server: the images overlap in time
    /// as far as the browser lets them.
    func scenarioFile() throws -> String {
        var resources: [String] = [
            #"{"id": "doc", "origin": "main", "path": "/", "bytes": 8000, "type": "document"}"#
        ]
        for i in 0..<24 {
            resources.append(
                #"{"id": "img\#(i)", "origin": "main", "path": "/i\#(i).png", "bytes": 3000, "type": "image", "#
                    + #""parent": "doc", "thinkTimeMs": 400}"#)
        }
        let json = #"{"schemaVersion": 1, "name": "images", "origins": [{"id": "main", "host": "www.img.test"}], "#
            + #""resources": ["# + resources.joined(separator: ",\n") + "]}"
        let path = NSTemporaryDirectory() + "netbench-altsvc-\(UUID().uuidString).json"
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The most requests in flight at once (request sent .. last byte).
    static func peakInFlight(_ run: RunRecord) -> Int {
        var events: [(Double, Int)] = []
        for r in run.requests {
            guard let sent = r.requestSent, let end = r.lastByte else { continue }
            events.append((sent, 1))
            events.append((end, -1))
        }
        events.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        var now = 0, peak = 0
        for e in events {
            now += e.1
            peak = max(peak, now)
        }
        return peak
    }

    func testAnH3RunIsNotThrottledAsAnUnknownOrigin() throws {
        let path = try scenarioFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scenario = try Scenario.load(from: path)
        let out = NSTemporaryDirectory() + "netbench-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        var request = RunRequest(
            suiteName: "altsvc", scenarios: [(path, scenario)], profiles: [.loopback],
            transports: [.h2, .h3], runs: 1, outputDirectory: out)
        request.pageLoads.clients = [.chromium]
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        XCTAssertEqual(results.runs.count, 2)
        for run in results.runs {
            let t = run.transport.rawValue
            XCTAssertEqual(run.status, .ok, "\(t): \(run.error ?? "")")
            XCTAssertEqual(run.requests.count, 25, t)
            // Throttled, at most 6 images of one host would be in flight (and the document done).
            XCTAssertGreaterThanOrEqual(Self.peakInFlight(run), 15, "\(t): images held back by the browser")
        }
        let h3 = try XCTUnwrap(results.runs.first { $0.transport == .h3 })
        XCTAssertEqual(h3.server?.quic?.altSvcToBrowser, true)
        XCTAssertNil(results.runs.first { $0.transport == .h2 }?.server?.quic)
    }
}
