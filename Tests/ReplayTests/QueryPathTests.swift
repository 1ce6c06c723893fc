import Foundation
import XCTest
import BenchCore
import BenchModel
@testable import Replay
import Runner
@testable import Testbed
@testable import Browsers
@testable import Workloads
import NetbenchCommands

/// Real-world URLs keep their identity: a path with a query (as imported HARs have them) is its own
/// resource, on the server and in the client, over h1, h2 and h3.
final class QueryPathTests: XCTestCase {
    static let scenario = Scenario(
        name: "queries", origins: [.init(id: "www", host: "www.query.test")],
        resources: [
            .init(id: "doc", origin: "www", path: "/", bytes: 4_000, type: .document),
            .init(id: "c42", origin: "www", path: "/api/comments?id=42", bytes: 1_234, type: .xhr, parent: "doc"),
            .init(id: "c43", origin: "www", path: "/api/comments?id=43", bytes: 2_345, type: .xhr, parent: "doc"),
            .init(id: "enc", origin: "www", path: "/caf%C3%A9.css?v=1&x=a%20b", bytes: 3_456, type: .stylesheet, parent: "doc"),
        ])

    func testCatalogKeepsQueriesApart() {
        let c = ReplayCatalog(scenario: Self.scenario)
        XCTAssertEqual(c.resource(host: "www.query.test", path: "/api/comments?id=42")?.id, "c42")
        XCTAssertEqual(c.resource(host: "www.query.test", path: "/api/comments?id=43")?.id, "c43")
        XCTAssertEqual(c.resource(host: "www.query.test:443", path: "/api/comments?id=43#top")?.id, "c43", "fragments are not sent, and ignored if they are")
        XCTAssertNil(c.resource(host: "www.query.test", path: "/api/comments?id=44"))
        XCTAssertEqual(c.resource(host: "www.query.test", path: "/?utm=x")?.id, "doc", "a query on a path without one falls back to the path")
        XCTAssertEqual(c.resource(host: "www.query.test", path: "/caf%C3%A9.css?v=1&x=a%20b")?.id, "enc")
        XCTAssertEqual(c.resource(host: "10.0.0.1", path: "/api/comments?id=43")?.id, "c43", "by path when the host is an address")
    }

    func testLoadsWithQueriesOverEveryTransport() throws {
        let dir = NSTemporaryDirectory() + "netbench-query-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/queries.json"
        try JSONFile.encode(Self.scenario).write(to: URL(fileURLWithPath: path))
        var request = RunRequest(suiteName: "queries", scenarios: [(path, Self.scenario)], profiles: [.loopback],
                                 transports: [.h1, .h2, .h3], runs: 1, outputDirectory: dir + "/out")
        request.timeoutPerRun = .seconds(30)
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").execute(observer: QuietObserver()) { _ in }
        XCTAssertEqual(results.runs.count, 3)
        for run in results.runs {
            XCTAssertEqual(run.status, .ok, "\(run.transport.rawValue): \(run.error ?? "")")
            for r in Self.scenario.resources {
                let got = run.requests.first { $0.id == r.id }
                XCTAssertEqual(got?.status, 200, "\(run.transport.rawValue) \(r.path)")
                XCTAssertEqual(got?.bytes, r.bytes, "\(run.transport.rawValue) \(r.path)")
            }
        }
    }
}
