import Foundation
import XCTest
import BenchCore
@testable import Browsers

/// What stands in for a Resource Timing entry Firefox does not give: the times, protocol, status
/// and body size of `network.responseCompleted` (as Firefox 153 sends them: ms since the epoch,
/// 0 for a phase not reached), placed on the top frame's clock.
final class FirefoxNetworkEventTests: XCTestCase {
    let top = BrowserReport.FrameTimings(
        timeOrigin: 1_795_788_343_000, navigation: [],
        resources: [
            BrowserReport.TimingEntry(name: "https://a.test:1/x.css", startTime: 10, encodedBodySize: 100),
            BrowserReport.TimingEntry(name: "https://b.test:1/frame.html", startTime: 20, encodedBodySize: 0),
        ])

    func event(_ url: String, bodySize: Int, protocolName: String) -> [String: Any] {
        [
            "request": [
                "url": url,
                "timings": [
                    "requestTime": 1_795_788_344_529.5, "fetchStart": 0, "requestStart": 1_795_788_344_605.0,
                    "responseStart": 1_795_788_344_606.0, "responseEnd": 1_795_788_344_607.5,
                ],
            ],
            "response": ["protocol": protocolName, "status": 200, "bodySize": bodySize],
        ]
    }

    func testEventsFillInMissingEntriesAndBodilessOnesOnly() throws {
        let tracker = BiDiNetworkTracker(expected: [
            "a.test/x.css": "css", "c.test/img.png": "img", "b.test/frame.html": "iframe",
        ])
        for (url, size) in [
            ("https://a.test:1/x.css", 100), ("https://c.test:1/img.png", 31472), ("https://b.test:1/frame.html", 3465),
        ] {
            tracker.handle(WebDriverBiDi.Event(
                method: "network.responseCompleted", params: event(url, bodySize: size, protocolName: "h3")))
        }
        XCTAssertTrue(tracker.isComplete)
        let more = try XCTUnwrap(tracker.missingEntries([top]))
        XCTAssertEqual(more.timeOrigin, top.timeOrigin)
        // The stylesheet has a Resource Timing entry with its body: not replaced.
        XCTAssertEqual(more.resources.map(\.name), ["https://b.test:1/frame.html", "https://c.test:1/img.png"])
        let img = more.resources[1]
        XCTAssertEqual(img.startTime, 1529.5, accuracy: 0.01)
        XCTAssertEqual(img.requestStart ?? 0, 1605, accuracy: 0.01)
        XCTAssertEqual(img.responseStart ?? 0, 1606, accuracy: 0.01)
        XCTAssertEqual(img.responseEnd ?? 0, 1607.5, accuracy: 0.01)
        XCTAssertEqual(img.encodedBodySize, 31472)
        XCTAssertEqual(img.nextHopProtocol, "h3")
        XCTAssertEqual(img.responseStatus, 200)
        // ChromiumResults keeps the iframe's entry with a body over the parent's bodiless one.
        XCTAssertTrue(ChromiumResults.replaces(more.resources[0], top.resources[1]))
        XCTAssertFalse(ChromiumResults.replaces(top.resources[1], more.resources[0]))
        // An entry with its body is kept over a later one of the same URL and size.
        XCTAssertFalse(ChromiumResults.replaces(more.resources[0], more.resources[0]))
    }

    func testAFetchErrorOfAnExpectedURLFailsTheRunNamingIt() {
        let tracker = BiDiNetworkTracker(expected: ["c.test/img.png": "img"])
        tracker.handle(WebDriverBiDi.Event(
            method: "network.fetchError",
            params: ["request": ["url": "https://c.test:1/img.png"], "errorText": "NS_ERROR_NET_RESET"]))
        XCTAssertEqual(tracker.failure, "img (https://c.test:1/img.png): NS_ERROR_NET_RESET")
        XCTAssertFalse(tracker.isComplete)
        XCTAssertTrue(tracker.pendingSummary(urls: ["img": "https://c.test:1/img.png"]).contains("1 of 1"))
    }

