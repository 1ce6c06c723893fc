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

/// A recorded page whose script reads `Date.now()`, `new Date()` and `Math.random()` and sends them
/// in a request outside the recording (a 404 the server lists with its query): replayed in Chromium
/// twice with one seed it makes the same random choices and its clock starts at the recording's time;
/// another seed changes them; `--no-deterministic-js` leaves the browser's own.
final class DeterministicJSTests: XCTestCase {
    static let recordedAt = "2020-01-02T03:04:05.000Z"
    static let recordedMs = 1_577_934_245_000.0

    func testTheImporterKeepsTheRecordingsStartAndValidatesIt() throws {
        let dir = try Self.recordedPage()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenario = try Scenario.load(from: dir + "/p.json")
        XCTAssertEqual(scenario.recordedAt, Self.recordedAt)
        XCTAssertEqual(scenario.recordedAtMs, Self.recordedMs)
        var bad = scenario
        bad.recordedAt = "yesterday"
        XCTAssertThrowsError(try bad.validate(file: "p.json")) { e in
            XCTAssertTrue("\(e)".contains("recordedAt") && "\(e)".contains("'yesterday'"), "\(e)")
        }
        let d = DeterministicJS(dateStartMs: Self.recordedMs, seed: 7)
        XCTAssertTrue(d.source(navigationMs: Self.recordedMs + 1000).contains("offset = -1000;"))
        XCTAssertFalse(DeterministicJS(dateStartMs: nil, seed: 7).source(navigationMs: 0).contains("Date ="))
        XCTAssertNil(DeterministicJS.forRun(scenario: scenario, completion: .everyResource, seed: 1))
        XCTAssertNil(DeterministicJS.forRun(scenario: scenario, completion: .networkQuiet(.seconds(1)), seed: nil))
    }

    func testReplaysMakeTheRecordingsChoicesWithOneSeed() throws {
        if ChromiumBrowser.locate() == nil { try missingPrerequisite("Chromium: " + ChromiumBrowser.installHint) }
        let dir = try Self.recordedPage()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try Self.replay(dir, runs: 2, seed: 1, deterministic: true)
        XCTAssertEqual(first.count, 2)
        for (run, values) in first {
            XCTAssertEqual(run.deterministicJS?.randomSeed, 1)
            XCTAssertEqual(run.deterministicJS?.dateStart, Self.recordedAt)
            // The clock starts at the recording's start at navigation and runs on with real time.
            for key in ["d", "n"] {
                let v = try XCTUnwrap(values[key], key)
                XCTAssertGreaterThanOrEqual(v, Self.recordedMs, key)
                XCTAssertLessThan(v, Self.recordedMs + 30_000, key)
            }
            XCTAssertNotEqual(values["r"], values["r2"], "a generator, not a constant")
        }
        XCTAssertEqual(first[0].1["r"], first[1].1["r"])
        XCTAssertEqual(first[0].1["r2"], first[1].1["r2"])
        XCTAssertEqual(first[0].1["r"], Self.mulberry32(seed: 1).first)

        let other = try Self.replay(dir, runs: 1, seed: 2, deterministic: true)
        XCTAssertEqual(other.first?.0.deterministicJS?.randomSeed, 2)
        XCTAssertNotEqual(other.first?.1["r"], first[0].1["r"])

        let off = try Self.replay(dir, runs: 1, seed: 1, deterministic: false)
        let run = try XCTUnwrap(off.first)
        XCTAssertNil(run.0.deterministicJS)
        XCTAssertGreaterThan(try XCTUnwrap(run.1["d"]), Date().timeIntervalSince1970 * 1000 - 600_000)
    }

    /// Firefox gets the same script through WebDriver BiDi's preload scripts: the same choices as
    /// Chromium's with the same seed, and the recording's clock.
    func testFirefoxReplaysMakeTheSameChoices() throws {
        if FirefoxBrowser.locate() == nil { try missingPrerequisite("Firefox: " + FirefoxBrowser.installHint) }
        if FirefoxBrowser.locateCertutil() == nil { try missingPrerequisite("certutil: " + FirefoxBrowser.installHint) }
        let dir = try Self.recordedPage()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let runs = try Self.replay(dir, runs: 1, seed: 1, deterministic: true, client: .firefox)
        let (run, values) = try XCTUnwrap(runs.first)
        XCTAssertEqual(run.client, .firefox)
        XCTAssertEqual(run.deterministicJS?.randomSeed, 1)
        XCTAssertTrue(run.deterministicJS?.mechanism.contains("script.addPreloadScript") == true)
        XCTAssertEqual(values["r"], Self.mulberry32(seed: 1).first)
        XCTAssertEqual(values["r2"], Self.mulberry32(seed: 1).last)
        for key in ["d", "n"] {
            let v = try XCTUnwrap(values[key], key)
            XCTAssertGreaterThanOrEqual(v, Self.recordedMs, key)
            XCTAssertLessThan(v, Self.recordedMs + 30_000, key)
        }
    }

    /// The first values of mulberry32, as the injected script computes them.
    static func mulberry32(seed: UInt32, count: Int = 2) -> [Double] {
        var s = seed
        return (0..<count).map { _ in
            s = s &+ 0x6D2B_79F5
            var t = s
            t = (t ^ (t >> 15)) &* (t | 1)
            t ^= t &+ ((t ^ (t >> 7)) &* (t | 61))
            return Double(t ^ (t >> 14)) / 4_294_967_296
        }
    }

    /// Loads the page in `client` on loopback; each run with the numbers its script sent.
    static func replay(_ dir: String, runs: Int, seed: UInt64, deterministic: Bool, client: RunClient = .chromium)
        throws
        -> [(RunRecord, [String: Double])]
    {
        let scenario = try Scenario.load(from: dir + "/p.json")
        var request = RunRequest(
            suiteName: "det", scenarios: [(dir + "/p.json", scenario)], profiles: [.loopback],
            transports: [.h2], runs: runs, seed: seed, outputDirectory: dir + "/out-\(UUID().uuidString.prefix(6))")
        request.pageLoads.timeout = .seconds(30)
        request.pageLoads.clients = [client]
        request.pageLoads.deterministicJS = deterministic
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        return try results.runs.map { run in
            XCTAssertEqual(run.status, .ok, run.error ?? "")
            let notFound = run.server?.notFound ?? []
            let probe = try XCTUnwrap(notFound.first { $0.contains("/probe?") }, "\(notFound)")
            var values: [String: Double] = [:]
            for pair in probe.split(separator: "?", maxSplits: 1).last!.split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                if kv.count == 2 { values[String(kv[0])] = Double(kv[1]) }
            }
            return (run, values)
        }
    }

    /// A one-page recording (HAR with content, its page started at `recordedAt`), imported into a temp directory.
    static func recordedPage() throws -> String {
        let dir = NSTemporaryDirectory() + "netbench-detjs-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let script = """
            var d = Date.now(), n = new Date().getTime(), r = Math.random(), r2 = Math.random();
            document.title = d + " " + r;
            var i = document.createElement("img"); i.src = "/probe?d=" + d + "&n=" + n + "&r=" + r + "&r2=" + r2;
            document.documentElement.appendChild(i);
            """
        let html = "<html><head><script>\(script)</script></head><body>clock</body></html>"
        try RecordedHAR.importInto(
            dir, name: "p",
            entries: [RecordedHAR.entry("https://det.test/", "text/html", html, started: "2020-01-02T03:04:05.100Z")],
            pages: [["id": "page_1", "title": "det", "startedDateTime": recordedAt]])
        return dir
    }
}
