import Foundation
import XCTest
import BenchCore
import BenchModel
import Runner
@testable import Testbed
import NetbenchCommands
import TestSupport

/// ECN end to end (issue 26): a 10 MB download through a 20 Mbit/s CoDel bottleneck that marks ECT
/// packets. With `--ecn` and cubic, TCP negotiates ECN and CoDel marks instead of dropping: the
/// queue drops at most 1% of what the same run drops without ECN. Over HTTP/3 every CE mark the
/// emulator made on the downlink arrives at the client's socket: the connection's received CE
/// count equals the emulator's marks.
final class ECNThroughAQMTests: XCTestCase {
    private let scenarioPath = packageRoot + "/Scenarios/pages/bulk-10MB-download.json"

    private func profile() throws -> Profile {
        let json =
            #"{"schemaVersion": 1, "name": "codel-ecn", "rtt": "20ms", "down": "20Mbit", "up": "20Mbit", "#
            + #""queue": {"discipline": "codel", "ecn": true}}"#
        var p = try JSONFile.decode(Profile.self, from: Data(json.utf8), file: "codel-ecn.json")
        try p.validate(file: "codel-ecn.json")
        p.queue = p.queue?.withDefaults
        return p
    }

    private func run(_ transport: TransportKind, ecn: Bool) throws -> RunRecord {
        let out = NSTemporaryDirectory() + "netbench-ecn-aqm-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let scenario = try Scenario.load(from: scenarioPath)
        var request = RunRequest(
            suiteName: "ecn-aqm", scenarios: [(scenarioPath, scenario)], profiles: [try profile()],
            transports: [transport], runs: 1, outputDirectory: out)
        request.library = Library(root: packageRoot + "/Scenarios")
        request.server.ecn = ecn
        request.server.tcpCongestionControl = "cubic"
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        let run = try XCTUnwrap(results.runs.first)
        XCTAssertEqual(run.status, .ok, run.error ?? "")
        return run
    }

    func testTCPWithECNIsMarkedWhereWithoutItIsDropped() throws {
        try requireRoot("emulated runs need root (network namespaces and TUN devices)")
        let without = try run(.h2, ecn: false)
        let with = try run(.h2, ecn: true)
        let droppedWithout = try XCTUnwrap(without.emulator?.packetsDroppedQueueDown)
        let droppedWith = try XCTUnwrap(with.emulator?.packetsDroppedQueueDown)
        let marked = try XCTUnwrap(with.emulator?.packetsMarkedCEDown)
        XCTAssertGreaterThan(droppedWithout, 0, "CoDel drops Not-ECT packets of a saturating flow")
        XCTAssertEqual(without.emulator?.packetsMarkedCEDown ?? 0, 0, "nothing is ECT without --ecn")
        XCTAssertGreaterThan(marked, 0, "with ECN CoDel marks CE")
        XCTAssertLessThanOrEqual(
            Double(droppedWith), 0.01 * Double(droppedWithout),
            "with ECN: \(droppedWith) dropped, \(marked) marked; without: \(droppedWithout) dropped")
        for c in with.connections { XCTAssertEqual(c.ecn?.negotiated, true, "connection \(c.id) negotiated ECN") }
    }

    func testQUICReceivedCECountsEqualTheEmulatorsMarks() throws {
        try requireRoot("emulated runs need root (network namespaces and TUN devices)")
        let run = try run(.h3, ecn: true)
        let marked = try XCTUnwrap(run.emulator?.packetsMarkedCEDown)
        XCTAssertGreaterThan(marked, 0, "a saturating QUIC flow through CoDel with ECN gets marks")
        let received = run.connections.reduce(Int64(0)) { $0 + Int64($1.ecn?.received?.ce ?? 0) }
        XCTAssertEqual(received, marked, "every CE mark on the downlink reached the client's socket")
        XCTAssertEqual(run.emulator?.packetsDroppedQueueDown ?? 0, 0, "ECT packets are marked, not dropped")
    }
}
