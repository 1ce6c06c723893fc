import Foundation
import XCTest
import BenchCore
import LinkModel
import LinkEmulator

/// `stop(drain:)` through real namespaces: it returns once the links are empty and quiet, and
/// gives up (saying so) while packets keep coming.
final class DrainTests: XCTestCase {
    func network() throws -> EmulatedNetwork {
        try requireEmulationPrivileges()
        return try EmulatedNetwork.create(paths: [
            .symmetric(name: "wifi", roundTrip: .milliseconds(20), rate: .constant(bitsPerSecond: 10e6))
        ])
    }

    func testAQuietNetworkDrainsAndEveryDepartureWasReleased() throws {
        let network = try network()
        defer { network.teardown() }
        try network.start()
        let rtts = try Calibration.measureRoundTrip(on: network, samples: 10, interval: .milliseconds(5))
        let began = Instant.now()
        let report = try network.stop(drain: Drain(quiet: .milliseconds(50), timeout: .seconds(2)))
        XCTAssertEqual(report.drained, true)
        XCTAssertLessThan(Instant.now().since(began), .milliseconds(1_000), "drained well before the timeout")
        XCTAssertGreaterThanOrEqual(rtts.count, 9)
        for (name, c, q) in [
            ("up", report.paths[0].uplink, report.paths[0].uplinkQueueing),
            ("down", report.paths[0].downlink, report.paths[0].downlinkQueueing),
        ] {
            XCTAssertEqual(c.received.packets, c.forwarded.packets + c.dropped.packets, name)
            XCTAssertEqual(q?.sojourn.count, c.forwarded.packets, "\(name): every departure was released")
            // An echo of ~100 B at 10 Mbit/s serializes in ~80 µs, and nothing queues ahead of it.
            XCTAssertLessThan(q?.sojourn.percentile(0.5) ?? .max, .milliseconds(1), name)
        }
    }

    func testTrafficThatNeverFallsQuietTimesOut() throws {
        let network = try network()
        defer { network.teardown() }
        try network.start()
        let pinging = DispatchSemaphore(value: 0)
        Thread {
            _ = try? Calibration.measureRoundTrip(on: network, samples: 100, interval: .milliseconds(5))
            pinging.signal()
        }.start()
        Thread.sleep(forTimeInterval: 0.05)
        let report = try network.stop(drain: Drain(quiet: .milliseconds(50), timeout: .milliseconds(200)))
        XCTAssertEqual(report.drained, false, "an echo every 5 ms never leaves 50 ms of quiet")
        pinging.wait()
    }
}
