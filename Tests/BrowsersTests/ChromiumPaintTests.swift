import Foundation
import XCTest
import TestSupport
import BenchCore
import BenchModel
import SystemIO
import Replay
@testable import Runner
@testable import Testbed
@testable import Browsers
import NetbenchCommands

/// The rendered pages paint like pages in a real headless Chromium: the first contentful paint
/// waits for the render-blocking stylesheet, and the largest contentful paint is the large image
/// discovered after the text, painted when it arrives — well after the first contentful paint.
/// The fixture's server think times (stylesheet 300 ms, image 900 ms) set the two apart on loopback,
/// over h1, h2 and h3; first paint ≤ FCP ≤ LCP and FCP ≤ the load event.
final class ChromiumPaintTests: XCTestCase {
    override func setUpWithError() throws {
        if ChromiumBrowser.locate() == nil {
            try missingPrerequisite("Chromium is not installed: " + ChromiumBrowser.installHint)
        }
    }

    func testFCPWaitsForTheBlockingStylesheetAndLCPForTheLargeImage() throws {
        let path = Fixture.path("paint-page.json")
        let scenario = try Scenario.load(from: path)
        let out = NSTemporaryDirectory() + "netbench-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        var request = RunRequest(
            suiteName: "paint", scenarios: [(path, scenario)], profiles: [.loopback],
            transports: [.h1, .h2, .h3], runs: 1, outputDirectory: out)
        request.pageLoads.timeout = .seconds(60)
        request.pageLoads.clients = [.chromium]
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        XCTAssertEqual(results.runs.count, 3)
        for run in results.runs {
            let t = run.transport.rawValue
            XCTAssertEqual(run.status, .ok, "\(t): \(run.error ?? "")")
            let css = try XCTUnwrap(run.requests.first { $0.id == "css" }?.lastByte, t)
            let hero = try XCTUnwrap(run.requests.first { $0.id == "hero" }?.lastByte, t)
            let fcp = try XCTUnwrap(run.metrics.firstContentfulPaintMs, "\(t): no FCP")
            let lcp = try XCTUnwrap(run.metrics.largestContentfulPaintMs, "\(t): no LCP")
            // Nothing paints before the render-blocking stylesheet has arrived…
            XCTAssertGreaterThanOrEqual(
                fcp, css, "\(t): FCP \(fcp) ms before the blocking stylesheet's last byte \(css) ms")
            if let fp = run.metrics.firstPaintMs {
                XCTAssertGreaterThanOrEqual(fp, css, "\(t): first paint before the stylesheet")
            }
            // …the text paints before the image arrives…
            XCTAssertLessThan(fcp, hero, "\(t): FCP \(fcp) ms not before the image's last byte \(hero) ms")
            // …and the largest paint is the image, drawn once its last byte is in: LCP − FCP is the image's lateness.
            XCTAssertGreaterThanOrEqual(lcp, hero, "\(t): LCP \(lcp) ms before the image's last byte \(hero) ms")
            XCTAssertGreaterThan(lcp - fcp, 300, "\(t): LCP \(lcp) ms, FCP \(fcp) ms")
            // The browser's milestones in order.
            let load = try XCTUnwrap(run.metrics.loadEventMs, "\(t): no load event")
            XCTAssertLessThanOrEqual(fcp, load, "\(t): FCP after the load event")
            if let fp = run.metrics.firstPaintMs { XCTAssertLessThanOrEqual(fp, fcp, "\(t): first paint after FCP") }
        }
    }

    /// `--filmstrip`: one more load per cell captures the frames the browser painted — blank, then
    /// the text (once the stylesheet is in), then the image — on the page's clock; not a run.
    func testFilmstripCapturesTheFramesOfAnExtraLoad() throws {
        let path = Fixture.path("paint-page.json")
        let out = NSTemporaryDirectory() + "netbench-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        var request = RunRequest(
            suiteName: "paint", scenarios: [(path, try Scenario.load(from: path))], profiles: [.loopback],
            transports: [.h2], runs: 1, outputDirectory: out)
        request.pageLoads.clients = [.chromium]
        request.pageLoads.filmstrip = true
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        XCTAssertEqual(results.runs.count, 1, "the filmstrip load is not a run")
        XCTAssertNil(results.runs[0].frames)
        let strip = try XCTUnwrap(results.filmstrips?.first)
        XCTAssertEqual(results.filmstrips?.count, 1)
        XCTAssertNil(strip.error)
        XCTAssertEqual(strip.frames.map(\.ms), strip.frames.map(\.ms).sorted(), "in time order")
        for f in strip.frames {
            let jpeg = try XCTUnwrap(Data(base64Encoded: f.jpeg), "frame at \(f.ms) ms is not base64")
            XCTAssertEqual(Array(jpeg.prefix(2)), [0xFF, 0xD8], "frame at \(f.ms) ms is a JPEG")
        }
        let fcp = try XCTUnwrap(strip.firstContentfulPaintMs), lcp = try XCTUnwrap(strip.largestContentfulPaintMs)
        // Something painted before the text (a blank page), something around FCP, and a frame once the image showed.
        let at = { (ms: Double) in strip.frameIndex(at: ms) }
        XCTAssertGreaterThanOrEqual(
            Set(strip.frames.map(\.jpeg)).count, 3, "blank, text, image: \(strip.frames.map(\.ms))")
        XCTAssertNotEqual(at(fcp - 50), at(lcp + 100), "the frames before FCP and after LCP differ")
    }
}
