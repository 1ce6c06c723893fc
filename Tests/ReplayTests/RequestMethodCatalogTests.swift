import XCTest
import BenchModel
import Transport
@testable import Replay

/// The replay server matches on method and URL: a POST resource answers POSTs only, a GET of its URL is
/// a 404 (unless a GET resource has that URL), a CORS preflight of it is allowed, and a generated page
/// asks for it with fetch() and its method and body (TestbedTests.RequestMethodLoadTests: over the wire).
final class RequestMethodCatalogTests: XCTestCase {
    static func scenario(queryMatch: Scenario.QueryMatch? = nil) -> Scenario {
        var s = Scenario(
            name: "m", origins: [.init(id: "m", host: "www.m.test"), .init(id: "api", host: "api.m.test")],
            resources: [
                .init(id: "doc", origin: "m", path: "/", bytes: 4000, type: .document),
                .init(
                    id: "save", origin: "api", path: "/save?v=1", bytes: 50, type: .xhr, parent: "doc", method: "POST",
                    requestBody: .init(text: #"{"a":"</script>"}"#, contentType: "application/json")),
                .init(id: "read", origin: "api", path: "/read", bytes: 60, type: .xhr, parent: "doc"),
                .init(id: "both-get", origin: "api", path: "/both", bytes: 70, type: .xhr, parent: "doc"),
                .init(
                    id: "both-put", origin: "api", path: "/both", bytes: 80, type: .xhr, parent: "doc", method: "PUT"),
            ])
        s.queryMatch = queryMatch
        return s
    }

    func request(_ method: String, _ path: String, host: String = "api.m.test", headers: [(String, String)] = [])
        -> ServerRequest
    {
        ServerRequest(method: method, path: path, authority: host, headers: headers, httpProtocol: "h2")
    }

    func testMethodAndURLBothMatch() {
        let c = ReplayCatalog(scenario: Self.scenario())
        XCTAssertEqual(c.resource(host: "api.m.test", path: "/save?v=1", method: "POST")?.id, "save")
        XCTAssertNil(c.resource(host: "api.m.test", path: "/save?v=1"), "a GET of a URL recorded only as a POST")
        XCTAssertNil(c.resource(host: "api.m.test", path: "/read", method: "POST"))
        XCTAssertEqual(c.resource(host: "api.m.test", path: "/both")?.id, "both-get")
        XCTAssertEqual(c.resource(host: "api.m.test", path: "/both", method: "PUT")?.id, "both-put")
        XCTAssertEqual(c.resource(host: "10.0.0.1", path: "/save?v=1", method: "POST")?.id, "save", "by path")

        XCTAssertEqual(c.respond(to: request("POST", "/save?v=1")).status, 200)
        XCTAssertEqual(c.respond(to: request("POST", "/save?v=1")).bodyLength, 50)
        XCTAssertEqual(c.respond(to: request("GET", "/save?v=1")).status, 404)
        XCTAssertEqual(c.respond(to: request("HEAD", "/read")).status, 200)
        XCTAssertEqual(c.respond(to: request("DELETE", "/read")).status, 404)
        XCTAssertEqual(c.respond(to: request("PUT", "/both")).bodyLength, 80)
        XCTAssertEqual(c.respond(to: request("TRACE", "/read")).status, 405)
    }

    func testClosestQueryStaysWithinTheMethod() {
        let c = ReplayCatalog(scenario: Self.scenario(queryMatch: .closest))
        XCTAssertEqual(c.resource(host: "api.m.test", path: "/save?v=2", method: "POST")?.id, "save")
        XCTAssertNil(c.resource(host: "api.m.test", path: "/save?v=2"))
    }

    func testPreflightOfARecordedMethodIsAllowed() {
        let c = ReplayCatalog(scenario: Self.scenario())
        let ok = c.respond(
            to: request(
                "OPTIONS", "/save?v=1",
                headers: [("access-control-request-method", "POST"), ("access-control-request-headers", "content-type")]
            ))
        XCTAssertEqual(ok.status, 204)
        XCTAssertTrue(ok.headers.contains { $0 == ("access-control-allow-methods", "POST") }, "\(ok.headers)")
        XCTAssertTrue(ok.headers.contains { $0 == ("access-control-allow-headers", "content-type") })
        XCTAssertTrue(ok.headers.contains { $0 == ("access-control-allow-origin", "*") })
        let no = c.respond(to: request("OPTIONS", "/read", headers: [("access-control-request-method", "POST")]))
        XCTAssertEqual(no.status, 404)
    }

    /// Browsers' generated pages: a POST child of a document is an inline fetch() with its method, body and
    /// content-type (escaped for a script element); a script's POST child is fetched the same way.
    func testGeneratedPagesFetchWithTheMethod() throws {
        let renderer = PageRenderer(scenario: Self.scenario(), port: 8443)
        let doc = String(decoding: try XCTUnwrap(renderer.render(Self.scenario().resources[0])).bytes, as: UTF8.self)
        XCTAssertTrue(
            doc.contains(
                #"fetch("https://api.m.test:8443/save?v=1",{method:"POST",body:"{\"a\":\"\u003c/script\u003e\"}","#
                    + #"headers:{"content-type":"application/json"}})"#), doc)
        XCTAssertTrue(doc.contains(#"<link rel="preload" href="https://api.m.test:8443/read" as="fetch""#))
        XCTAssertTrue(doc.contains(#"fetch("https://api.m.test:8443/both",{method:"PUT"})"#), doc)
        XCTAssertFalse(doc.contains("</script>\"}"), "the body cannot end the script element")
    }
}
