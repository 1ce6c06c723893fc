import XCTest
import BenchModel
import Transport
@testable import Replay

/// `browserAltSvc` goes to browsers (requests with a User-Agent) only; `altSvc` (serve's TCP responses
/// when h3 shares the port) to every client, and then no second field is added.
final class BrowserAltSvcTests: XCTestCase {
    func request(userAgent: Bool) -> ServerRequest {
        ServerRequest(
            method: "GET", path: "/", authority: "www.m.test",
            headers: userAgent ? [("user-agent", "Mozilla/5.0")] : [], httpProtocol: "h3")
    }

    func altSvc(_ c: ReplayCatalog, userAgent: Bool) -> [String] {
        c.respond(to: request(userAgent: userAgent)).headers.filter { $0.0 == "alt-svc" }.map(\.1)
    }

    func testOnlyBrowsersAreTold() {
        let scenario = RequestMethodCatalogTests.scenario()
        var c = ReplayCatalog(scenario: scenario, renderingPagesFor: 8443)
        XCTAssertEqual(altSvc(c, userAgent: true), [])
        c.browserAltSvc = #"h3=":8443"; ma=86400"#
        XCTAssertEqual(altSvc(c, userAgent: true), [#"h3=":8443"; ma=86400"#])
        XCTAssertEqual(altSvc(c, userAgent: false), [], "netbench's own client is not told")
        c.altSvc = #"h3=":9443"; ma=86400"#
        XCTAssertEqual(altSvc(c, userAgent: true), [#"h3=":9443"; ma=86400"#], "one field, not two")
        XCTAssertEqual(altSvc(c, userAgent: false), [#"h3=":9443"; ma=86400"#])
    }
}
