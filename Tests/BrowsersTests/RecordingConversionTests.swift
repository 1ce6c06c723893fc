import BenchCore
import Foundation
import XCTest
import BenchModel
import Replay
@testable import Browsers
@testable import NetbenchCommands
import TestSupport

/// The pure parts of recording and of a real page's completion, without a browser: canned
/// DevTools events become a HAR and, through `HARImporter`, a scenario with exact bodies; the
/// network-quiet rule; real pages' unrequested resources.
final class RecordingConversionTests: XCTestCase {
    static let page = Array("<html><link rel=stylesheet href='/s.css?v=3'><img src=https://img.test/old.png>".utf8)
    static let css = Array("body{color:red}".utf8)
    static let png: [UInt8] = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    func feed(_ r: inout DevToolsRecording) {
        func send(_ id: String, _ url: String, _ t: Double, initiator: [String: Any], type: String,
                  redirect: [String: Any]? = nil)
        {
            var p: [String: Any] = [
                "requestId": id, "timestamp": t, "wallTime": 1_790_000_000 + t, "type": type, "initiator": initiator,
                "request": ["url": url, "method": "GET", "headers": ["Accept": "*/*"], "initialPriority": "High"],
            ]
            if let redirect { p["redirectResponse"] = redirect }
            r.handle(method: "Network.requestWillBeSent", params: p)
        }
        func respond(_ id: String, _ type: String, _ t: Double, status: Int = 200) {
            let timing: [String: Any] = [
                "requestTime": t, "dnsStart": -1, "dnsEnd": -1, "connectStart": 1, "connectEnd": 9, "sslStart": 4,
                "sslEnd": 9, "sendStart": 10, "sendEnd": 10.5, "receiveHeadersEnd": 30,
            ]
            r.handle(
                method: "Network.responseReceived",
                params: [
                    "requestId": id, "type": "Other",
                    "response": [
                        "status": status, "protocol": "h2", "mimeType": type, "headers": ["content-type": type],
                        "timing": timing, "remoteIPAddress": "127.0.0.1", "connectionId": 5,
                    ],
                ])
        }
        send("1", "https://www.test/?lang=en", 100, initiator: ["type": "other"], type: "Document")
        respond("1", "text/html", 100)
        r.handle(method: "Network.loadingFinished", params: ["requestId": "1", "timestamp": 100.05])
        let parser: [String: Any] = ["type": "parser", "url": "https://www.test/?lang=en", "lineNumber": 1]
        send("2", "https://www.test/s.css?v=3", 100.06, initiator: parser, type: "Stylesheet")
        send("3", "https://img.test/old.png", 100.06, initiator: parser, type: "Image")
        respond("2", "text/css", 100.06)
        r.handle(method: "Network.loadingFinished", params: ["requestId": "2", "timestamp": 100.1])
        send(
            "3", "https://img.test/new.png", 100.08, initiator: parser, type: "Image",
            redirect: ["status": 301, "protocol": "h2", "headers": ["location": "/new.png"]])
        respond("3", "image/png", 100.08)
        r.handle(method: "Network.loadingFinished", params: ["requestId": "3", "timestamp": 100.2])
        send("4", "https://gone.test/x.js", 100.07, initiator: parser, type: "Script")
        r.handle(
            method: "Network.loadingFailed", params: ["requestId": "4", "errorText": "net::ERR_NAME_NOT_RESOLVED"])
        r.handle(method: "Page.loadEventFired", params: ["timestamp": 100.3])
    }

