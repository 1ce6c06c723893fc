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

/// `--visual-metrics` in both real browsers, against a page whose visual progress is known by
/// construction: on a white page, the top half turns red at t1 and the bottom half blue at t2 (ms
/// after navigation start, scheduled by the page on its own clock), so progress is 0 until t1, 50%
/// until t2 and 100% after: Speed Index = t1 + (t2 − t1) / 2, first visual change t1 and visually
/// complete t2, each within one frame interval: 100 ms (WebPageTest's 10 frames per second) for
/// Chromium's frames, sent as painted; for Firefox's screenshots, taken every 100 ms, the longest gap
/// between two of them in that run (`visualFrameGapMaxMs`: a screenshot's round trip adds to the
/// cadence, and on a busy machine it is 100–400 ms). An image answered after t2 holds the load event
/// back, so the run is still capturing when the second half paints.
final class VisualMetricsLoadTests: XCTestCase {
    static let t1 = 400.0, t2 = 1000.0
    static let tolerance = 100.0

    override func setUpWithError() throws {
        if ChromiumBrowser.locate() == nil {
            try missingPrerequisite("Chromium is not installed: " + ChromiumBrowser.installHint)
        }
        if FirefoxBrowser.locate() == nil {
            try missingPrerequisite("Firefox is not installed: " + FirefoxBrowser.installHint)
        }
        if FirefoxBrowser.locateCertutil() == nil {
            try missingPrerequisite("certutil is not installed (libnss3-tools): " + FirefoxBrowser.installHint)
        }
    }

    /// The page's document, padded to `bytes` with a comment (a recorded body keeps its size).
    static func page(bytes: Int) -> [UInt8] {
        let html = """
            <!doctype html><html><head><style>
            html, body { margin: 0; height: 100%; background: #fff; overflow: hidden }
            #a, #b { position: fixed; left: 0; width: 100%; height: 50%; visibility: hidden }
            #a { top: 0; background: #c00000 } #b { top: 50%; background: #0000c0 }
            </style></head><body><div id="a"></div><div id="b"></div>
            <img src="/late.gif" style="display: none" alt="">
            <script>
            function at(ms, id) {
              setTimeout(function () { document.getElementById(id).style.visibility = "visible"; },
                Math.max(0, ms - performance.now()));
            }
            at(\(Int(t1)), "a"); at(\(Int(t2)), "b");
            </script>
            """
        let tail = "</body></html>\n"
        let pad = bytes - html.utf8.count - tail.utf8.count - 7
        precondition(pad >= 0)
        return Array((html + "<!--" + String(repeating: " ", count: pad) + "-->" + tail).utf8)
    }

    /// A scenario of the page (recorded body) and the late image, written into `dir`.
    static func writeScenario(into dir: String) throws -> String {
        let body = page(bytes: 6000)
        let sha = SHA256.hex(body)
        try FileManager.default.createDirectory(atPath: dir + "/bodies", withIntermediateDirectories: true)
        try Data(body).write(to: URL(fileURLWithPath: dir + "/bodies/" + sha))
        let scenario = """
            { "schemaVersion": 1, "name": "halves", "bodies": "bodies",
              "origins": [ {"id": "main", "host": "www.halves.test"} ],
              "resources": [
                {"id": "doc", "origin": "main", "path": "/", "bytes": \(body.count), "type": "document",
                 "body": {"sha256": "\(sha)", "contentType": "text/html; charset=utf-8"}},
                {"id": "late", "origin": "main", "path": "/late.gif", "bytes": 2000, "type": "image",
                 "parent": "doc", "thinkTimeMs": 1400}
              ] }
            """
        try scenario.write(toFile: dir + "/halves.json", atomically: true, encoding: .utf8)
        return dir + "/halves.json"
    }

    func testSpeedIndexOfAPageThatPaintsHalfAtT1AndTheRestAtT2() throws {
        let dir = NSTemporaryDirectory() + "netbench-visual-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Self.writeScenario(into: dir)
        var request = RunRequest(
            suiteName: "visual", scenarios: [(path, try Scenario.load(from: path))], profiles: [.loopback],
            transports: [.h2], runs: 1, outputDirectory: dir + "/out")
        request.pageLoads.timeout = .seconds(60)
        request.pageLoads.clients = [.chromium, .firefox]
        request.pageLoads.visualMetrics = true
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        XCTAssertEqual(results.runs.compactMap(\.client), [.chromium, .firefox])
        let expected = Self.t1 + (Self.t2 - Self.t1) / 2
        for run in results.runs {
            let who = run.client?.rawValue ?? "?"
            XCTAssertEqual(run.status, .ok, "\(who): \(run.error ?? "")")
            let m = run.metrics
            XCTAssertNil(m.visualMetricsError, who)
            var interval = Self.tolerance
            if run.client == .firefox {
                let gap = try XCTUnwrap(m.visualFrameGapMaxMs, "\(who): screenshots have a gap")
                XCTAssertGreaterThanOrEqual(gap, 90, "\(who): the cadence is 100 ms")
                interval = max(interval, gap)
            } else {
                XCTAssertNil(m.visualFrameGapMaxMs, "\(who): the screencast sends frames as painted")
            }
            let si = try XCTUnwrap(m.speedIndexMs, "\(who): no Speed Index")
            XCTAssertEqual(si, expected, accuracy: interval, "\(who): Speed Index")
            let first = try XCTUnwrap(m.firstVisualChangeMs, "\(who): no first visual change")
            XCTAssertEqual(first, Self.t1, accuracy: interval, "\(who): first visual change")
            let complete = try XCTUnwrap(m.visuallyCompleteMs, who)
            XCTAssertEqual(complete, Self.t2, accuracy: interval, "\(who): visually complete")
            // Half the page is 50% progress: 85% is reached only with the second half.
            XCTAssertEqual(try XCTUnwrap(m.visuallyComplete85Ms, who), complete, accuracy: 1, who)
            XCTAssertGreaterThanOrEqual(m.visualFrames ?? 0, 3, "\(who): blank, half, whole")
            XCTAssertGreaterThanOrEqual(m.loadEventMs ?? 0, Self.t2, "\(who): the late image holds the load event")
        }
    }
}
