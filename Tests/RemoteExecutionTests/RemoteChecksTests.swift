import XCTest
import BenchCore
import BenchModel
@testable import Runner
@testable import Testbed
@testable import RemoteExecution

final class RemoteChecksTests: XCTestCase {
    let scenario = Scenario(
        name: "s", origins: [.init(id: "a", host: "a.example")],
        resources: [.init(id: "doc", origin: "a", path: "/index.html", bytes: 1000, type: .document)])

    func testExactBytesAndStatus() {
        let r = scenario.resources[0]
        XCTAssertNil(RemoteResponseCheck.check(r, in: scenario, status: 200, bodyBytes: 1000))
        let short = RemoteResponseCheck.check(r, in: scenario, status: 200, bodyBytes: 999)
        XCTAssertEqual(short?.resourceID, "doc")
        XCTAssertTrue(short?.description.contains("https://a.example/index.html") == true)
        XCTAssertTrue(short?.description.contains("999") == true)
        XCTAssertNotNil(RemoteResponseCheck.check(r, in: scenario, status: 200, bodyBytes: 1001))
        XCTAssertTrue(
            RemoteResponseCheck.check(r, in: scenario, status: 404, bodyBytes: 1000)?.description.contains("404")
                == true)
    }

    func testDigest() throws {
        // SHA-256("abc"), FIPS 180-2 test vector.
        XCTAssertEqual(
            ScenarioDigest.of(fileBytes: Array("abc".utf8)),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let bytes = Array("{}".utf8)
        let digest = ScenarioDigest.of(fileBytes: bytes)
        let served = ServerDescription(netbenchVersion: "9.9", scenarios: [.init(name: "other, é", sha256: digest)])
        let parsed = try XCTUnwrap(ServerDescription(headers: served.headers))
        XCTAssertEqual(parsed, served, "the headers carry the description")
        XCTAssertEqual(
            try RemoteServerIdentity.judge(
                status: 200, description: parsed, scenarios: [("x.json", "x", bytes)], server: "h:1"),
            .netbench(version: "9.9"))
        XCTAssertEqual(
            try RemoteServerIdentity.judge(
                status: 404, description: nil, scenarios: [("x.json", "x", bytes)], server: "h:1"),
            .unidentified(status: 404))
        XCTAssertThrowsError(
            try RemoteServerIdentity.judge(
                status: 200, description: parsed, scenarios: [("y.json", "y", Array("[]".utf8))], server: "h:1")
        ) { e in
            let text = "\(e)"
            XCTAssertTrue(
                text.contains("y.json") && text.contains("h:1") && text.contains("'y'") && text.contains("'other, é'")
                    && text.contains(digest), text)
        }
    }
}
