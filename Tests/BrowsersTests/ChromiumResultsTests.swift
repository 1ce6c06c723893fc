import BenchCore
import Foundation
import XCTest
import BenchModel
import Replay
@testable import Runner
@testable import Testbed
@testable import Browsers
import NetbenchCommands
import TestSupport

/// What the browser reports becomes the run's records, without a browser: canned DevTools answers.
final class ChromiumResultsTests: XCTestCase {
    func scenario() throws -> Scenario { try Scenario.load(from: Fixture.path("small-page.json")) }

    func entry(_ url: String, start: Double, end: Double, bytes: Int64, proto: String = "h2")
        -> BrowserReport.TimingEntry
    {
        BrowserReport.TimingEntry(
            name: url, startTime: start, fetchStart: start, connectStart: start, secureConnectionStart: start,
            connectEnd: start, requestStart: start + 1, responseStart: start + 2, responseEnd: end,
            encodedBodySize: bytes, transferSize: bytes + 100, nextHopProtocol: proto, responseStatus: 200,
            loadEventEnd: nil)
    }

    /// Every resource fetched over `proto`, one after the other; the document's connection new, the rest reused.
    func report(_ s: Scenario, urls: [String: String], proto: String = "h2", iframeOffset: Double? = nil)
        -> BrowserReport
    {
        var resources: [BrowserReport.TimingEntry] = [], responses: [String: BrowserReport.NetworkResponse] = [:]
        var nav: [BrowserReport.TimingEntry] = []
        for (i, r) in s.resources.enumerated() {
            var e = entry(urls[r.id]!, start: Double(i) * 10, end: Double(i) * 10 + 5, bytes: r.bytes, proto: proto)
            if r.parent == nil {
                e.connectStart = 1; e.connectEnd = 3; e.loadEventEnd = 60; nav.append(e)
            } else {
                resources.append(e)
            }
            var n = BrowserReport.NetworkResponse()
            n.protocolName = proto
            n.connectionID = r.origin == "main" ? 7 : 9
            n.connectionReused = r.parent != nil && r.id != "js"
            n.remoteAddress = "127.0.0.1:4433"
            n.tlsVersion = "TLS 1.3"
            responses[ChromiumResults.key(url: urls[r.id]!)] = n
        }
        return BrowserReport(
            frames: [BrowserReport.FrameTimings(timeOrigin: 1_000_000, navigation: nav, resources: resources)],
            responses: responses)
    }

    func setup(_ t: TransportKind = .h2) throws -> (ChromiumResults, [String: String]) {
        let s = try scenario()
        let renderer = PageRenderer(scenario: s, port: 4433)
        let urls = Dictionary(uniqueKeysWithValues: s.resources.map { ($0.id, renderer.url(of: $0)) })
        let served = Dictionary(uniqueKeysWithValues: s.resources.map { ($0.id, renderer.servedBytes(of: $0)) })
        return (ChromiumResults(scenario: s, transport: t, urls: urls, servedBytes: served), urls)
    }

    func testRecordsFollowTheScenarioWithTimesFromNavigationStart() throws {
        let (results, urls) = try setup()
        let r = results.records(report(results.scenario, urls: urls))
        XCTAssertNil(r.failure)
        XCTAssertEqual(r.requests.map(\.id), results.scenario.resources.map(\.id))
        let css = r.requests[1]
        XCTAssertEqual(css.queued, 10)
        XCTAssertEqual(css.requestSent, 11)
        XCTAssertEqual(css.firstByte, 12)
        XCTAssertEqual(css.lastByte, 15)
        XCTAssertEqual(css.protocol, "h2")
        XCTAssertNil(css.connectStart, "a reused connection has no connect phase")
        XCTAssertEqual(r.requests[2].connectStart, 20, "js opened the cdn connection")
        XCTAssertEqual(r.connections.count, 2)
        XCTAssertEqual(r.connections.map(\.origin), ["main", "cdn"])
        XCTAssertEqual(r.requests.map(\.connection), [0, 0, 1, 1, 1, 0, 1])
        XCTAssertEqual(r.metrics.ttfbMs, 2)
        XCTAssertEqual(r.metrics.handshakeMs, 2)
        XCTAssertEqual(r.metrics.pltMs, 65, "the last byte of the last resource")
        XCTAssertEqual(r.metrics.loadEventMs, 60)
        XCTAssertEqual(r.metrics.bytes, results.scenario.totalBytes)
        XCTAssertEqual(r.metrics.requests, 7)
        XCTAssertEqual(r.metrics.connections, 2)
    }

