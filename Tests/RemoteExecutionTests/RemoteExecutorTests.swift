import XCTest
import BenchCore
import BenchModel
@testable import Runner
@testable import Testbed
@testable import RemoteExecution

/// `RemoteExecutor` against a real netbench replay server on loopback (its own CA), h1, h2 and h3 on one port.
final class RemoteExecutorTests: XCTestCase {
    let scenario = Scenario(
        name: "remote", origins: [.init(id: "a", host: "a.example"), .init(id: "b", host: "b.example")],
        resources: [
            .init(id: "doc", origin: "a", path: "/", bytes: 20_000, type: .document),
            .init(id: "img", origin: "b", path: "/img.png", bytes: 70_000, type: .image, parent: "doc"),
        ])

    func testLoadsEveryResourceWithExactBytesAndFailsOnWrongSize() throws {
        let credentials = try RunCredentials(hosts: scenario.origins.map(\.host))
        var options = ServerHost.ServerOptions()
        let fileBytes = Array("the scenario file".utf8)
        options.descriptions = [
            ServerDescription(
                netbenchVersion: "test",
                scenarios: [.init(name: "remote", sha256: ScenarioDigest.of(fileBytes: fileBytes))])
        ]
        let host = try ServerHost(
            scenarios: [scenario], credentials: credentials, address: Endpoint.loopbackAddress,
            namespace: nil, withQUIC: true, options: options)
        defer { host.stop() }
        let port = try XCTUnwrap(host.endpoints[0].tcp?.port)
        let endpoint = RemoteEndpoint(host: "127.0.0.1", port: port)
        XCTAssertEqual(host.endpoints[0].udp?.port, port, "h3 on the same port")
        let trusted = RunCredentials(caPEM: credentials.caPEM)
        let exec = try RemoteExecutor(endpoint: endpoint, scenarios: [scenario], credentials: trusted)
        XCTAssertNoThrow(try exec.verifyCertificates(transports: [.h1, .h2, .h3]))
        for t in [TransportKind.h2, .h3] {
            XCTAssertEqual(
                try exec.identify(over: t, scenarioFiles: [("s.json", "remote", fileBytes)]), .netbench(version: "test")
            )
        }
        XCTAssertThrowsError(
            try exec.identify(over: .h1, scenarioFiles: [("other.json", "remote", Array("edited".utf8))])
        ) {
            XCTAssertTrue($0 is ScenarioDigest.Mismatch && "\($0)".contains("other.json"), "\($0)")
        }
        for t in [TransportKind.h1, .h2, .h3] {
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
        let bad = try RemoteExecutor(endpoint: endpoint, scenarios: [wrong], credentials: trusted)
        let r = bad.execute(RunSpec(scenarioIndex: 0, transport: .h2, index: 0), register: { _ in })
        XCTAssertEqual(r.status, .failed)
        XCTAssertTrue(r.error?.contains("img") == true, r.error ?? "")
        // Another CA: the pre-flight check names the first origin.
        let other = try RunCredentials(hosts: ["a.example"])
        let untrusted = try RemoteExecutor(
            endpoint: endpoint, scenarios: [scenario], credentials: RunCredentials(caPEM: other.caPEM))
        XCTAssertThrowsError(try untrusted.verifyCertificates(transports: [.h2])) {
            XCTAssertTrue("\($0)".contains("a.example"), "\($0)")
        }
        XCTAssertThrowsError(try untrusted.verifyCertificates(transports: [.h3])) {
            XCTAssertTrue(
                "\($0)".contains("a.example") && "\($0)".contains("QUIC") && "\($0)".contains("certificate"), "\($0)")
        }
    }
}
