import Foundation
import XCTest
import BenchCore
@testable import BenchModel

/// Request methods in scenarios: `method` and `requestBody` survive encoding and decoding, old files
/// load as GETs, bad values are named with file, key and value, and `import-har` keeps a HAR's POST
/// with its `postData`.
final class RequestMethodTests: XCTestCase {
    static func scenario() -> Scenario {
        Scenario(
            name: "methods", origins: [.init(id: "main", host: "www.shop.test")],
            resources: [
                .init(id: "doc", origin: "main", path: "/", bytes: 1000, type: .document),
                .init(
                    id: "save", origin: "main", path: "/api/save?x=1", bytes: 200, type: .xhr, parent: "doc",
                    method: "POST",
                    requestBody: .init(text: "name=netbench&n=42", contentType: "application/x-www-form-urlencoded")),
                // The same URL as a GET is another resource.
                .init(id: "load", origin: "main", path: "/api/save?x=1", bytes: 300, type: .xhr, parent: "doc"),
            ])
    }

    func testMethodAndRequestBodyRoundTrip() throws {
        let s = Self.scenario()
        try s.validate(file: "methods.json")
        let data = try JSONFile.encode(s)
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.contains(#""method" : "POST""#), text)
        XCTAssertTrue(text.contains(#""text" : "name=netbench&n=42""#), text)
        let back = try JSONFile.decode(Scenario.self, from: data, file: "methods.json")
        XCTAssertEqual(back, s)
        XCTAssertEqual(back.resources[1].httpMethod, "POST")
        XCTAssertEqual(back.resources[1].requestBody?.bytes, Array("name=netbench&n=42".utf8))
        XCTAssertEqual(back.resources[2].httpMethod, "GET")
        XCTAssertFalse(text.contains(#""method" : "GET""#), "GET is the default: not written")
    }

    func testOldScenariosLoadAsGETs() throws {
        let old = #"""
            {"schemaVersion": 1, "name": "old", "origins": [{"id": "o", "host": "a.test"}],
             "resources": [{"id": "doc", "origin": "o", "path": "/", "bytes": 10, "type": "document"},
                           {"id": "x", "origin": "o", "path": "/x", "bytes": 5, "type": "xhr", "parent": "doc"}]}
            """#
        let s = try JSONFile.decode(Scenario.self, from: Data(old.utf8), file: "old.json")
        try s.validate(file: "old.json")
        XCTAssertEqual(s.resources.map(\.httpMethod), ["GET", "GET"])
        XCTAssertNil(s.resources[1].method)
        XCTAssertNil(s.resources[1].requestBody)
    }

    func testBadMethodsAreNamedWithFileKeyAndValue() {
        func problems(_ change: (inout Scenario) -> Void) -> String {
            var s = Self.scenario()
            change(&s)
            do {
                try s.validate(file: "page.json")
                return ""
            } catch {
                return "\(error)"
            }
        }
        XCTAssertTrue(
            problems { $0.resources[1].method = "FETCH" }.contains(
                "page.json: resources[1].method: 'FETCH' is not a method netbench replays (GET, POST, PUT, PATCH, "
                    + "DELETE)"))
        XCTAssertTrue(problems { $0.resources[1].method = "post" }.contains("resources[1].method: 'post'"))
        XCTAssertTrue(
            problems { $0.resources[0].method = "POST" }.contains(
                "page.json: resources[0].method: 'POST': the root document is loaded with GET"))
        XCTAssertTrue(
            problems { $0.resources[2].requestBody = .init(text: "a") }.contains(
                "page.json: resources[2].requestBody: a GET request has no body"))
        XCTAssertTrue(
            problems { $0.resources[1].requestBody?.contentType = "a\nb" }.contains(
                "page.json: resources[1].requestBody.contentType:"))
        // The same method twice on one path is a duplicate; GET and POST of it are not.
        XCTAssertTrue(
            problems { $0.resources[2].method = "POST" }.contains(
                "page.json: resources[2].path: '/api/save?x=1' (POST) on origin 'main' is also resources[1].path"))
        XCTAssertEqual(problems { _ in }, "")
    }

    /// A HAR with a GET page, a POST (form postData) and a GET of the same URL, and a HEAD.
    static func har() throws -> Data {
        func entry(_ method: String, _ url: String, at ms: Int, type: String, size: Int, post: [String: Any]? = nil)
            -> [String: Any]
        {
            var request: [String: Any] = ["method": method, "url": url, "headers": [], "bodySize": 0]
            if let post {
                request["postData"] = post
                request["bodySize"] = (post["text"] as? String)?.utf8.count ?? 0
            }
            return [
                "startedDateTime": String(format: "2026-11-27T12:00:00.%03dZ", ms), "time": 20,
                "request": request,
                "response": [
                    "status": 200, "headers": [["name": "Content-Type", "value": type]],
                    "content": ["size": size, "mimeType": type], "bodySize": size,
                ],
                "timings": ["send": 1, "wait": 10, "receive": 9],
            ]
        }
        let entries = [
            entry("GET", "https://www.shop.test/", at: 0, type: "text/html", size: 5000),
            entry(
                "POST", "https://api.shop.test/v1/cart?id=7", at: 100, type: "application/json", size: 120,
                post: ["mimeType": "application/json", "text": #"{"sku":"A-1","qty":2}"#]),
            entry("GET", "https://api.shop.test/v1/cart?id=7", at: 150, type: "application/json", size: 340),
            entry("PUT", "https://api.shop.test/v1/cart?id=8", at: 160, type: "application/json", size: 10),
            entry("HEAD", "https://api.shop.test/ping", at: 200, type: "text/plain", size: 0),
        ]
        return try JSONSerialization.data(withJSONObject: ["log": ["version": "1.2", "entries": entries]])
    }

    func testImportKeepsPOSTWithItsPostData() throws {
        let r = try HARImporter.importHAR(Self.har(), file: "cart.har")
        let s = r.scenario
        let post = try XCTUnwrap(s.resources.first { $0.method == "POST" })
        XCTAssertEqual(post.path, "/v1/cart?id=7")
        XCTAssertEqual(post.bytes, 120)
        XCTAssertEqual(post.requestBody, .init(text: #"{"sku":"A-1","qty":2}"#, contentType: "application/json"))
        let get = try XCTUnwrap(s.resources.first { $0.path == "/v1/cart?id=7" && $0.method == nil })
        XCTAssertEqual(get.bytes, 340, "a GET of the POST's URL is its own resource")
        let put = try XCTUnwrap(s.resources.first { $0.method == "PUT" })
        XCTAssertNil(put.requestBody, "no postData: no body")
        XCTAssertFalse(s.resources.contains { $0.path == "/ping" })
        XCTAssertTrue(
            r.report.skipped.contains { $0.entry == 4 && "\($0)".contains("HEAD request") }, "\(r.report.skipped)")
        XCTAssertFalse(r.report.notes.contains { "\($0)".contains("imported as a GET") })
        // Through the file format and back.
        let back = try JSONFile.decode(Scenario.self, from: try JSONFile.encode(s), file: "cart.json")
        XCTAssertEqual(back.resources, s.resources)
    }
}
