import Foundation
import XCTest
import BenchCore
import BenchModel
import Runner
@testable import Testbed
import NetbenchCommands
import TestSupport

/// `run --ecn` at the endpoints, as results.json records it per connection. QUIC over loopback:
/// the server's datagrams leave ECT(0) and the client's socket reads that codepoint on each of them;
/// without ECN they arrive Not-ECT. TCP through the emulator: the handshake negotiates ECN
/// (TCP_INFO) only when the namespaces ask for it.
final class ECNRecordTests: XCTestCase {
    private let scenarioPath = Fixture.path("small-page.json")

    private func run(_ profile: Profile, _ transport: TransportKind, ecn: Bool) throws -> RunRecord {
        let out = NSTemporaryDirectory() + "netbench-ecn-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let scenario = try Scenario.load(from: scenarioPath)
        var request = RunRequest(
            suiteName: "ecn", scenarios: [(scenarioPath, scenario)], profiles: [profile],
            transports: [transport], runs: 1, outputDirectory: out)
        request.library = Library(root: packageRoot + "/Scenarios")
        request.server.ecn = ecn
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        let run = try XCTUnwrap(results.runs.first)
        XCTAssertEqual(run.status, .ok, run.error ?? "")
        XCTAssertEqual(run.server?.ecn, ecn ? true : nil)
        return run
    }

    func testQUICDatagramsCarryECT0AndEveryOneIsCounted() throws {
        let run = try self.run(.loopback, .h3, ecn: true)
        XCTAssertFalse(run.connections.isEmpty)
        for c in run.connections {
            let ecn = try XCTUnwrap(c.ecn, "connection \(c.id) has an ECN record")
            let received = try XCTUnwrap(ecn.received)
            XCTAssertGreaterThan(received.ect0, 0, "the server's datagrams arrive ECT(0)")
            XCTAssertEqual(received.ce, 0, "loopback marks nothing")
            XCTAssertEqual(received.total, c.quic?.packetsReceived, "one codepoint per datagram received")
            XCTAssertGreaterThan(try XCTUnwrap(ecn.sentECT0), 0, "the client marked its datagrams too")
            XCTAssertTrue(ecn.negotiated, "ngtcp2 still asks for ECT(0): validation did not fail")
        }
    }

    func testWithoutECNEveryQUICDatagramIsNotECT() throws {
        let run = try self.run(.loopback, .h3, ecn: false)
        XCTAssertFalse(run.connections.isEmpty)
        for c in run.connections {
            let ecn = try XCTUnwrap(c.ecn)
            let received = try XCTUnwrap(ecn.received)
            XCTAssertGreaterThan(received.notECT, 0)
            XCTAssertEqual(received.notECT, received.total, "no datagram arrived marked")
            XCTAssertEqual(received.total, c.quic?.packetsReceived)
            XCTAssertNil(ecn.sentECT0)
            XCTAssertFalse(ecn.negotiated)
        }
    }

    func testTCPNegotiatesECNInTheEmulatedNamespacesWhenAsked() throws {
        try requireRoot("emulated runs need root (network namespaces and TUN devices)")
        let library = Library(root: packageRoot + "/Scenarios")
        let interop = try library.profile("interop")
        let on = try run(interop, .h2, ecn: true)
        XCTAssertFalse(on.connections.isEmpty)
        for c in on.connections {
            XCTAssertEqual(c.ecn?.negotiated, true, "tcp_ecn=1: the SYN asked and the server agreed")
            XCTAssertEqual(c.congestionControl, "cubic", "the record says which sender reacts to CE")
            XCTAssertEqual(c.serverTCP?.ecnNegotiated, true, "the server's end agrees")
        }
        let off = try run(interop, .h2, ecn: false)
        XCTAssertFalse(off.connections.isEmpty)
        for c in off.connections { XCTAssertEqual(c.ecn?.negotiated, false, "the kernel's default does not ask") }
    }

    func testBBRWithECNIsRefused() {
        var s = ServerSettings.benchmark
        s.ecn = true
        XCTAssertNoThrow(try s.checkECN(tcp: true, quic: true))
        s.tcpCongestionControl = "bbr"
        XCTAssertThrowsError(try s.checkECN(tcp: true, quic: false)) { XCTAssertTrue("\($0)".contains("bbr")) }
        XCTAssertNoThrow(try s.checkECN(tcp: false, quic: true), "an h3-only plan opens no TCP connection")
        s.tcpCongestionControl = "cubic"
        s.quicCongestionControl = .bbr
        XCTAssertThrowsError(try s.checkECN(tcp: true, quic: true))
        s.ecn = false
        XCTAssertNoThrow(try s.checkECN(tcp: true, quic: true))
    }
}
