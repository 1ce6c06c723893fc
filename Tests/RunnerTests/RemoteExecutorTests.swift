import XCTest
import BenchCore
import BenchModel
@testable import Runner

/// `RemoteExecutor` against a real netbench replay server on loopback (its own CA), h1 and h2.
final class RemoteExecutorTests: XCTestCase {
    let scenario = Scenario(name: "remote", origins: [.init(id: "a", host: "a.example"), .init(id: "b", host: "b.example")],
                            resources: [.init(id: "doc", origin: "a", path: "/", bytes: 20_000, type: .document),
                                        .init(id: "img", origin: "b", path: "/img.png", bytes: 70_000, type: .image, parent: "doc")])

    func testLoadsEveryResourceWithExactBytesAndFailsOnWrongSize() throws {
        let credentials = try RunCredentials(hosts: scenario.origins.map(\.host))
        let host = try ServerHost(scenarios: [scenario], credentials: credentials, address: Endpoint.loopbackAddress,
                                  namespace: nil, withQUIC: false)
        defer { host.stop() }
        let port = try XCTUnwrap(host.endpoints[0].tcp?.port)
        let endpoint = RemoteEndpoint(host: "127.0.0.1", port: port)
        let exec = try RemoteExecutor(endpoint: endpoint, scenarios: [scenario], trustedRootsPEM: credentials.caPEM)
        XCTAssertNoThrow(try exec.verifyCertificates())
        for t in [TransportKind.h1, .h2] {
            let r = exec.execute(RunSpec(scenarioIndex: 0, transport: t, index: 0), register: { _ in })
            XCTAssertEqual(r.status, .ok, "\(t): \(r.error ?? "")")
            XCTAssertEqual(r.profile, "network")
            XCTAssertEqual(Set(r.requests.map(\.id)), ["doc", "img"])
            XCTAssertEqual(r.requests.map(\.bytes).reduce(0, +), 90_000)
            XCTAssertGreaterThan(r.metrics.rttMs ?? 0, 0)
            XCTAssertNotNil(r.metrics.idealPltMs)
        }
        // The user's scenario says 70,001 bytes; the server sends 70,000.
        var wrong = scenario
        wrong.resources[1].bytes = 70_001
        let bad = try RemoteExecutor(endpoint: endpoint, scenarios: [wrong], trustedRootsPEM: credentials.caPEM)
        let r = bad.execute(RunSpec(scenarioIndex: 0, transport: .h2, index: 0), register: { _ in })
        XCTAssertEqual(r.status, .failed)
        XCTAssertTrue(r.error?.contains("img") == true, r.error ?? "")
        // Another CA: the pre-flight check names the first origin.
        let other = try RunCredentials(hosts: ["a.example"])
        let untrusted = try RemoteExecutor(endpoint: endpoint, scenarios: [scenario], trustedRootsPEM: other.caPEM)
        XCTAssertThrowsError(try untrusted.verifyCertificates()) { XCTAssertTrue("\($0)".contains("a.example"), "\($0)") }
    }
}