    func testAnotherProtocolThanTheRunsFailsTheRunNamingIt() throws {
        let (results, urls) = try setup(.h3)
        var rep = report(results.scenario, urls: urls, proto: "h3")
        rep.frames[0].resources[2].nextHopProtocol = "h2"
        let r = results.records(rep)
        let failure = try XCTUnwrap(r.failure)
        XCTAssertTrue(failure.contains("img1 (\(urls["img1"]!)) was fetched over h2, not h3"), failure)
        XCTAssertNil(r.metrics.pltMs, "a failed run has no page load time")
    }

    func testMissingResourcesAndWrongSizesFail() throws {
        let (results, urls) = try setup()
        var rep = report(results.scenario, urls: urls)
        rep.frames[0].resources.removeAll { $0.name == urls["font"] }
        rep.frames[0].resources[0].encodedBodySize = 12
        let failure = try XCTUnwrap(results.records(rep).failure)
        XCTAssertTrue(failure.contains("css (\(urls["css"]!)): received 12 bytes, expected 20000"), failure)
        XCTAssertTrue(failure.contains("font (\(urls["font"]!)): the browser never fetched it"), failure)
    }

    /// Firefox aborts an image load its HTML preloader started and fetches the image again (seen over 4G on
    /// the percentile pages): Resource Timing then holds the cut-short fetch first, with the bytes received
    /// before the abort, and the complete one after it. The complete one is the resource's, queued when
    /// the first was; a fetch that received less than the first one never replaces it.
    func testAFetchCutShortIsReplacedByTheCompleteOneAfterIt() throws {
        let (results, urls) = try setup()
        var rep = report(results.scenario, urls: urls)
        let css = rep.frames[0].resources[0]  // 20,000 bytes, queued at 10
        var cut = css
        cut.encodedBodySize = 12_000
        cut.responseEnd = 300
        var again = entry(css.name, start: 290, end: 400, bytes: css.encodedBodySize!)
        again.requestStart = 295
        rep.frames[0].resources[0] = cut
        rep.frames[0].resources.append(again)
        let r = results.records(rep)
        XCTAssertNil(r.failure)
        let rec = try XCTUnwrap(r.requests.first { $0.id == "css" })
        XCTAssertEqual(rec.bytes, 20_000)
        XCTAssertEqual(rec.queued, 10, "wanted since the first fetch")
        XCTAssertEqual(rec.requestSent, 295)
        XCTAssertEqual(rec.lastByte, 400)
        // The other order: the complete fetch first, a smaller one after it (say from a cache) changes nothing.
        var smaller = again
        smaller.encodedBodySize = 0
        XCTAssertFalse(ChromiumResults.replaces(smaller, css))
        XCTAssertFalse(ChromiumResults.replaces(cut, css))
        XCTAssertTrue(ChromiumResults.replaces(css, cut))
    }

    func testIframeEntriesArePlacedOnTheTopFramesClock() throws {
        let (results, urls) = try setup()
        var rep = report(results.scenario, urls: urls)
        let moved = rep.frames[0].resources.removeLast()  // "big", as if an iframe had fetched it
        rep.frames.append(BrowserReport.FrameTimings(timeOrigin: 1_000_000 + 40, navigation: [], resources: [moved]))
        let r = results.records(rep)
        XCTAssertNil(r.failure)
        XCTAssertEqual(r.requests.last?.queued, moved.startTime + 40)
        XCTAssertEqual(r.metrics.pltMs, moved.responseEnd! + 40)
    }

