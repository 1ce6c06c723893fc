import Foundation
import XCTest
import BenchModel
@testable import Browsers

/// `record` keeps request methods: DevTools' POST with its `postData` (in the event, or asked for with
/// `Network.getRequestPostData` when the event only says `hasPostData`) becomes the HAR's
/// `request.postData`, and the import a POST resource with that body.
final class RecordingMethodTests: XCTestCase {
    func testPOSTWithPostDataBecomesAPOSTResource() throws {
        var r = DevToolsRecording()
        func send(_ id: String, _ url: String, _ t: Double, method: String, post: String? = nil, has: Bool = false) {
            var request: [String: Any] = [
                "url": url, "method": method, "headers": ["Content-Type": "application/json"],
            ]
            if let post { request["postData"] = post }
            if has { request["hasPostData"] = true }
            r.handle(
                method: "Network.requestWillBeSent",
                params: [
                    "requestId": id, "timestamp": t, "wallTime": 1_790_000_000 + t,
                    "type": id == "1" ? "Document" : "XHR", "initiator": ["type": "other"], "request": request,
                ])
            r.handle(
                method: "Network.responseReceived",
                params: [
                    "requestId": id, "type": "XHR",
                    "response": [
                        "status": 200, "protocol": "h2", "mimeType": id == "1" ? "text/html" : "application/json",
                        "headers": [String: Any](),
                    ] as [String: Any],
                ])
            r.handle(method: "Network.loadingFinished", params: ["requestId": id, "timestamp": t + 0.01])
        }
        send("1", "https://www.rec.test/", 100, method: "GET")
        send("2", "https://www.rec.test/api?q=1", 100.05, method: "POST", post: #"{"q":1}"#)
        send("3", "https://www.rec.test/big", 100.06, method: "PUT", has: true)
        XCTAssertEqual(r.postDataRequests, ["3"])
        r.setPostData(requestID: "3", text: "large body")
        XCTAssertEqual(r.postDataRequests, [])
        r.setBody(requestID: "1", body: "<html></html>", base64Encoded: false)
        r.setBody(requestID: "2", body: "ok", base64Encoded: false)
        r.setBody(requestID: "3", body: "done", base64Encoded: false)
        let har = r.har(pageURL: "https://www.rec.test/", creatorVersion: "t")
        let entries = try XCTUnwrap((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let post = try XCTUnwrap(entries[1]["request"] as? [String: Any])
        XCTAssertEqual(post["method"] as? String, "POST")
        XCTAssertEqual(post["bodySize"] as? Int, 7)
        XCTAssertEqual((post["postData"] as? [String: Any])?["text"] as? String, #"{"q":1}"#)
        XCTAssertEqual((post["postData"] as? [String: Any])?["mimeType"] as? String, "application/json")

        let data = try JSONSerialization.data(withJSONObject: har)
        let s = try HARImporter.importHAR(data, file: "rec.har", options: .init(bodiesDirectory: "bodies")).scenario
        XCTAssertEqual(s.resources.map(\.httpMethod), ["GET", "POST", "PUT"])
        XCTAssertEqual(s.resources[1].requestBody, .init(text: #"{"q":1}"#, contentType: "application/json"))
        XCTAssertEqual(s.resources[2].requestBody?.text, "large body")
    }
}
