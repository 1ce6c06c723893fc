import XCTest
import BenchCore
import LinkModel
import LinkEmulator

/// Through real namespaces and the packet loop. Tolerances are generous (a loaded 2-core CI
/// machine); the calibration figures, not these tests, are held to the tight targets.
final class ForwardingTests: XCTestCase {
    func testRoundTripAt40ms() throws {
        try requireEmulationPrivileges()
        let network = try EmulatedNetwork.create(paths: [
            .symmetric(
                name: "wifi", roundTrip: .milliseconds(40),
                rate: .constant(bitsPerSecond: 100e6))
        ])
        defer { network.teardown() }
        try network.start()
        let rtts = try Calibration.measureRoundTrip(on: network, samples: 40, interval: .milliseconds(5))
        let report = try network.stop()
        XCTAssertGreaterThanOrEqual(rtts.count, 38)
        XCTAssertEqual(Double(median(rtts)) / 1e6, 40, accuracy: 2, "RTT median")
        XCTAssertEqual(report.paths[0].uplink.forwarded.packets, Int64(rtts.count), accuracy: 2)
        XCTAssertGreaterThan(report.releasedPackets, 0)
    }

    func testGoodputAt20Mbit() throws {
        try requireEmulationPrivileges()
        let rate = 20e6
        let network = try EmulatedNetwork.create(paths: [
            .symmetric(
                name: "wifi", roundTrip: .milliseconds(40),
                rate: .constant(bitsPerSecond: rate))
        ])
        defer { network.teardown() }
        try network.start()
        let g = try Calibration.measureGoodput(on: network, duration: .seconds(6), warmup: .seconds(2))
        let report = try network.stop()
        let share = g.bitsPerSecond / rate
        XCTAssertGreaterThanOrEqual(share, 0.80, "goodput \(g.bitsPerSecond) bit/s")
        XCTAssertLessThanOrEqual(share, 1.02, "goodput \(g.bitsPerSecond) bit/s")
        XCTAssertGreaterThan(report.paths[0].downlink.forwarded.bytes, g.bytes)
    }

    func testGoodputThroughATraceLink() throws {
        try requireEmulationPrivileges()
        // A trace of one opportunity per millisecond: 12 Mbit/s (Mahimahi's own example).
        let trace = try MahimahiTrace.parse(text: "1\n")
        let network = try EmulatedNetwork.create(paths: [
            .symmetric(name: "cell", roundTrip: .milliseconds(40), rate: .trace(trace))
        ])
        defer { network.teardown() }
        try network.start()
        let g = try Calibration.measureGoodput(on: network, duration: .seconds(5), warmup: .seconds(2))
        _ = try network.stop()
        let share = g.bitsPerSecond / 12e6
        XCTAssertGreaterThanOrEqual(share, 0.80, "goodput \(g.bitsPerSecond) bit/s")
        XCTAssertLessThanOrEqual(share, 1.02, "goodput \(g.bitsPerSecond) bit/s")
    }

    func testEverythingDroppedAtFullLoss() throws {
        try requireEmulationPrivileges()
        let network = try EmulatedNetwork.create(paths: [
            .symmetric(name: "wifi", roundTrip: .milliseconds(10), loss: .bernoulli(1))
        ])
        defer { network.teardown() }
        try network.start()
        let rtts = try Calibration.measureRoundTrip(
            on: network, samples: 20, interval: .milliseconds(2), timeout: .milliseconds(300))
        let report = try network.stop()
        XCTAssertEqual(rtts, [])
        XCTAssertEqual(report.paths[0].uplink.droppedByLoss.packets, 20)
        XCTAssertEqual(report.paths[0].uplink.forwarded.packets, 0)
        XCTAssertEqual(report.paths[0].downlink.forwarded.packets, 0)
    }

    func testPathDownDropsAndBindingPicksThePath() throws {
        try requireEmulationPrivileges()
        let network = try EmulatedNetwork.create(paths: [
            .symmetric(name: "wifi", roundTrip: .milliseconds(10)),
            .symmetric(name: "cell", roundTrip: .milliseconds(50)),
        ])
        defer { network.teardown() }
        try network.start()
        // Each path has its own RTT: the client's source address picks the path.
        XCTAssertEqual(
            Double(median(try Calibration.measureRoundTrip(on: network, path: "wifi", samples: 10))) / 1e6, 10,
            accuracy: 2)
        XCTAssertEqual(
            Double(median(try Calibration.measureRoundTrip(on: network, path: "cell", samples: 10))) / 1e6, 50,
            accuracy: 2)
        try network.setPath("wifi", up: false)
        Thread.sleep(forTimeInterval: 0.01)
        XCTAssertEqual(
            try Calibration.measureRoundTrip(on: network, path: "wifi", samples: 5, timeout: .milliseconds(200)), [])
        XCTAssertEqual(try Calibration.measureRoundTrip(on: network, path: "cell", samples: 5).count, 5)
        try network.setPath("wifi", up: true)
        Thread.sleep(forTimeInterval: 0.01)
        XCTAssertEqual(try Calibration.measureRoundTrip(on: network, path: "wifi", samples: 5).count, 5)
        let report = try network.stop()
        XCTAssertEqual(report.paths[0].uplink.droppedByOutage.packets, 5)
        XCTAssertEqual(report.pathEvents.map(\.action), [.down, .up])
    }

    func testScheduledEvents() throws {
        try requireEmulationPrivileges()
        let network = try EmulatedNetwork.create(paths: [
            .symmetric(name: "wifi", roundTrip: .milliseconds(10)),
            .symmetric(name: "cell", roundTrip: .milliseconds(30)),
        ])
        defer { network.teardown() }
        try network.start(schedule: [PathEvent(at: .milliseconds(50), path: "wifi", action: .down)])
        try network.schedule([PathEvent(at: .milliseconds(60), path: "cell", action: .activate)])
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(network.activePath, "cell")
        XCTAssertEqual(
            try Calibration.measureRoundTrip(on: network, path: "wifi", samples: 3, timeout: .milliseconds(100)), [])
        let report = try network.stop()
        XCTAssertEqual(report.pathEvents.map(\.action), [.down, .activate])
        XCTAssertEqual(report.pathEvents.first?.scheduledAt, .milliseconds(50))
        XCTAssertLessThan(report.pathEvents[0].appliedAt - .milliseconds(50), .milliseconds(5))
    }
}