    func testURLKeysIgnoreHostCasePortAndPercentEncoding() {
        XCTAssertEqual(
            ChromiumResults.key(url: "https://WWW.Shop.test:4433/a%20b.css"),
            ChromiumResults.key(url: "https://www.shop.test/a b.css"))
        XCTAssertEqual(ChromiumResults.key(url: "https://a.test:1"), "a.test/")
        XCTAssertEqual(ChromiumResults.key(url: "https://a.test/x#frag"), "a.test/x")
    }

    func testFlagsHoldTheBrowserToTheRunsProtocol() {
        func args(_ t: TransportKind) -> [String] {
            ChromiumFlags(
                transport: t, hosts: ["www.shop.test", "cdn.shop.test", "WWW.shop.test"], serverAddress: "10.0.0.2",
                port: 4433, publicKeyPins: ["AAA=", "BBB="]
            ).arguments
        }
        for t in TransportKind.allCases {
            let a = args(t)
            XCTAssertTrue(a.contains("--headless"))
            XCTAssertTrue(a.contains("--ignore-certificate-errors-spki-list=AAA=,BBB="))
            XCTAssertTrue(
                a.contains(
                    "--host-resolver-rules=MAP www.shop.test 10.0.0.2, MAP cdn.shop.test 10.0.0.2, MAP * ~NOTFOUND"))
            XCTAssertFalse(a.contains { $0.hasPrefix("--user-data-dir") }, "added per launch")
        }
        XCTAssertTrue(args(.h1).contains("--disable-http2"))
        XCTAssertTrue(args(.h1).contains("--disable-quic"))
        XCTAssertTrue(args(.h2).contains("--disable-quic"))
        XCTAssertFalse(args(.h2).contains("--disable-http2"))
        XCTAssertTrue(args(.h3).contains("--origin-to-force-quic-on=www.shop.test:4433,cdn.shop.test:4433"))
        XCTAssertFalse(args(.h3).contains("--disable-quic"), "--disable-quic overrides the force")
    }

