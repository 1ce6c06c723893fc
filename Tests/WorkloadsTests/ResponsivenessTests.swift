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
/// the idle one; idle probes see about the configured 30 ms round trip.
final class ResponsivenessTests: XCTestCase {
    func testABloatedQueueCutsRoundTripsPerMinute() throws {
        try requireRoot("emulated runs need root (network namespaces and TUN devices)")
        let library = Library(root: packageRoot + "/Scenarios")
        let profile = try XCTUnwrap(
            ResponsivenessQueue.drainTime(.seconds(1)).applied(to: try library.profile("interop")))
        var run = ResponsivenessRun(profile: profile, transport: .h2, library: library)
        run.idleDuration = .milliseconds(600)
        run.rampUp = .milliseconds(2500)
        run.loadedDuration = .milliseconds(1000)
        let o = try run.execute()
        let idle = try XCTUnwrap(o.idle.result, "idle: \(o.idle.firstFailure ?? "no probe answered")")
        let loaded = try XCTUnwrap(o.loaded.result, "loaded: \(o.loaded.firstFailure ?? "no probe answered")")
        XCTAssertEqual(o.queueLimitBytes, 1_250_000)
        // Idle: a 1-byte GET is one round trip (30 ms) plus the machine's own time.
        XCTAssertGreaterThan(idle.selfHTTPMs, 29)
        XCTAssertLessThan(idle.selfHTTPMs, 200)
        XCTAssertGreaterThan(
            loaded.selfHTTPMs, 3 * idle.selfHTTPMs, "the queue delays the loaded connection's requests")
        XCTAssertLessThan(loaded.rpm, idle.rpm / 2)
        XCTAssertGreaterThan(o.loadMbps ?? 0, 8, "the load fills the 10 Mbit/s link")
    }
}
