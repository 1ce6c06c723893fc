import BenchCore
import Foundation
import XCTest
import BenchModel
import Replay
@testable import Runner
@testable import Browsers
import TestSupport

/// A gzip response that Resource Timing does not show (a stylesheet a cross-origin stylesheet pulls in with
/// @import) is sized from DevTools' Network domain. Its `encodedDataLength` counts HTTP/2 and HTTP/3 frame
/// headers and HTTP/1.1 chunk sizes (nginx sends gzip chunked), so the byte check compares decoded lengths
/// (`dataReceived.dataLength` against the served body's), and the record keeps the served encoded length.
final class EncodedFallbackSizeTests: XCTestCase {
    static let url = "https://static.test:4433/_static/basic.css"

    /// One gzip response: head 150 bytes, a 900-byte body in 3 frames (9-byte h2 headers), 2,400 bytes decoded.
    func timings(protocolName: String, framing: Int64) -> NetworkTimings {
        var t = NetworkTimings()
        let key: (String, String) -> String = { ChromiumResults.key(method: $0, url: $1) }
        t.handle(
            method: "Network.requestWillBeSent",
            params: ["requestId": "7", "timestamp": 10.0, "wallTime": 1_700_000_000.0, "request": ["url": Self.url]],
            key: key)
        t.handle(
            method: "Network.responseReceived",
            params: [
                "requestId": "7",
                "response": [
                    "protocol": protocolName, "status": 200, "encodedDataLength": NSNumber(value: 150),
                    "headers": ["content-encoding": "gzip", "content-type": "text/css"],
                ] as [String: Any],
            ], key: key)
        for n in [1000, 1000, 400] {
            t.handle(
                method: "Network.dataReceived", params: ["requestId": "7", "dataLength": NSNumber(value: n)], key: key)
        }
        t.handle(
            method: "Network.loadingFinished",
            params: [
                "requestId": "7", "timestamp": 10.2, "encodedDataLength": NSNumber(value: 150 + 900 + framing),
            ], key: key)
        return t
    }

    func testOnlyTheDecodedSizeIsKept() throws {
        // h2: three 9-byte frame headers; h3: three 2-byte ones; h1 chunked: "384\r\n" … "0\r\n\r\n".
        for (p, framing) in [("h2", Int64(27)), ("h3", Int64(6)), ("http/1.1", Int64(12))] {
            let e = try XCTUnwrap(
                timings(protocolName: p, framing: framing).entries(
                    for: [ChromiumResults.key(url: Self.url)], timeOrigin: 1_700_000_000_000
                ).first, p)
            XCTAssertNil(e.encodedBodySize, p)
            XCTAssertEqual(e.decodedBodySize, 2400, p)
            XCTAssertEqual(e.encodedSizeUnobserved, true, p)
        }
    }

    func results(decoded: Int64) -> ChromiumResults.Records {
        let s = Scenario(
            name: "css", origins: [.init(id: "s", host: "static.test")],
            resources: [
                .init(id: "doc", origin: "s", path: "/", bytes: 100, type: .document),
                .init(id: "css", origin: "s", path: "/_static/basic.css", bytes: 900, type: .stylesheet, parent: "doc"),
            ])
        let urls = ["doc": "https://static.test:4433/", "css": Self.url]
        var doc = BrowserReport.TimingEntry(name: urls["doc"]!, startTime: 0)
        doc.responseStart = 5; doc.responseEnd = 10; doc.encodedBodySize = 100; doc.nextHopProtocol = "h2"
        doc.responseStatus = 200; doc.loadEventEnd = 50
        var css = BrowserReport.TimingEntry(name: Self.url, startTime: 12)
        css.responseStart = 20; css.responseEnd = 30; css.decodedBodySize = decoded; css.encodedSizeUnobserved = true
        css.nextHopProtocol = "h2"; css.responseStatus = 200
        let report = BrowserReport(
            frames: [.init(timeOrigin: 1_000, navigation: [doc], resources: [css])], responses: [:])
        var r = ChromiumResults(scenario: s, transport: .h2, urls: urls, servedBytes: ["doc": 100, "css": 900])
        r.servedDecodedBytes = ["css": 2400]
        return r.records(report)
    }

    func testTheByteCheckComparesDecodedLengths() throws {
        let ok = results(decoded: 2400)
        XCTAssertNil(ok.failure)
        XCTAssertEqual(ok.requests.first { $0.id == "css" }?.bytes, 900, "the served encoded body")
        let short = results(decoded: 2399)
        XCTAssertEqual(short.failure, "css (\(Self.url)): received a body decoding to 2399 bytes, expected 2400")
        XCTAssertEqual(short.requests.first { $0.id == "css" }?.bytes, 0)
    }
}