    func testPublicKeyPinIsBase64OfTheSPKIHash() throws {
        let credentials = try RunCredentials(hosts: ["www.shop.test"])
        let pin = try credentials.identities[1].leafPublicKeySHA256Base64()
        XCTAssertEqual(pin.count, 44)
        XCTAssertTrue(pin.hasSuffix("="))
        XCTAssertEqual(Data(base64Encoded: pin)?.count, 32)
        XCTAssertNotEqual(pin, try credentials.identities[0].leafPublicKeySHA256Base64(), "one key per leaf")
        // The same value as the openssl pipeline Chromium's documentation gives.
        try require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"),
            "openssl (the command) is not installed, to cross-check the pin")
        let pem = NSTemporaryDirectory() + "netbench-pin-\(UUID().uuidString).pem"
        try credentials.identities[1].certificateChainPEM.write(toFile: pem, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: pem) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = [
            "-c",
            "openssl x509 -in '\(pem)' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 "
                + "-binary | base64",
        ]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(text.trimmingCharacters(in: .whitespacesAndNewlines), pin)
    }

    func testTrackerWaitsForTheLoadEventAndEveryExpectedURLAndNamesFailures() {
        let tracker = NetworkTracker(expected: ["a.test/": "doc", "a.test/x.css": "css"])
        tracker.session = "S"
        func event(_ m: String, _ p: [String: Any], session: String = "S") {
            tracker.handle(DevToolsPipe.Event(method: m, params: p, sessionID: session))
        }
        event("Network.requestWillBeSent", ["requestId": "1", "request": ["url": "https://a.test:9/"]])
        event("Network.requestWillBeSent", ["requestId": "2", "request": ["url": "https://a.test:9/x.css"]])
        event(
            "Network.responseReceived",
            [
                "requestId": "2",
                "response": [
                    "protocol": "h3", "connectionId": 12, "connectionReused": false,
                    "remoteIPAddress": "10.0.0.2", "remotePort": 9, "status": 200,
                ],
            ])
        event("Network.loadingFinished", ["requestId": "1"])
        event("Page.loadEventFired", [:], session: "other")
        XCTAssertFalse(tracker.isComplete)
        event("Page.loadEventFired", [:])
        XCTAssertFalse(tracker.isComplete)
        event("Network.loadingFinished", ["requestId": "2"])
        XCTAssertTrue(tracker.isComplete)
        XCTAssertEqual(tracker.responses["a.test/x.css"]?.connectionID, 12)
        XCTAssertEqual(tracker.responses["a.test/x.css"]?.remoteAddress, "10.0.0.2:9")

        let failing = NetworkTracker(expected: ["a.test/x.css": "css"])
        failing.handle(
            DevToolsPipe.Event(
                method: "Network.requestWillBeSent",
                params: ["requestId": "2", "request": ["url": "https://a.test/x.css"]], sessionID: nil))
        failing.handle(
            DevToolsPipe.Event(
                method: "Network.loadingFailed",
                params: ["requestId": "2", "errorText": "net::ERR_QUIC_PROTOCOL_ERROR"], sessionID: nil))
        XCTAssertEqual(failing.failure, "css (https://a.test/x.css): net::ERR_QUIC_PROTOCOL_ERROR")
    }

    /// Each request's priority comes from DevTools' `initialPriority` (its names mapped to net's), a
    /// later `resourceChangedPriority` before the response ends is `priorityChanged`, one after it is
    /// not, and a change back to the initial priority is no change.
    func testRequestPrioritiesAsChromiumReportsThem() throws {
        XCTAssertEqual(
            ["VeryHigh", "High", "Medium", "Low", "VeryLow", "Urgent"].map { RequestPriority(devTools: $0) },
            [.highest, .medium, .low, .lowest, .idle, nil])
        let (results, urls) = try setup()
        let s = results.scenario
        let tracker = NetworkTracker(expected: [:])
        func event(_ m: String, _ p: [String: Any]) { tracker.handle(DevToolsPipe.Event(method: m, params: p)) }
        let given = ["VeryHigh", "VeryHigh", "Low", "Low", "Low", "High", "VeryLow"]
        for (i, r) in s.resources.enumerated() {
            event(
                "Network.requestWillBeSent",
                ["requestId": "\(i)", "request": ["url": urls[r.id]!, "initialPriority": given[i]]])
        }
        event("Network.resourceChangedPriority", ["requestId": "2", "newPriority": "Medium"])
        event("Network.resourceChangedPriority", ["requestId": "3", "newPriority": "High"])
        event("Network.resourceChangedPriority", ["requestId": "3", "newPriority": "Low"])
        event("Network.loadingFinished", ["requestId": "4"])
        event("Network.resourceChangedPriority", ["requestId": "4", "newPriority": "High"])
        var canned = report(s, urls: urls)
        canned.priorities = tracker.priorities
        let r = results.records(canned)
        XCTAssertNil(r.failure)
        XCTAssertEqual(
            r.requests.map(\.priority), ["highest", "highest", "lowest", "lowest", "lowest", "medium", "idle"])
        XCTAssertEqual(r.requests.map(\.priorityChanged), [nil, nil, "low", nil, nil, nil, nil])
    }

    /// Performance.getMetrics as DevTools answers it (seconds): task, script and style-plus-layout
    /// times in ms; a style part alone still counts; no known metric at all: nil.
    func testMainThreadTimesFromPerformanceMetrics() {
        let metrics: [[String: Any]] = [
            ["name": "Timestamp", "value": 12.5], ["name": "TaskDuration", "value": 0.4],
            ["name": "ScriptDuration", "value": 0.15], ["name": "RecalcStyleDuration", "value": 0.02],
            ["name": "LayoutDuration", "value": 0.03],
        ]
        let t = ChromiumPageRun.mainThreadTimes(metrics: metrics)
        XCTAssertEqual(t?.taskMs ?? 0, 400, accuracy: 1e-9)
        XCTAssertEqual(t?.scriptMs ?? 0, 150, accuracy: 1e-9)
        XCTAssertEqual(t?.styleLayoutMs ?? 0, 50, accuracy: 1e-9)
        XCTAssertEqual(
            ChromiumPageRun.mainThreadTimes(metrics: [["name": "RecalcStyleDuration", "value": 0.01]])?.styleLayoutMs
                ?? 0, 10, accuracy: 1e-9)
        XCTAssertNil(ChromiumPageRun.mainThreadTimes(metrics: [["name": "Timestamp", "value": 1.0]]))
    }
}
