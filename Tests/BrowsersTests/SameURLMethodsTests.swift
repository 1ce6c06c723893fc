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

/// A page that GETs `/api/x` and also POSTs to `/api/x`, with responses of different sizes: each request
/// is its own resource in the run's records, with its own bytes. Resource Timing names no method, so
/// such a pair is told apart by the browser's network events (DevTools `Network.requestWillBeSent`'s
/// `request.method` for Chromium, WebDriver BiDi's `request.method` for Firefox).
final class SameURLMethodsTests: XCTestCase {
    static let getBytes: Int64 = 1_200
    static let postBytes: Int64 = 5_300

    /// doc, a script, `GET /api/x` (preloaded) and `POST /api/x` (a fetch() with a body).
    static func scenario() -> Scenario {
        Scenario(
            name: "same-url-methods", origins: [.init(id: "m", host: "www.methods.test")],
            resources: [
                .init(id: "doc", origin: "m", path: "/", bytes: 4_000, type: .document),
                .init(id: "js", origin: "m", path: "/app.js", bytes: 2_000, type: .script, parent: "doc"),
                .init(id: "get", origin: "m", path: "/api/x", bytes: getBytes, type: .xhr, parent: "doc"),
                .init(
                    id: "post", origin: "m", path: "/api/x", bytes: postBytes, type: .xhr, parent: "doc",
                    method: "POST", requestBody: .init(text: "q=1", contentType: "application/x-www-form-urlencoded")),
            ])
    }

    static func write(into dir: String) throws -> String {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/same-url-methods.json"
        try JSONFile.encode(scenario()).write(to: URL(fileURLWithPath: path))
        return path
    }

    // MARK: Without a browser

    func entry(_ url: String, start: Double, bytes: Int64) -> BrowserReport.TimingEntry {
        BrowserReport.TimingEntry(
            name: url, startTime: start, requestStart: start + 1, responseStart: start + 2, responseEnd: start + 5,
            encodedBodySize: bytes, nextHopProtocol: "h2", responseStatus: 200)
    }

    func results() -> (ChromiumResults, [String: String]) {
        let s = Self.scenario()
        let renderer = PageRenderer(scenario: s, port: 4433)
        let urls = Dictionary(uniqueKeysWithValues: s.resources.map { ($0.id, renderer.url(of: $0)) })
        let served = Dictionary(uniqueKeysWithValues: s.resources.map { ($0.id, renderer.servedBytes(of: $0)) })
        return (ChromiumResults(scenario: s, transport: .h2, urls: urls, servedBytes: served), urls)
    }

    func testKeysTellMethodsApartAndGETKeepsTheURLsKey() {
        let url = "https://www.Methods.test:4433/api/x"
        XCTAssertEqual(ChromiumResults.key(method: "GET", url: url), ChromiumResults.key(url: url))
        XCTAssertEqual(ChromiumResults.key(method: "post", url: url), "POST www.methods.test/api/x")
        XCTAssertEqual(ChromiumResults.ambiguousURLKeys(Self.scenario(), urls: results().1), ["www.methods.test/api/x"])
    }

    /// Two Resource Timing entries of one URL: which is which is only known from the network events'
    /// entries by method; each resource gets its own.
    func testAGETAndAPOSTOfOneURLEachGetTheirOwnEntry() throws {
        let (results, urls) = results()
        let api = urls["get"]!
        var nav = entry(urls["doc"]!, start: 0, bytes: results.servedBytes["doc"]!)
        nav.loadEventEnd = 80
        // Resource Timing lists the POST first: nothing in it says which is which.
        let rt = [
            entry(urls["js"]!, start: 10, bytes: 2_000), entry(api, start: 20, bytes: Self.postBytes),
            entry(api, start: 30, bytes: Self.getBytes),
        ]
        var report = BrowserReport(
            frames: [.init(timeOrigin: 1_000_000, navigation: [nav], resources: rt)], responses: [:])
        let k = ChromiumResults.key(url: api)
        report.byMethod = [k: entry(api, start: 31, bytes: Self.getBytes)]
        report.byMethod["POST " + k] = entry(api, start: 21, bytes: Self.postBytes)
        let r = results.records(report)
        XCTAssertNil(r.failure)
        XCTAssertEqual(r.requests.map(\.id), ["doc", "js", "get", "post"])
        XCTAssertEqual(r.requests.first { $0.id == "get" }?.bytes, Self.getBytes)
        XCTAssertEqual(r.requests.first { $0.id == "get" }?.queued, 31)
        XCTAssertEqual(r.requests.first { $0.id == "post" }?.bytes, Self.postBytes)
        XCTAssertEqual(r.requests.first { $0.id == "post" }?.queued, 21)

        // Without the network events' entries the pair cannot be told apart: both are reported as not
        // told apart, never one entry's figures for both.
        report.byMethod = [:]
        let blind = results.records(report)
        let failure = try XCTUnwrap(blind.failure)
        XCTAssertTrue(failure.contains("get ("), failure)
        XCTAssertTrue(failure.contains("post ("), failure)
        XCTAssertTrue(failure.contains("no network event"), failure)
    }

