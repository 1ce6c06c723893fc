import Foundation
import XCTest
import BenchCore
import BenchModel
import Runner
@testable import Testbed
@testable import Workloads
import NetbenchCommands
import TestSupport

/// Latency under load through the emulator: with a bloated (1 s) queue on the interop link, four
/// bulk downloads make every round trip wait behind the queue, so the loaded RPM falls far below
/// the idle one; idle probes see about the configured 30 ms round trip. Uploads bloat the uplink's
/// queue the same way, and a small queue keeps their RPM high.
final class ResponsivenessTests: XCTestCase {
    private func run(
        _ queue: ResponsivenessQueue, _ direction: ResponsivenessRun.Direction, _ transport: TransportKind = .h2,
        mode: ResponsivenessRun.Mode = .parallel, ecn: Bool = false
    ) throws -> ResponsivenessRun.Outcome {
        let library = Library(root: packageRoot + "/Scenarios")
        let profile = try XCTUnwrap(queue.applied(to: try library.profile("interop")))
        var run = ResponsivenessRun(profile: profile, transport: transport, library: library)
        run.direction = direction
        run.mode = mode
        run.ecn = ecn
        run.idleDuration = .milliseconds(600)
        run.rampUp = .milliseconds(2500)
        run.loadedDuration = .milliseconds(1000)
        return try run.execute()
    }

    func testABloatedQueueCutsRoundTripsPerMinute() throws {
        try requireRoot("emulated runs need root (network namespaces and TUN devices)")
        let o = try run(.drainTime(.seconds(1)), .down)
        let idle = try XCTUnwrap(o.idle.result, "idle: \(o.idle.firstFailure ?? "no probe answered")")
        XCTAssertEqual(o.loaded.count, 1)
        let phase = try XCTUnwrap(o.loaded.first)
        let loaded = try XCTUnwrap(phase.probes.result, "loaded: \(phase.probes.firstFailure ?? "no probe answered")")
        XCTAssertEqual(o.queueLimitBytes, 1_250_000)
        // Idle: a 1-byte GET is one round trip (30 ms) plus the machine's own time.
        XCTAssertGreaterThan(idle.selfHTTPMs, 29)
        XCTAssertLessThan(idle.selfHTTPMs, 200)
        XCTAssertGreaterThan(
            loaded.selfHTTPMs, 3 * idle.selfHTTPMs, "the queue delays the loaded connection's requests")
        XCTAssertLessThan(loaded.rpm, idle.rpm / 2)
        XCTAssertGreaterThan(phase.downloadMbps ?? 0, 8, "the load fills the 10 Mbit/s link")
        XCTAssertNil(phase.uploadMbps)
        XCTAssertEqual(phase.ecnConnections, 0, "no ECN asked for")
    }

    /// With `ecn`, every load connection negotiates ECN (TCP through the emulated namespaces) or
    /// keeps it validated (QUIC): the loads can react to the CE marks of an AQM.
    func testWithECNTheLoadConnectionsUseIt() throws {
        try requireRoot("emulated runs need root (network namespaces and TUN devices)")
        for transport in [TransportKind.h2, .h3] {
            let o = try run(.bdp(multiple: 1), .down, transport, ecn: true)
            let phase = try XCTUnwrap(o.loaded.first)
            XCTAssertEqual(phase.ecnConnections, 4, "\(transport): all four load connections use ECN")
            XCTAssertNotNil(phase.probes.result, "\(transport): \(phase.probes.firstFailure ?? "no RPM")")
        }
    }

