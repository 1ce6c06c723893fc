import XCTest
import BenchCore
import BenchModel
@testable import Runner
@testable import Testbed
@testable import RemoteExecution

/// Which clients `run --server` drives: every client it is given a page-load factory for (netbench
/// itself passes Chromium's and Firefox's), the built-in one always; any other is refused before
/// anything is sent (a run labelled with a browser that never loaded the page would be false data).
final class RemoteClientsTests: XCTestCase {
    /// A browser that is never launched: counts the scenarios it was prepared for.
    final class StandInBrowser: PageLoadFactory {
        let client: RunClient
        var prepared: [String] = []
        var needsRenderedPages: Bool { true }
        init(_ client: RunClient) { self.client = client }
        func prepare(scenarios: [Scenario], notice: (String) -> Void) throws { prepared += scenarios.map(\.name) }
        func makeLoad(_ context: PageLoadContext) throws -> PageLoad {
            throw BenchError.run("the stand-in loads nothing")
        }
    }

    let scenario = Scenario(
        name: "remote", origins: [.init(id: "a", host: "a.example")],
        resources: [.init(id: "doc", origin: "a", path: "/", bytes: 100, type: .document)])

    func request(_ clients: [RunClient]) -> RunRequest {
        var r = RunRequest(
            suiteName: "remote", scenarios: [("s.json", scenario)], profiles: [RemoteExecutorFactory.profile],
            transports: [.h2], runs: 1, outputDirectory: NSTemporaryDirectory() + "netbench-never-written")
        r.pageLoads.clients = clients
        return r
    }

    /// A port nothing listens on: past the refusal, the certificate check fails at once (exit 2).
    func closedEndpoint() throws -> RemoteEndpoint {
        let host = try ServerHost(
            scenarios: [scenario], credentials: try RunCredentials(hosts: ["a.example"]),
            address: Endpoint.loopbackAddress, namespace: nil, withQUIC: false, options: ServerHost.ServerOptions())
        let port = try XCTUnwrap(host.endpoints[0].tcp?.port)
        host.stop()
        return RemoteEndpoint(host: "127.0.0.1", port: port)
    }

    func testAClientWithoutAFactoryIsRefusedNamingTheOnesThatLoad() throws {
        let endpoint = try closedEndpoint()
        let chromium = StandInBrowser(.chromium)
        XCTAssertThrowsError(
            try RemoteExecutorFactory(
                endpoint: endpoint, request: request([.builtin, .firefox]), credentials: .init(caPEM: ""),
                browsers: [chromium])
        ) { error in
            let e = error as? BenchError
            XCTAssertEqual(e?.exitCode, .usage, "\(error)")
            XCTAssertEqual(
                e?.message,
                "--server loads pages with the built-in client, chromium; --client firefox needs netbench's own "
                    + "replay server (drop --server)")
        }
        XCTAssertEqual(chromium.prepared, [], "refused before any browser is prepared")
    }

    func testFirefoxWithItsFactoryIsPreparedAndNotRefused() throws {
        let endpoint = try closedEndpoint()
        let chromium = StandInBrowser(.chromium), firefox = StandInBrowser(.firefox)
        XCTAssertThrowsError(
            try RemoteExecutorFactory(
                endpoint: endpoint, request: request([.firefox]), credentials: .init(caPEM: ""),
                browsers: [chromium, firefox])
        ) { error in
            // Not the refusal: the next step, the certificate check, finds no server.
            let e = error as? BenchError
            XCTAssertEqual(e?.exitCode, .runFailed, "\(error)")
            XCTAssertFalse(e?.message.contains("--client firefox") ?? true, "\(error)")
            XCTAssertTrue(e?.message.contains("'a.example'") ?? false, "\(error)")
        }
        XCTAssertEqual(firefox.prepared, ["remote"])
        XCTAssertEqual(chromium.prepared, [], "only the clients of the plan")
    }
}
