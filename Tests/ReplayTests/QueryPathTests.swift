import XCTest
import BenchModel
@testable import Replay
import TestSupport

/// Real-world URLs keep their identity: a path with a query (as imported HARs have them) is its own
/// resource in the catalog (TestbedTests.QueryPathLoadTests loads them over h1, h2 and h3).
final class QueryPathTests: XCTestCase {
    func testCatalogKeepsQueriesApart() throws {
        let c = ReplayCatalog(scenario: try Scenario.load(from: Fixture.path("query-page.json")))
        XCTAssertEqual(c.resource(host: "www.query.test", path: "/api/comments?id=42")?.id, "c42")
        XCTAssertEqual(c.resource(host: "www.query.test", path: "/api/comments?id=43")?.id, "c43")
        XCTAssertEqual(
            c.resource(host: "www.query.test:443", path: "/api/comments?id=43#top")?.id, "c43",
            "fragments are not sent, and ignored if they are")
        XCTAssertNil(c.resource(host: "www.query.test", path: "/api/comments?id=44"))
        XCTAssertEqual(
            c.resource(host: "www.query.test", path: "/?utm=x")?.id, "doc",
            "a query on a path without one falls back to the path")
        XCTAssertEqual(c.resource(host: "www.query.test", path: "/caf%C3%A9.css?v=1&x=a%20b")?.id, "enc")
        XCTAssertEqual(
            c.resource(host: "10.0.0.1", path: "/api/comments?id=43")?.id, "c43", "by path when the host is an address")
    }

    /// `queryMatch: closest` (import-har's choice for recorded sites): a changed query finds the resource
    /// with the same path sharing the most parameters, as Web Page Replay matches; `exact` keeps 404.
    func testClosestQueryMatchesAsWebPageReplay() throws {
        var s = Scenario(
            name: "q", origins: [.init(id: "m", host: "www.q.test"), .init(id: "c", host: "cdn.q.test")],
            resources: [
                .init(id: "doc", origin: "m", path: "/", bytes: 10, type: .document),
                .init(id: "app", origin: "m", path: "/app.js?v=1", bytes: 10, type: .script, parent: "doc"),
                .init(id: "en", origin: "m", path: "/api?id=1&lang=en", bytes: 10, type: .xhr, parent: "doc"),
                .init(id: "fr", origin: "m", path: "/api?id=2&lang=fr", bytes: 10, type: .xhr, parent: "doc"),
                .init(id: "cdn", origin: "c", path: "/lib.js?h=abc", bytes: 10, type: .script, parent: "doc"),
            ])
        XCTAssertNil(ReplayCatalog(scenario: s).resource(host: "www.q.test", path: "/app.js?v=2"), "exact by default")
        s.queryMatch = .closest
        let c = ReplayCatalog(scenario: s)
        XCTAssertEqual(c.resource(host: "www.q.test", path: "/app.js?v=1")?.id, "app")
        XCTAssertEqual(c.resource(host: "www.q.test", path: "/app.js?v=2")?.id, "app", "a cache buster")
        XCTAssertEqual(c.resource(host: "www.q.test", path: "/app.js")?.id, "app")
        XCTAssertEqual(c.resource(host: "www.q.test", path: "/api?lang=fr&id=9")?.id, "fr", "most shared pairs")
        XCTAssertEqual(c.resource(host: "www.q.test", path: "/api?id=1&lang=de&t=5")?.id, "en")
        XCTAssertEqual(c.resource(host: "www.q.test", path: "/api?x=1")?.id, "en", "a tie: the first")
        XCTAssertNil(c.resource(host: "www.q.test", path: "/lib.js?h=abc"), "another origin's path")
        XCTAssertEqual(c.resource(host: "cdn.q.test", path: "/lib.js?h=def")?.id, "cdn")
        XCTAssertNil(c.resource(host: "www.q.test", path: "/nope?v=1"))
        XCTAssertThrowsError(
            try JSONFile.decode(
                Scenario.self,
                from: Data(
                    #"{"schemaVersion": 1, "name": "x", "origins": [], "resources": [], "queryMatch": "fuzzy"}"#.utf8),
                file: "q.json")
        ) { XCTAssertTrue("\($0)".contains("'fuzzy' is not one of exact, closest"), "\($0)") }
    }
}
