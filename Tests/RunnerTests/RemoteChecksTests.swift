import XCTest
import BenchCore
import BenchModel
@testable import Runner

final class RemoteChecksTests: XCTestCase {
    let scenario = Scenario(name: "s", origins: [.init(id: "a", host: "a.example")],
                            resources: [.init(id: "doc", origin: "a", path: "/index.html", bytes: 1000, type: .document)])

    func testExactBytesAndStatus() {
        let r = scenario.resources[0]
        XCTAssertNil(RemoteResponseCheck.check(r, in: scenario, status: 200, bodyBytes: 1000))
        let short = RemoteResponseCheck.check(r, in: scenario, status: 200, bodyBytes: 999)
        XCTAssertEqual(short?.resourceID, "doc")
        XCTAssertTrue(short?.description.contains("https://a.example/index.html") == true)
        XCTAssertTrue(short?.description.contains("999") == true)
        XCTAssertNotNil(RemoteResponseCheck.check(r, in: scenario, status: 200, bodyBytes: 1001))
        XCTAssertTrue(RemoteResponseCheck.check(r, in: scenario, status: 404, bodyBytes: 1000)?.description.contains("404") == true)
    }

    func testDigest() throws {
        // SHA-256("abc"), FIPS 180-2 test vector.
        XCTAssertEqual(ScenarioDigest.of(fileBytes: Array("abc".utf8)),
                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let bytes = Array("{}".utf8)
        XCTAssertNoThrow(try ScenarioDigest.compare(scenarioFile: "x.json", fileBytes: bytes, server: "h:1",
                                                     servedDigest: ScenarioDigest.of(fileBytes: bytes).uppercased()))
        XCTAssertThrowsError(try ScenarioDigest.compare(scenarioFile: "x.json", fileBytes: bytes, server: "h:1", servedDigest: "00")) { e in
            XCTAssertTrue("\(e)".contains("x.json") && "\(e)".contains("h:1"), "\(e)")
        }
    }
}
