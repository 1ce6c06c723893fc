import Foundation
import XCTest
import BenchCore
import BenchModel
import Runner
@testable import Testbed
import NetbenchCommands
import TestSupport

/// Each h1/h2 connection of a run carries what the server's kernel sender counted on it (TCP_INFO
/// as it closed): bytes and segments sent, retransmissions, the congestion state it ended in. These
/// are what explain a transport's page load on a lossy or shallow-buffered link (one HTTP/2
/// connection whose slow-start threshold collapsed carries what six HTTP/1.1 connections share).
final class ServerTCPRecordTests: XCTestCase {
    private let library = Library(root: packageRoot + "/Scenarios")
    private let scenarioPath = Fixture.path("small-page.json")

    private func run(profile: Profile, transports: [TransportKind], scenario: Scenario? = nil) throws -> [RunRecord] {
        let out = NSTemporaryDirectory() + "netbench-servertcp-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        var request = RunRequest(
            suiteName: "server-tcp", scenarios: [(scenarioPath, try scenario ?? Scenario.load(from: scenarioPath))],
            profiles: [profile], transports: transports, runs: 1, outputDirectory: out)
        request.library = library
        request.pageLoads.timeout = .seconds(60)
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        XCTAssertEqual(results.runs.count, transports.count)
        return results.runs
    }

    func testEveryTCPConnectionCarriesTheServersSenderCounters() throws {
        for run in try run(profile: .loopback, transports: [.h1, .h2]) {
            XCTAssertEqual(run.status, .ok, run.error ?? "")
            XCTAssertFalse(run.connections.isEmpty)
            for c in run.connections {
                let tcp = try XCTUnwrap(
                    c.serverTCP,
                    "\(run.transport) connection \(c.id) (\(c.localAddress ?? "?")) has no server TCP record")
                // The server sent at least the bodies of the responses on this connection, in TLS records.
                let bodies = run.requests.filter { $0.connection == c.id }.reduce(Int64(0)) { $0 + $1.bytes }
                XCTAssertGreaterThanOrEqual(tcp.bytesSent, bodies, "connection \(c.id)")
                XCTAssertGreaterThan(tcp.segmentsSent, 0)
                XCTAssertGreaterThanOrEqual(tcp.bytesSent, tcp.bytesRetransmitted)
                XCTAssertGreaterThanOrEqual(tcp.segmentsSent, tcp.segmentsRetransmitted)
                XCTAssertGreaterThan(tcp.minRttMs, 0)
                XCTAssertGreaterThan(tcp.cwndSegments, 0)
            }
        }
    }

    /// With 5% random loss the server must have resent segments of a 400 KB download, and its
    /// slow-start threshold is then finite.
    func testLossShowsAsRetransmissionsOnTheServer() throws {
        try requireRoot("emulated runs need root (network namespaces and TUN devices)")
        var profile = try library.profile("interop")
        profile.name = "interop-loss5"
        profile.loss = Fraction(0.05)
        try profile.validate(file: "test")
        let bulk = Scenario(
            name: "bulk-400k", origins: [.init(id: "bulk", host: "bulk.netbench.test")], resources: [],
            bulk: .init(direction: .download, bytes: 400_000)
        ).withBulkResource()
        let run = try XCTUnwrap(try run(profile: profile, transports: [.h2], scenario: bulk).first)
        XCTAssertEqual(run.status, .ok, run.error ?? "")
        let records = run.connections.compactMap(\.serverTCP)
        XCTAssertEqual(records.count, run.connections.count, "every connection has its server record")
        let dropped = try XCTUnwrap(run.emulator?.packetsDroppedLoss)
        let resent = records.reduce(Int64(0)) { $0 + $1.segmentsRetransmitted }
        XCTAssertGreaterThan(dropped, 0, "5% of about 290 packets (the loss process is seeded)")
        XCTAssertGreaterThan(resent, 0, "the emulator dropped \(dropped) packets; the server must have resent some")
        XCTAssertTrue(
            records.contains { $0.segmentsRetransmitted > 0 && $0.ssthreshSegments != nil },
            "a connection that lost segments left slow start")
        XCTAssertEqual(records.first.map { $0.minRttMs >= 30 }, true, "the server measured the 30 ms path: \(records)")
    }
}