    func testDevToolsEventsBecomeTheImportersScenarioWithExactBodies() throws {
        var r = DevToolsRecording()
        feed(&r)
        XCTAssertEqual(r.bodyRequests, ["1", "2", "3"])
        r.setBody(requestID: "1", body: String(decoding: Self.page, as: UTF8.self), base64Encoded: false)
        r.setBody(requestID: "2", body: Data(Self.css).base64EncodedString(), base64Encoded: true)
        r.setBody(requestID: "3", body: Data(Self.png).base64EncodedString(), base64Encoded: true)
        XCTAssertEqual(r.failures.map(\.error), ["net::ERR_NAME_NOT_RESOLVED"])

        let har = r.har(pageURL: "https://www.test/?lang=en", creatorVersion: "t")
        let entries = try XCTUnwrap((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 4, "document, stylesheet, the redirect hop and its target")
        let hop = try XCTUnwrap(
            entries.first { ($0["request"] as? [String: Any])?["url"] as? String == "https://img.test/old.png" })
        XCTAssertEqual((hop["response"] as? [String: Any])?["redirectURL"] as? String, "https://img.test/new.png")
        XCTAssertEqual((hop["response"] as? [String: Any])?["status"] as? Int, 301)
        let css = entries[1]
        XCTAssertEqual(
            (css["request"] as? [String: Any])?["queryString"] as? [[String: String]], [["name": "v", "value": "3"]])
        XCTAssertEqual((css["request"] as? [String: Any])?["httpVersion"] as? String, "HTTP/2.0")
        XCTAssertEqual((css["_initiator"] as? [String: Any])?["url"] as? String, "https://www.test/?lang=en")
        let timings = try XCTUnwrap(css["timings"] as? [String: Any])
        XCTAssertEqual(timings["connect"] as? Double, 8)
        XCTAssertEqual(timings["ssl"] as? Double, 5)
        XCTAssertEqual(timings["wait"] as? Double, 19.5)
        XCTAssertEqual(timings["dns"] as? Double, -1)
        XCTAssertEqual(css["startedDateTime"] as? String, DevToolsRecording.iso8601(1_790_000_100.06))

        let data = try JSONSerialization.data(withJSONObject: har)
        let result = try HARImporter.importHAR(data, file: "rec.har", options: .init(bodiesDirectory: "bodies"))
        let s = result.scenario
        XCTAssertEqual(Set(s.origins.map(\.host)), ["www.test", "img.test"])
        XCTAssertEqual(s.resources.map(\.path), ["/?lang=en", "/s.css?v=3", "/new.png"])
        XCTAssertEqual(s.resources.map(\.bytes), [Self.page, Self.css, Self.png].map { Int64($0.count) })
        XCTAssertEqual(s.resources.compactMap { $0.body?.sha256 }, [Self.page, Self.css, Self.png].map(SHA256.hex))
        XCTAssertEqual(result.bodies[SHA256.hex(Self.png)], Self.png)
        XCTAssertEqual(s.resources[1].body?.contentType, "text/css")
        XCTAssertEqual(s.resources[1].parent, s.resources[0].id, "the stylesheet's initiator is the document")
        XCTAssertEqual(result.report.redirects.map(\.to), ["https://img.test/new.png"])
        XCTAssertEqual(s.queryMatch, .closest)
        XCTAssertEqual(PageCompletion.rule(for: s), .networkQuiet(PageCompletion.quietPeriod))
        let synthetic = try Scenario.load(from: Fixture.path("small-page.json"))
        XCTAssertEqual(PageCompletion.rule(for: synthetic), .everyResource)
        // A hand-written document over synthesized resources references them all: the synthetic rule.
        var partial = s
        partial.resources[2].body = nil
        XCTAssertEqual(PageCompletion.rule(for: partial), .everyResource)
    }

    func testISO8601IsUTCWithMilliseconds() {
        XCTAssertEqual(DevToolsRecording.iso8601(0), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(DevToolsRecording.iso8601(951_782_400.5), "2000-02-29T00:00:00.500Z")
        XCTAssertEqual(DevToolsRecording.iso8601(1_795_740_000.123), "2026-11-27T00:40:00.123Z")
    }

    func testNetworkQuietNeedsNothingInFlightForThePeriod() {
        let t0 = Instant(nanoseconds: 1_000_000_000)
        var q = NetworkQuiet()
        XCTAssertTrue(q.isQuiet(for: .milliseconds(500), at: t0))
        q.started("a", at: t0)
        q.started("b", at: t0 + .milliseconds(10))
        q.ended("a", at: t0 + .milliseconds(100))
        XCTAssertFalse(q.isQuiet(for: .milliseconds(500), at: t0 + .seconds(5)), "b is still in flight")
        q.ended("b", at: t0 + .milliseconds(200))
        q.ended("unknown", at: t0 + .milliseconds(600))
        XCTAssertFalse(q.isQuiet(for: .milliseconds(500), at: t0 + .milliseconds(699)))
        XCTAssertTrue(q.isQuiet(for: .milliseconds(500), at: t0 + .milliseconds(700)))
        q.moved(at: t0 + .milliseconds(800))
        XCTAssertFalse(q.isQuiet(for: .milliseconds(500), at: t0 + .milliseconds(1200)))
    }

    func testTrackerOfARealPageEndsAtQuietAndFailsOnlyOnItsDocument() {
        var clock = Instant(nanoseconds: 5_000_000_000)
        let tracker = NetworkTracker(
            expected: ["a.test/": "doc", "a.test/x.css": "css", "a.test/never.png": "img"],
            completion: .networkQuiet(.milliseconds(500)), rootKey: "a.test/")
        tracker.now = { clock }
        func event(_ m: String, _ p: [String: Any]) {
            tracker.handle(DevToolsPipe.Event(method: m, params: p, sessionID: nil))
        }
        event("Network.requestWillBeSent", ["requestId": "1", "request": ["url": "https://a.test/"]])
        event("Network.loadingFinished", ["requestId": "1"])
        event("Network.requestWillBeSent", ["requestId": "2", "request": ["url": "https://a.test/x.css"]])
        event("Network.requestWillBeSent", ["requestId": "3", "request": ["url": "https://a.test/missing.js"]])
        event("Network.loadingFailed", ["requestId": "3", "errorText": "net::ERR_HTTP_RESPONSE_CODE_FAILURE"])
        XCTAssertNil(tracker.failure, "a request outside the recording is not the run's failure")
        event("Page.loadEventFired", [:])
        clock = clock + .seconds(2)
        XCTAssertFalse(tracker.isComplete, "x.css in flight")
        event("Network.loadingFinished", ["requestId": "2"])
        clock = clock + .milliseconds(499)
        XCTAssertFalse(tracker.isComplete)
        clock = clock + .milliseconds(1)
        XCTAssertTrue(tracker.isComplete, "never.png was never requested: the page is done anyway")
        XCTAssertEqual(tracker.finishedExpected, ["a.test/", "a.test/x.css"])

        let doc = NetworkTracker(
            expected: ["a.test/": "doc"], completion: .networkQuiet(.milliseconds(500)), rootKey: "a.test/")
        doc.handle(
            DevToolsPipe.Event(
                method: "Network.requestWillBeSent", params: ["requestId": "1", "request": ["url": "https://a.test/"]],
                sessionID: nil))
        doc.handle(
            DevToolsPipe.Event(
                method: "Network.loadingFailed", params: ["requestId": "1", "errorText": "net::ERR_FAILED"],
                sessionID: nil))
        XCTAssertEqual(doc.failure, "doc (https://a.test/): net::ERR_FAILED")
    }

    /// A real page's results: the resources it loaded, the others listed as not requested, no failure.
    func testRealPageResultsListWhatThePageNeverRequested() throws {
        let s = try Scenario.load(from: Fixture.path("small-page.json"))
        let renderer = PageRenderer(scenario: s, port: 4433)
        let urls = Dictionary(uniqueKeysWithValues: s.resources.map { ($0.id, renderer.url(of: $0)) })
        let served = Dictionary(uniqueKeysWithValues: s.resources.map { ($0.id, $0.bytes) })
        let root = try XCTUnwrap(s.root)
        let loaded = [root] + s.resources.filter { $0.id != root.id }.prefix(1)
        var nav: [BrowserReport.TimingEntry] = [], res: [BrowserReport.TimingEntry] = []
        for (i, r) in loaded.enumerated() {
            var e = BrowserReport.TimingEntry(name: urls[r.id]!, startTime: Double(i) * 10)
            e.requestStart = Double(i) * 10 + 1
            e.responseStart = Double(i) * 10 + 2
            e.responseEnd = Double(i) * 10 + 5
            e.encodedBodySize = r.bytes
            e.nextHopProtocol = "h2"
            e.responseStatus = 200
            if i == 0 { nav.append(e) } else { res.append(e) }
        }
        let report = BrowserReport(
            frames: [.init(timeOrigin: 1_000, navigation: nav, resources: res)], responses: [:])
        var results = ChromiumResults(scenario: s, transport: .h2, urls: urls, servedBytes: served)
        let strict = results.records(report)
        XCTAssertNotNil(strict.failure, "a synthetic page must load every resource")
        results.completion = .networkQuiet(PageCompletion.quietPeriod)
        let real = results.records(report)
        XCTAssertNil(real.failure)
        XCTAssertEqual(real.requests.map(\.id), loaded.map(\.id))
        XCTAssertEqual(real.notRequested, s.resources.map(\.id).filter { id in !loaded.contains { $0.id == id } })
        XCTAssertEqual(real.metrics.pltMs, 15)
    }

    func testNetworkTimingsStandInForMissingResourceTimingEntries() {
        var t = NetworkTimings()
        t.handle(
            method: "Network.requestWillBeSent",
            params: [
                "requestId": "7", "timestamp": 50.0, "wallTime": 2_000.0, "request": ["url": "https://a.test/i.css"],
            ],
            key: ChromiumResults.key)
        t.handle(
            method: "Network.responseReceived",
            params: [
                "requestId": "7",
                "response": [
                    "protocol": "h3", "status": 200,
                    "timing": ["requestTime": 50.01, "sendStart": 2.0, "receiveHeadersEnd": 20.0],
                ],
            ], key: ChromiumResults.key)
        for n in [700, 300] {
            t.handle(
                method: "Network.dataReceived", params: ["requestId": "7", "dataLength": n], key: ChromiumResults.key)
        }
        t.handle(
            method: "Network.loadingFinished", params: ["requestId": "7", "timestamp": 50.1], key: ChromiumResults.key)
        let e = t.entries(for: ["a.test/i.css", "a.test/other"], timeOrigin: 1_999_000)
        XCTAssertEqual(e.count, 1)
        XCTAssertEqual(e[0].startTime, 1000, accuracy: 0.001)
        XCTAssertEqual(e[0].requestStart ?? 0, 1012, accuracy: 0.001)
        XCTAssertEqual(e[0].responseStart ?? 0, 1030, accuracy: 0.001)
        XCTAssertEqual(e[0].responseEnd ?? 0, 1100, accuracy: 0.001)
        XCTAssertEqual(e[0].encodedBodySize, 1000)
        XCTAssertEqual(e[0].nextHopProtocol, "h3")
    }

    func testRecordingNamesAndFlags() {
        XCTAssertEqual(
            RecordCommand.name(of: "https://docs.test:8443/a/b.html?x=1#top"), "docs.test-8443-a-b.html-x-1")
        XCTAssertEqual(RecordCommand.name(of: "https://Example.COM/"), "example.com")
        var s = ChromiumRecorder.Settings()
        s.resolve = [("docs.test", "127.0.0.1:8443"), ("cdn.test", "127.0.0.1")]
        s.insecure = true
        let a = ChromiumRecorder.arguments(s)
        XCTAssertTrue(a.contains("--host-resolver-rules=MAP docs.test 127.0.0.1:8443, MAP cdn.test 127.0.0.1"), "\(a)")
        XCTAssertTrue(a.contains("--ignore-certificate-errors") && a.contains("--disable-quic"))
    }
}
