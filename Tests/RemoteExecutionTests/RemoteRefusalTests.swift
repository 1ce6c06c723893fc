import XCTest
import BenchCore
import BenchModel
@testable import Runner
@testable import Testbed
@testable import RemoteExecution

/// `RemoteExecutor.refusal`: after a certificate failure, netbench serve of another scenario is
/// refused as a data error naming both scenarios; any other server keeps the certificate failure.
final class RemoteRefusalTests: XCTestCase {
    let served = Scenario(
        name: "served", origins: [.init(id: "a", host: "a.example")],
        resources: [.init(id: "doc", origin: "a", path: "/", bytes: 10, type: .document)])
    let servedFile = Array("the served scenario file".utf8)

    /// netbench's replay server for `served` (certificates for a.example only), describing itself
    /// unless `describe` is false (then the description path answers 404, as nginx would).
    func startServer(_ credentials: RunCredentials, describe: Bool = true) throws -> (ServerHost, RemoteEndpoint) {
        var options = ServerHost.ServerOptions()
        if describe {
            options.descriptions = [
                ServerDescription(
                    netbenchVersion: "test",
                    scenarios: [.init(name: "served", sha256: ScenarioDigest.of(fileBytes: servedFile))])
            ]
        }
        let host = try ServerHost(
            scenarios: [served], credentials: credentials, address: Endpoint.loopbackAddress, namespace: nil,
            withQUIC: true, options: options)
        return (host, RemoteEndpoint(host: "127.0.0.1", port: try XCTUnwrap(host.endpoints[0].tcp?.port)))
    }

    /// The refusal of `scenario` (file `file` with `bytes`) over `transports`, after the certificate
    /// check that must fail first.
    func refusal(
        _ scenario: Scenario, file: String, bytes: [UInt8], at endpoint: RemoteEndpoint, trusting caPEM: String,
        over transports: [TransportKind] = [.h2]
    ) throws -> BenchError {
        let exec = try RemoteExecutor(endpoint: endpoint, scenarios: [scenario], credentials: .init(caPEM: caPEM))
        do {
            try exec.verifyCertificates(transports: transports)
        } catch {
            return exec.refusal(
                afterCertificateFailure: error, transports: transports,
                scenarioFiles: [(file: file, name: scenario.name, bytes: bytes)])
        }
        throw BenchError.run("the certificate check passed for \(scenario.origins.map(\.host)), expected a failure")
    }

    func testOtherScenarioNamedDespiteItsCertificate() throws {
        let credentials = try RunCredentials(hosts: ["a.example"])
        let (host, endpoint) = try startServer(credentials)
        defer { host.stop() }
        var planned = served
        planned.name = "planned"
        planned.origins[0].host = "b.example"
        // The names are not covered (the server's CA trusted); h3-only plans are read over TCP too.
        for transports in [[TransportKind.h2], [.h1], [.h3]] {
            let e = try refusal(
                planned, file: "planned.json", bytes: Array("planned".utf8), at: endpoint,
                trusting: credentials.caPEM, over: transports)
            XCTAssertEqual(e.exitCode, .dataError, "\(transports): \(e)")
            for part in ["planned.json", "'planned'", "'served'", "'b.example'", "does not verify"] {
                XCTAssertTrue(e.message.contains(part), "\(transports): \(part) missing in \(e)")
            }
        }
        // Neither is the chain checked on that read: another CA, the plan's own names.
        let stranger = try RunCredentials(hosts: ["a.example"])
        let untrusted = try refusal(
            served, file: "s.json", bytes: Array("other bytes".utf8), at: endpoint, trusting: stranger.caPEM)
        XCTAssertEqual(untrusted.exitCode, .dataError, "\(untrusted)")
        XCTAssertTrue(untrusted.message.contains("unable to get local issuer certificate"), "\(untrusted)")
    }

    /// The plan's scenario served, or no description: the certificate failure stands (exit 2).
    func testCertificateFailureStandsOtherwise() throws {
        let credentials = try RunCredentials(hosts: ["a.example"])
        let stranger = try RunCredentials(hosts: ["a.example"])
        let (host, endpoint) = try startServer(credentials)
        defer { host.stop() }
        let same = try refusal(served, file: "s.json", bytes: servedFile, at: endpoint, trusting: stranger.caPEM)
        XCTAssertEqual(same.exitCode, .runFailed, "\(same)")
        XCTAssertTrue(
            same.message.hasPrefix("certificate for 'a.example'") && same.message.contains("local issuer"), "\(same)")

        let (plain, plainEndpoint) = try startServer(credentials, describe: false)
        defer { plain.stop() }
        var elsewhere = served
        elsewhere.origins[0].host = "b.example"
        let undescribed = try refusal(
            elsewhere, file: "s.json", bytes: Array("x".utf8), at: plainEndpoint, trusting: credentials.caPEM)
        XCTAssertEqual(undescribed.exitCode, .runFailed, "\(undescribed)")
        XCTAssertTrue(undescribed.message.contains("'b.example'"), "\(undescribed)")
    }
}