    /// Firefox cancels its HTML preloader's speculative image load when the page's own request replaces
    /// it (NS_BINDING_ABORTED; seen on the percentile pages over 4G, where it failed every run): the
    /// run goes on, completes when the page's request does, and names the abort if it never does.
    func testACancelledSpeculativeLoadIsNoFailure() {
        let url = "https://c.test:1/img.png"
        let tracker = BiDiNetworkTracker(expected: ["c.test/img.png": "img"])
        tracker.handle(WebDriverBiDi.Event(
            method: "network.fetchError", params: ["request": ["url": url], "errorText": "NS_BINDING_ABORTED"]))
        XCTAssertNil(tracker.failure)
        XCTAssertFalse(tracker.isComplete)
        XCTAssertEqual(
            tracker.pendingSummary(urls: ["img": url]), "1 of 1 resources not loaded (img (NS_BINDING_ABORTED))")
        tracker.handle(WebDriverBiDi.Event(
            method: "network.responseCompleted", params: event(url, bodySize: 31472, protocolName: "h3")))
        XCTAssertNil(tracker.failure)
        XCTAssertTrue(tracker.isComplete)
    }

    /// A real page over WebDriver BiDi: requests followed by id from `network.beforeRequestSent` to
    /// `responseCompleted` or `fetchError`, done at the load event plus network quiet; a request
    /// outside the recording failing is not the run's failure, the page's own document failing is.
    func testARealPageEndsAtNetworkQuietAndFailsOnlyOnItsDocument() {
        var clock = Instant(nanoseconds: 5_000_000_000)
        let tracker = BiDiNetworkTracker(
            expected: ["a.test/": "doc", "a.test/x.css": "css", "a.test/never.png": "img"],
            completion: .networkQuiet(.milliseconds(500)), rootKey: "a.test/")
        tracker.now = { clock }
        func event(_ m: String, _ id: String, _ url: String, _ extra: [String: Any] = [:]) {
            var p: [String: Any] = ["request": ["request": id, "url": url, "method": "GET"]]
            p.merge(extra) { $1 }
            tracker.handle(WebDriverBiDi.Event(method: m, params: p))
        }
        event("network.beforeRequestSent", "1", "https://a.test/")
        event("network.responseCompleted", "1", "https://a.test/")
        event("network.beforeRequestSent", "2", "https://a.test/x.css")
        event("network.beforeRequestSent", "3", "https://a.test/missing.js")
        event("network.fetchError", "3", "https://a.test/missing.js", ["errorText": "NS_ERROR_FAILURE"])
        // A data: URL never completes as a network request: not followed.
        event("network.beforeRequestSent", "4", "data:image/png;base64,AA==")
        XCTAssertNil(tracker.failure, "a request outside the recording is not the run's failure")
        clock = clock + .seconds(2)
        XCTAssertFalse(tracker.isComplete, "no load event yet")
        tracker.loaded()
        clock = clock + .seconds(2)
        XCTAssertFalse(tracker.isComplete, "x.css in flight")
        event("network.responseCompleted", "2", "https://a.test/x.css")
        clock = clock + .milliseconds(499)
        XCTAssertFalse(tracker.isComplete)
        clock = clock + .milliseconds(1)
        XCTAssertTrue(tracker.isComplete, "never.png was never requested: the page is done anyway")
        XCTAssertEqual(tracker.neededKeys, ["a.test/", "a.test/x.css"])

        let doc = BiDiNetworkTracker(
            expected: ["a.test/": "doc"], completion: .networkQuiet(.milliseconds(500)), rootKey: "a.test/")
        doc.handle(WebDriverBiDi.Event(
            method: "network.fetchError",
            params: ["request": ["request": "1", "url": "https://a.test/"], "errorText": "NS_ERROR_FAILURE"]))
        XCTAssertEqual(doc.failure, "doc (https://a.test/): NS_ERROR_FAILURE")
    }

    /// A self-signed CA certificate as a server's: the run's error says how to make one Firefox takes.
    func testACACertificateAsAServersGetsAHint() {
        let e = "Error: NS_ERROR_GENERATE_FAILURE(NS_ERROR_MODULE_SECURITY, "
            + "MOZILLA_PKIX_ERROR_CA_CERT_USED_AS_END_ENTITY)"
        XCTAssertTrue(FirefoxPageRun.hint(e).contains("basicConstraints=critical,CA:FALSE"))
        XCTAssertEqual(FirefoxPageRun.hint("NS_ERROR_CONNECTION_REFUSED"), "")
    }
}
