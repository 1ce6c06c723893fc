import Foundation
import XCTest
import BenchCore
import BenchModel
import Runner
@testable import Testbed
import NetbenchCommands
import TestSupport

/// Recorded TCP congestion control is what the kernel reports (getsockopt), on both ends, and a
/// name the kernel refuses is an error rather than a silently different run.
final class CongestionControlRecordTests: XCTestCase {
    private let scenarioPath = Fixture.path("small-page.json")

    private func kernelDefault() throws -> String {
        try String(contentsOfFile: "/proc/sys/net/ipv4/tcp_congestion_control", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func host(_ cc: String?) throws -> ServerHost {
        var options = ServerHost.ServerOptions()
        options.settings.tcpCongestionControl = cc
        return try ServerHost(
            scenarios: [try Scenario.load(from: scenarioPath)], credentials: RunCredentials(hosts: ["www.shop.test"]),
            address: 0x7F00_0001, namespace: nil, withQUIC: false, options: options)
    }

    func testServerRecordsTheKernelsAlgorithmNotTheRequest() throws {
        let unset = try host(nil)
        defer { unset.stop() }
        XCTAssertEqual(
            unset.tcpCongestionControl, try kernelDefault(), "nothing requested: the kernel's default, read back")
        let other = try kernelDefault() == "reno" ? "cubic" : "reno"
        let set = try host(other)
        defer { set.stop() }
        XCTAssertEqual(set.tcpCongestionControl, other)
    }

    func testRefusedAlgorithmIsAnError() {
        XCTAssertThrowsError(try host("no-such-cc")) { error in
            XCTAssertTrue("\(error)".contains("no-such-cc"), "\(error)")
        }
    }

    func testRunRecordsBothEndsAsReadBack() throws {
        let out = NSTemporaryDirectory() + "netbench-cc-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let scenario = try Scenario.load(from: scenarioPath)
        let other = try kernelDefault() == "reno" ? "cubic" : "reno"
        var request = RunRequest(
            suiteName: "cc", scenarios: [(scenarioPath, scenario)], profiles: [.loopback],
            transports: [.h1, .h2], runs: 1, outputDirectory: out)
        request.library = Library(root: packageRoot + "/Scenarios")
        request.server.tcpCongestionControl = other
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        XCTAssertEqual(results.runs.count, 2)
        for run in results.runs {
            XCTAssertEqual(run.status, .ok, run.error ?? "")
            XCTAssertEqual(run.server?.congestionControl, other, "server end, read back from accepted sockets")
            XCTAssertFalse(run.connections.isEmpty)
            for c in run.connections { XCTAssertEqual(c.congestionControl, other, "client end, read back") }
            let rtt = try XCTUnwrap(run.metrics.rttMs, "loopback RTT measured")
            XCTAssertGreaterThan(rtt, 0)
            XCTAssertEqual(
                try XCTUnwrap(run.metrics.idealTtfbMs), 3 * rtt + 5, accuracy: 1e-9, "TLS 1.3: 3 RTT + 5 ms think time")
        }
    }

    func testTLS12RunIsHeldToFourRoundTrips() throws {
        let out = NSTemporaryDirectory() + "netbench-tls12-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let scenario = try Scenario.load(from: scenarioPath)
        var request = RunRequest(
            suiteName: "tls12", scenarios: [(scenarioPath, scenario)], profiles: [.loopback],
            transports: [.h2], runs: 1, outputDirectory: out)
        request.library = Library(root: packageRoot + "/Scenarios")
        request.server.tlsVersion = .tls12
        let run = try XCTUnwrap(
            try BenchmarkRunner(request: request, netbenchVersion: "test").execute(observer: QuietObserver()) { _ in }
                .runs.first)
        XCTAssertEqual(run.status, .ok, run.error ?? "")
        XCTAssertEqual(run.connections.first?.tlsVersion, "1.2")
        let rtt = try XCTUnwrap(run.metrics.rttMs)
        XCTAssertEqual(
            try XCTUnwrap(run.metrics.idealTtfbMs), 4 * rtt + 5, accuracy: 1e-9,
            "4 RTT + the document's 5 ms think time")
    }
}
