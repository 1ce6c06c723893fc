import XCTest
import BenchModel
import Transport
@testable import Replay

/// `browserAltSvc` goes to Chromium (a User-Agent with `Chrome/`) only, not to Firefox (held to h3 by its own
/// Alt-Svc mapping) nor to netbench's client; `altSvc` (serve's TCP responses when h3 shares the port) to every
/// client, and then no second field is added.
final class BrowserAltSvcTests: XCTestCase {
    static let chromium = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0"
    static let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0"

    func altSvc(_ c: ReplayCatalog, userAgent: String?) -> [String] {
        let request = ServerRequest(
            method: "GET", path: "/", authority: "www.m.test",
            headers: userAgent.map { [("user-agent", $0)] } ?? [], httpProtocol: "h3")
        return c.respond(to: request).headers.filter { $0.0 == "alt-svc" }.map(\.1)
    }

    func testOnlyBrowsersAreTold() {
        let scenario = RequestMethodCatalogTests.scenario()
        let c = ReplayCatalog(scenario: scenario, renderingPagesFor: 8443)
        XCTAssertEqual(altSvc(c, userAgent: Self.chromium), [])
        c.browserAltSvc = #"h3=":8443"; ma=86400"#
        XCTAssertEqual(altSvc(c, userAgent: Self.chromium), [#"h3=":8443"; ma=86400"#])
        XCTAssertEqual(altSvc(c, userAgent: Self.firefox), [], "Firefox has its own mapping")
        XCTAssertEqual(altSvc(c, userAgent: nil), [], "netbench's own client is not told")
        c.altSvc = #"h3=":9443"; ma=86400"#
        XCTAssertEqual(altSvc(c, userAgent: Self.chromium), [#"h3=":9443"; ma=86400"#], "one field, not two")
        XCTAssertEqual(altSvc(c, userAgent: Self.firefox), [#"h3=":9443"; ma=86400"#])
        XCTAssertEqual(altSvc(c, userAgent: nil), [#"h3=":9443"; ma=86400"#])
    }
}
