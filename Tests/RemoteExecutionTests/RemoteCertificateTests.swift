import XCTest
import BenchCore
import BenchModel
import TLS
@testable import Runner
@testable import Testbed
@testable import RemoteExecution

/// The pre-flight certificate check of `run --server` against netbench's own server on loopback:
/// a name the server has no certificate for, and a CA the client does not trust, each named.
final class RemoteCertificateTests: XCTestCase {
    func testVerifiesAgainstGivenCAAndNamesFailures() throws {
        let scenario = Scenario(
            name: "c", origins: [.init(id: "a", host: "a.example")],
            resources: [.init(id: "doc", origin: "a", path: "/", bytes: 10, type: .document)])
        let credentials = try RunCredentials(hosts: ["a.example"])
        let host = try ServerHost(
            scenarios: [scenario], credentials: credentials, address: Endpoint.loopbackAddress, namespace: nil,
            withQUIC: true)
        defer { host.stop() }
        let endpoint = RemoteEndpoint(host: "127.0.0.1", port: try XCTUnwrap(host.endpoints[0].tcp?.port))
        let trusted = RunCredentials(caPEM: credentials.caPEM)
        XCTAssertNoThrow(
            try RemoteExecutor(endpoint: endpoint, scenarios: [scenario], credentials: trusted).verifyCertificates(
                transports: [.h1, .h3]))

        var unknownName = scenario
        unknownName.origins[0].host = "b.example"
        for t in [TransportKind.h2, .h3] {
            XCTAssertThrowsError(
                try RemoteExecutor(endpoint: endpoint, scenarios: [unknownName], credentials: trusted)
                    .verifyCertificates(transports: [t])
            ) { e in
                XCTAssertTrue("\(e)".contains("'b.example'") && "\(e)".contains("does not verify"), "\(e)")
            }
        }
        let other = try RunCredentials(hosts: ["a.example"])
        XCTAssertThrowsError(
            try RemoteExecutor(
                endpoint: endpoint, scenarios: [scenario], credentials: RunCredentials(caPEM: other.caPEM)
            )
            .verifyCertificates(transports: [.h1])
        ) { e in
            let text = "\(e)"
            XCTAssertTrue(
                text.contains("'a.example'") && text.contains("127.0.0.1:\(endpoint.port)")
                    && text.contains("unable to get local issuer certificate"), text)
        }
    }
}
