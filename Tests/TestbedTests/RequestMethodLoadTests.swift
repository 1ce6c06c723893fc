import Foundation
import XCTest
import BenchCore
import BenchModel
import Runner
@testable import Testbed
import NetbenchCommands
import SystemIO
import TLS
import TestSupport

/// Request methods over the wire: the built-in client sends a recorded POST with its method and body over
/// h1, h2 and h3 on loopback and gets the recorded response (the server lists the body it received in the
/// run's record); a GET of a URL recorded only as a POST is a 404 the run's record lists.
final class RequestMethodLoadTests: XCTestCase {
    static let posted = "name=netbench&n=42"
    static let answer = Array(#"{"ok":true,"id":42,"note":"the recorded response"}"#.utf8)

    /// A page and a POST with a recorded response, written to `dir` as a scenario with its bodies.
    static func write(into dir: String) throws -> (path: String, scenario: Scenario) {
        let digest = SHA256.hex(answer)
        try FileManager.default.createDirectory(atPath: dir + "/b", withIntermediateDirectories: true)
        try Data(answer).write(to: URL(fileURLWithPath: dir + "/b/" + digest))
        var s = Scenario(
            name: "post", origins: [.init(id: "m", host: "www.post.test")],
            resources: [
                .init(id: "doc", origin: "m", path: "/", bytes: 3000, type: .document),
                .init(
                    id: "save", origin: "m", path: "/api/save?x=1", bytes: Int64(answer.count), type: .xhr,
                    parent: "doc", body: .init(sha256: digest, contentType: "application/json"), method: "POST",
                    requestBody: .init(text: posted, contentType: "application/x-www-form-urlencoded")),
            ])
        s.bodies = "b"
        let path = dir + "/post.json"
        try JSONFile.encode(s).write(to: URL(fileURLWithPath: path))
        return (path, try Scenario.load(from: path))
    }

    func testBuiltInClientSendsThePOSTWithItsBodyOverEveryTransport() throws {
        let dir = NSTemporaryDirectory() + "netbench-post-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (path, scenario) = try Self.write(into: dir)
        var request = RunRequest(
            suiteName: "post", scenarios: [(path, scenario)], profiles: [.loopback],
            transports: [.h1, .h2, .h3], runs: 1, outputDirectory: dir + "/out")
        request.pageLoads.timeout = .seconds(30)
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").execute(
            observer: QuietObserver()) { _ in }
        XCTAssertEqual(results.runs.count, 3)
        for run in results.runs {
            let t = run.transport.rawValue
            XCTAssertEqual(run.status, .ok, "\(t): \(run.error ?? "")")
            let save = run.requests.first { $0.id == "save" }
            // Only a POST finds the resource: a GET would have been a 404.
            XCTAssertEqual(save?.status, 200, t)
            XCTAssertEqual(save?.bytes, Int64(Self.answer.count), t)
            XCTAssertEqual(run.server?.notFound ?? [], [], t)
            XCTAssertEqual(
                run.server?.requestBodies, ["POST www.post.test /api/save?x=1: \(Self.posted.utf8.count) bytes"], t)
        }
    }

    func testAGETOfAURLRecordedOnlyAsAPOSTIsA404ListedInTheRecord() throws {
        let dir = NSTemporaryDirectory() + "netbench-post-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (_, scenario) = try Self.write(into: dir)
        let credentials = try RunCredentials(hosts: scenario.origins.map(\.host))
        let host = try ServerHost(
            scenarios: [scenario], credentials: credentials, address: 0x7F00_0001, namespace: nil, withQUIC: false)
        defer { host.stop() }
        func send(_ request: String) throws -> String {
            try ServerRobustnessTests.exchange(
                request, host: host, credentials: credentials, serverName: "www.post.test")
        }
        let get = try send("GET /api/save?x=1 HTTP/1.1\r\nHost: www.post.test\r\nConnection: close\r\n\r\n")
        XCTAssertTrue(get.hasPrefix("HTTP/1.1 404"), String(get.prefix(200)))
        let put = try send(
            "PUT /api/save?x=1 HTTP/1.1\r\nHost: www.post.test\r\nContent-Length: 2\r\nConnection: close\r\n\r\nab")
        XCTAssertTrue(put.hasPrefix("HTTP/1.1 404"), String(put.prefix(200)))
        // What the run's record lists (runs[].server.notFound).
        XCTAssertEqual(host.takeNotFound(), ["www.post.test /api/save?x=1", "PUT www.post.test /api/save?x=1"])
        let post = try send(
            "POST /api/save?x=1 HTTP/1.1\r\nHost: www.post.test\r\nContent-Length: \(Self.posted.utf8.count)\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nConnection: close\r\n\r\n" + Self.posted)
        XCTAssertTrue(post.hasPrefix("HTTP/1.1 200"), String(post.prefix(200)))
        XCTAssertTrue(post.hasSuffix(String(decoding: Self.answer, as: UTF8.self)), post)
        XCTAssertEqual(host.takeNotFound(), [])
        XCTAssertEqual(
            host.takeRequestBodies(),
            ["PUT www.post.test /api/save?x=1: 2 bytes", "POST www.post.test /api/save?x=1: 18 bytes"])
    }
}
