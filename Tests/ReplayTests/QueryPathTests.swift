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
}
