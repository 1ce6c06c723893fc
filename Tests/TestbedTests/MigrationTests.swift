import Foundation
import XCTest
import TestSupport
import BenchCore
import BenchModel
import Runner
@testable import Testbed
import NetbenchCommands

/// Path changes in the middle of a load, through the link emulator in namespaces the test creates
/// (and the runner removes, also on failure): QUIC migrates without a new handshake; TCP reconnects
/// and resumes with range requests, fetching every byte exactly once.
final class MigrationTests: XCTestCase {
    let library = Library(root: packageRoot + "/Scenarios")

    override func setUpWithError() throws {
        try requireRoot("needs root (network namespaces and TUN devices)")
    }

    override func tearDown() {
        // Only this process's namespaces (their names carry its PID): others may be running.
        let mine = "nb-\(getpid())-"
        let left =
            (try? FileManager.default.contentsOfDirectory(atPath: "/var/run/netns"))?.filter { $0.hasPrefix(mine) }
            ?? []
        XCTAssertEqual(left, [], "namespaces left behind")
    }

    /// A 6 MB download that starts on Wi-Fi (50 Mbit/s, 20 ms) and is moved to LTE (12 Mbit/s, 70 ms) at 400 ms.
    func switchRun(
        _ transport: TransportKind, events: [Profile.PathEventSpec]? = nil, tcp: Profile.TCPMigration = .abort
    ) throws -> RunRecord {
        var profile = Profile(name: "test-switch", source: "test")
        profile.paths = [.init(name: "wifi", profile: "WiFi"), .init(name: "cell", profile: "LTE")]
        profile.events = events ?? [.init(at: .ms(400), type: .switch, to: "cell")]
        profile.tcpMigration = tcp
        try profile.validate(file: "test")
        let scenario = Scenario(
            name: "bulk-6MB", origins: [.init(id: "bulk", host: "bulk.netbench.test")], resources: [],
            bulk: .init(direction: .download, bytes: 6_000_000)
        ).withBulkResource()
        let out = NSTemporaryDirectory() + "netbench-mig-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        var request = RunRequest(
            suiteName: "migration-test", scenarios: [("inline", scenario)], profiles: [profile],
            transports: [transport], runs: 1, outputDirectory: out)
        request.library = library
        request.pageLoads.timeout = .seconds(60)
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        let run = try XCTUnwrap(results.runs.first)
        XCTAssertEqual(run.status, .ok, run.error ?? "")
        XCTAssertEqual(run.requests.first?.bytes, 6_000_000, "every byte arrived")
        XCTAssertFalse(run.pathEvents.isEmpty, "the event is recorded")
        return run
    }

    func testH3SurvivesAWiFiToLTESwitchWithoutANewHandshake() throws {
        let run = try switchRun(.h3)
        let m = try XCTUnwrap(run.metrics.migration)
        XCTAssertTrue(m.survived)
        XCTAssertEqual(m.extraHandshakes, 0)
        XCTAssertEqual(run.connections.count, 1, "one QUIC connection from start to end")
        let validation = try XCTUnwrap(run.connections.first?.quic?.pathValidations?.first)
        XCTAssertNotNil(validation.validatedAt, "the new path was validated (PATH_CHALLENGE/RESPONSE)")
        // The stall is the new path's round trip (70 ms) plus loss recovery of what was in flight
        // on the old path; 250 ms of margin keeps a loaded 2-core CI machine from flaking.
        let stall = try XCTUnwrap(m.stallMs)
        XCTAssertLessThan(stall, 70 + 250, "stall \(stall) ms")
        XCTAssertNotNil(m.baselinePltMs, "paired with a load without the switch")
    }

    func testH2ReconnectsAndFetchesEveryByteExactlyOnce() throws {
        let run = try switchRun(.h2)
        let m = try XCTUnwrap(run.metrics.migration)
        XCTAssertFalse(m.survived, "TCP cannot survive the loss of its interface")
        XCTAssertGreaterThanOrEqual(m.extraHandshakes, 1)
        XCTAssertEqual(m.bytesRedownloaded, 0, "the re-request asked only for what was missing")
        XCTAssertEqual(run.requests.first?.status, 206, "resumed with a range request")
        XCTAssertEqual(run.connections.count, 2)
        XCTAssertNotNil(run.connections.first?.error)
        XCTAssertTrue(
            run.connections.last?.localAddress?.hasPrefix("198.18.2.") ?? false, "reconnected on the cellular path")
    }

    func testNATRebindingOverH3CompletesOnTheSameConnection() throws {
        for type in [Profile.PathEventType.rebindPort, .rebindAddr] {
            let run = try switchRun(.h3, events: [.init(at: .ms(400), type: type)])
            let m = try XCTUnwrap(run.metrics.migration, type.rawValue)
            XCTAssertTrue(m.survived, "\(type.rawValue): the QUIC server followed the client's new address")
            XCTAssertEqual(m.extraHandshakes, 0, type.rawValue)
            XCTAssertEqual(run.connections.count, 1, type.rawValue)
        }
    }

    func testNATRebindingResetsTCPWhichReconnects() throws {
        let run = try switchRun(.h2, events: [.init(at: .ms(400), type: .rebindPort)])
        let m = try XCTUnwrap(run.metrics.migration)
        XCTAssertFalse(m.survived)
        XCTAssertEqual(m.bytesRedownloaded, 0)
        XCTAssertTrue(
            run.connections.first?.error?.contains("reset") ?? false,
            "the server answered the unknown 4-tuple with RST: \(run.connections.first?.error ?? "-")")
    }

    func testH1ReconnectsToo() throws {
        let run = try switchRun(.h1)
        XCTAssertEqual(run.metrics.migration?.bytesRedownloaded, 0)
        XCTAssertGreaterThanOrEqual(run.metrics.migration?.extraHandshakes ?? 0, 1)
    }
}
