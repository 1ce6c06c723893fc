import Foundation
import XCTest
import BenchCore
import BenchModel
import Runner
@testable import Testbed
import NetbenchCommands
import TestSupport

/// HTTP/3 bulk transfers through the link emulator with random loss, both directions, on the
/// batched (UDP GSO) send path the endpoints use by default. Uploads: the replay server answers 200
/// only when it received exactly the announced number of body bytes (400 otherwise), so a lost,
/// duplicated or truncated byte fails the run. Downloads: the client counts the bytes it received.
final class EmulatedBulkTests: XCTestCase {
    let library = Library(root: packageRoot + "/Scenarios")

    func testH3UploadArrivesWholeThroughALossyQueue() throws {
        let run = try bulkRun(.upload)
        XCTAssertEqual(run.requests.first?.status, 200, "the server received exactly every byte")
    }

    func testH3DownloadArrivesWholeThroughALossyQueue() throws {
        let run = try bulkRun(.download)
        XCTAssertEqual(run.requests.first?.status, 200)
        XCTAssertEqual(run.requests.first?.bytes, 3_000_000, "the client received exactly every byte")
    }

    /// A bulk download's bound counts the slow start of netbench's own server, and real downloads
    /// (TCP and QUIC, no loss) stay above it: 5 MB over 100 Mbit/s and 20 ms, where a window that
    /// starts at 24 KB and doubles takes 4 round trips to fill the link (51 ms over the body's 400 ms
    /// of serialization).
    func testRealDownloadsStayAboveTheirSlowStartBound() throws {
        try requireRoot("emulated runs need root (network namespaces and TUN devices)")
        let json = #"{"schemaVersion": 1, "name": "ramp", "down": "100Mbit", "up": "100Mbit", "rtt": "20ms", "#
            + #""queue": "bdp"}"#
        let profile = try JSONDecoder().decode(Profile.self, from: Data(json.utf8))
        try profile.validate(file: "test")
        let runs = try bulkRuns(.download, bytes: 5_000_000, profile: profile, transports: [.h1, .h3])
        XCTAssertEqual(runs.map(\.transport), [.h1, .h3])
        for run in runs {
            let who = run.transport.rawValue
            XCTAssertEqual(run.status, .ok, "\(who): \(run.error ?? "")")
            XCTAssertEqual(run.metrics.idealModel?.contains("slow start (from 24 KB"), true, who)
            let ideal = try XCTUnwrap(run.metrics.idealPltMs, who), plt = try XCTUnwrap(run.metrics.pltMs, who)
            let flat = Double(run.transport.handshakeRoundTrips()) * 20 + 400
            XCTAssertEqual(ideal, flat + 80 + 4_640_000 / 12_500 - 400, accuracy: 1e-6, "\(who): the ramp counts")
            XCTAssertLessThanOrEqual(ideal, plt, "\(who): a bound never exceeds the measurement")
        }
    }

    private func bulkRun(_ direction: Scenario.Bulk.Direction) throws -> RunRecord {
        try requireRoot("emulated runs need root (network namespaces and TUN devices)")
        var profile = try library.profile("interop")  // 10 Mbit/s, 30 ms, 25-packet queue
        profile.name = "interop-loss2"
        profile.loss = Fraction(0.02)
        try profile.validate(file: "test")
        let run = try XCTUnwrap(bulkRuns(direction, bytes: 3_000_000, profile: profile, transports: [.h3]).first)
        XCTAssertEqual(run.status, .ok, run.error ?? "")
        XCTAssertEqual(run.connections.count, 1)
        let emulator = try XCTUnwrap(run.emulator)
        XCTAssertGreaterThan(emulator.packetsDroppedLoss ?? 0, 0, "the loss process dropped packets")
        XCTAssertGreaterThan(run.metrics.goodputMbps ?? 0, 0)
        return run
    }

    /// One run per transport of a `bytes` bulk transfer in `direction` through `profile`.
    private func bulkRuns(
        _ direction: Scenario.Bulk.Direction, bytes: Int64, profile: Profile, transports: [TransportKind]
    ) throws -> [RunRecord] {
        let scenario = Scenario(
            name: "bulk-\(direction.rawValue)", origins: [.init(id: "bulk", host: "bulk.netbench.test")], resources: [],
            bulk: .init(direction: direction, bytes: bytes)
        ).withBulkResource()
        let out = NSTemporaryDirectory() + "netbench-bulk-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        var request = RunRequest(
            suiteName: "bulk-test", scenarios: [("inline", scenario)], profiles: [profile],
            transports: transports, runs: 1, outputDirectory: out)
        request.library = library
        request.pageLoads.timeout = .seconds(60)
        return try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly().runs
    }
}