    func testChromiumTrackerWaitsForEachMethodOfOneURL() {
        let (_, urls) = results()
        let expected = ChromiumResults.expectedKeys(Self.scenario(), urls: urls)
        XCTAssertEqual(expected.count, 4)
        let tracker = NetworkTracker(expected: expected)
        func send(_ id: String, _ method: String, _ url: String) {
            tracker.handle(
                .init(
                    method: "Network.requestWillBeSent",
                    params: ["requestId": id, "request": ["url": url, "method": method], "timestamp": 1.0]))
            tracker.handle(.init(method: "Network.loadingFinished", params: ["requestId": id, "timestamp": 2.0]))
        }
        tracker.handle(.init(method: "Page.loadEventFired", params: [:]))
        send("1", "GET", urls["doc"]!)
        send("2", "GET", urls["js"]!)
        send("3", "GET", urls["get"]!)
        XCTAssertFalse(tracker.isComplete, "the POST of the same URL has not been made yet")
        send("4", "POST", urls["post"]!)
        XCTAssertTrue(tracker.isComplete)
    }

    // MARK: With Chromium

    func load(_ client: RunClient, profile: Profile, library: Library? = nil) throws -> ResultsFile {
        let dir = NSTemporaryDirectory() + "netbench-methods-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Self.write(into: dir)
        var request = RunRequest(
            suiteName: "methods", scenarios: [(path, try Scenario.load(from: path))], profiles: [profile],
            transports: [.h1, .h2, .h3], runs: 1, outputDirectory: dir + "/out")
        if let library { request.library = library }
        request.pageLoads.timeout = .seconds(60)
        request.pageLoads.clients = [client]
        return try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
    }

    func assertEachMethodGotItsOwnBody(_ results: ResultsFile) {
        XCTAssertEqual(results.runs.map(\.transport), [.h1, .h2, .h3])
        for run in results.runs {
            let t = "\(run.client?.rawValue ?? "?") \(run.transport.rawValue)"
            XCTAssertEqual(run.status, .ok, "\(t): \(run.error ?? "")")
            let want = ChromiumResults.nextHopProtocol(run.transport)
            XCTAssertEqual(run.requests.map(\.id), ["doc", "js", "get", "post"], t)
            let get = run.requests.first { $0.id == "get" }, post = run.requests.first { $0.id == "post" }
            XCTAssertEqual(get?.bytes, Self.getBytes, t)
            XCTAssertEqual(post?.bytes, Self.postBytes, t)
            XCTAssertEqual(get?.protocol, want, t)
            XCTAssertEqual(post?.protocol, want, t)
            XCTAssertEqual(get?.status, 200, t)
            XCTAssertEqual(post?.status, 200, t)
            XCTAssertNotNil(get?.lastByte, t)
            XCTAssertNotNil(post?.lastByte, t)
            XCTAssertEqual(run.server?.notFound ?? [], [], t)
            XCTAssertEqual(run.server?.requestBodies, ["POST www.methods.test /api/x: 3 bytes"], t)
        }
    }

    func testChromiumGETAndPOSTOfOneURLOverH1H2AndH3() throws {
        if ChromiumBrowser.locate() == nil {
            try missingPrerequisite("Chromium is not installed: " + ChromiumBrowser.installHint)
        }
        assertEachMethodGotItsOwnBody(try load(.chromium, profile: .loopback))
    }

    func testFirefoxGETAndPOSTOfOneURLOverH1H2AndH3() throws {
        if FirefoxBrowser.locate() == nil {
            try missingPrerequisite("Firefox is not installed: " + FirefoxBrowser.installHint)
        }
        if FirefoxBrowser.locateCertutil() == nil {
            try missingPrerequisite("certutil is not installed (libnss3-tools): " + FirefoxBrowser.installHint)
        }
        try requireRoot("emulated runs need root (network namespaces and TUN devices)")
        let library = Library(root: packageRoot + "/Scenarios")
        assertEachMethodGotItsOwnBody(try load(.firefox, profile: try library.profile("Cable"), library: library))
    }
}