    /// Uploads through the 10 Mbit/s uplink: with 1 s of drop-tail buffer a new connection waits behind
    /// the uploads' data in the uplink's queue, with one BDP it does not; the RPM says so. (The h2
    /// server's 64 KiB stream windows, nginx's, keep 4 uploads from filling all of 1 s: about
    /// 200 ms stand in the queue, so the foreign probes show it most.)
    func testUploadsThroughALargeBufferLoseRoundTripsPerMinute() throws {
        try requireRoot("emulated runs need root (network namespaces and TUN devices)")
        let small = try run(.bdp(multiple: 1), .up)
        let large = try run(.drainTime(.seconds(1)), .up)
        let s = try XCTUnwrap(small.loaded.first), l = try XCTUnwrap(large.loaded.first)
        let sr = try XCTUnwrap(s.probes.result, "small: \(s.probes.firstFailure ?? "no probe answered")")
        let lr = try XCTUnwrap(l.probes.result, "large: \(l.probes.firstFailure ?? "no probe answered")")
        XCTAssertNil(s.downloadMbps)
        XCTAssertGreaterThan(s.uploadMbps ?? 0, 7, "the uploads fill the uplink (small buffer)")
        XCTAssertGreaterThan(l.uploadMbps ?? 0, 7, "the uploads fill the uplink (large buffer)")
        XCTAssertLessThan(lr.rpm, 0.75 * sr.rpm, "1 s of buffer: RPM \(lr.rpm) vs one BDP: \(sr.rpm)")
        XCTAssertLessThan(lr.foreignRPM, sr.foreignRPM / 2, "new connections wait in the uplink's queue")
        // Requests on the upload connections are not compared: they wait mostly behind their own
        // connection's unsent data in the client (the bufferbloat study: Cable's upload self RPM is
        // 27–46 under every queue), so the bottleneck's buffer moves them by less than run-to-run noise.
        XCTAssertGreaterThan(lr.selfHTTPMs, 0, "the self probes on the upload connections were answered")
        XCTAssertEqual(s.probes.selfEstimated, 0, "h2 self probes are GETs")
    }

    /// Bidirectional and sequential over HTTP/3: a download phase, then an upload phase, each with
    /// its goodput and RPM; the upload's self probes are the QUIC RTT estimate (see
    /// `ResponsivenessProbes.selfEstimate`), which the 1 s queue inflates.
    func testSequentialBidirectionalMeasuresEachDirection() throws {
        try requireRoot("emulated runs need root (network namespaces and TUN devices)")
        let o = try run(.drainTime(.seconds(1)), .bidir, .h3, mode: .sequential)
        XCTAssertEqual(o.loaded.map(\.load), [.down, .up])
        let down = o.loaded[0], up = o.loaded[1]
        XCTAssertGreaterThan(down.downloadMbps ?? 0, 7)
        XCTAssertNil(down.uploadMbps)
        XCTAssertEqual(down.probes.selfEstimated, 0)
        XCTAssertGreaterThan(up.uploadMbps ?? 0, 7)
        XCTAssertNil(up.downloadMbps)
        XCTAssertGreaterThan(up.probes.selfEstimated, 0)
        let idle = try XCTUnwrap(o.idle.result)
        for phase in o.loaded {
            let r = try XCTUnwrap(phase.probes.result, "\(phase.load): \(phase.probes.firstFailure ?? "no RPM")")
            XCTAssertLessThan(r.rpm, idle.rpm / 2, "\(phase.load): the loaded queue cuts the RPM")
        }
    }

    /// Bidirectional, sequential: two loaded phases, a download and then an upload, each measured.
    func testSequentialBidirectionalLoadsEachDirectionInTurn() throws {
        let library = Library(root: packageRoot + "/Scenarios")
        var run = ResponsivenessRun(
            profile: try library.profile("interop"), transport: .h3, library: library)
        run.direction = .bidir
        run.mode = .sequential
        XCTAssertEqual(run.phases, [.down, .up])
        run.mode = .parallel
        XCTAssertEqual(run.phases, [.bidir])
        run.direction = .up
        run.mode = .sequential
        XCTAssertEqual(run.phases, [.up], "a mode matters for bidir only")
    }

    func testGoodputCountsWholeBinsBetweenTheTimes() {
        var a = ThroughputBins(width: .milliseconds(100)), b = ThroughputBins(width: .milliseconds(100))
        for k in 0..<10 {
            a.add(125_000, at: .milliseconds(Double(k * 100 + 50)))
            b.add(62_500, at: .milliseconds(Double(k * 100 + 50)))
        }
        // From 250 ms to 720 ms: bins 3…6 (4 whole bins, 0.4 s) of 187,500 bytes: 15 Mbit/s.
        let mbps = ResponsivenessRun.goodputMbps([a, b], from: .milliseconds(250), to: .milliseconds(720))
        XCTAssertEqual(mbps ?? 0, 15, accuracy: 1e-9)
        XCTAssertNil(ResponsivenessRun.goodputMbps([a], from: .milliseconds(250), to: .milliseconds(300)))
    }
}
