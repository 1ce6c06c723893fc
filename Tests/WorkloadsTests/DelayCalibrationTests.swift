import Foundation
import XCTest
import TestSupport
import BenchCore
import BenchModel
import Runner
import LinkModel
import LinkEmulator
import Statistics
@testable import Testbed
@testable import Workloads

/// Jitter and reordering through the real emulator: timestamped one-way UDP probes each way
/// against the link model on the same send times (what `netbench calibrate` checks), and the
/// measured delay distribution and reordering rate a run records.
final class DelayCalibrationTests: XCTestCase {
    func testMeasuredDelayAndReorderingMatchTheModel() throws {
        try requireRoot("emulated runs need root (network namespaces and TUN devices)")
        let json = #"{"schemaVersion": 1, "name": "jitter", "rtt": "40ms", "down": "10Mbit", "up": "10Mbit", "#
            + #""downJitter": {"distribution": "normal", "deviation": "3ms"}, "downReorder": {"swap": "5%"}, "#
            + #""upJitter": {"distribution": "uniform", "deviation": "5ms", "reorder": true}}"#
        let profile = try JSONFile.decode(Profile.self, from: Data(json.utf8), file: "jitter.json")
        try profile.validate(file: "jitter.json")
        let floor = TimerFloor.measure(duration: .seconds(1))
        let interval = Nanoseconds.milliseconds(4), samples = 1_500
        let d = try XCTUnwrap(
            DelayCalibration.measure(
                profile: profile, samples: samples, interval: interval, emulator: EmulatorSettings(),
                timerFloor: floor))
        XCTAssertEqual(d.directions.map(\.name), ["up", "down"])
        for dir in d.directions {
            XCTAssertEqual(dir.measured.count, samples, dir.name)
            XCTAssertTrue(dir.checksDelay && dir.checksReordering, dir.name)
            XCTAssertTrue(
                dir.delayPasses, "\(dir.name): KS \(dir.ksDistance ?? -1) > \(dir.ksCritical)")
            XCTAssertTrue(
                dir.reorderingPasses,
                "\(dir.name): reordering \(dir.measuredRate) vs model \(dir.modelRate) ± \(dir.reorderTolerance)")
            XCTAssertGreaterThan(dir.measuredReordered, 0, dir.name)
            // The emulator's own count (every packet it forwarded: only the probes here) agrees.
            XCTAssertEqual(dir.emulatorForwarded, Int64(samples), dir.name)
            XCTAssertEqual(dir.emulatorReordered, Int64(dir.measuredReordered), dir.name)
            // The same test rejects a model twice as wide: it can fail.
            var wider = dir.configuration
            wider.delayVariation.jitter?.deviation *= 2
            let sim = LinkSimulation.run(
                wider, arrivals: (0..<samples).map { Nanoseconds($0) * interval }, size: 92, seed: 9)
            let ks = try XCTUnwrap(
                KolmogorovSmirnov.distance(dir.measured.map(Double.init), sim.releases.map { Double($0.delay) }))
            XCTAssertGreaterThan(ks, dir.ksCritical, dir.name)
        }
        // What a run records: the emulator's per-packet one-way delays and reordering, per direction.
        let stats = try XCTUnwrap(d.report.paths.first)
        for (name, histogram, counters, probes) in [
            ("up", stats.uplinkDelay, stats.uplink, d.directions[0].measured),
            ("down", stats.downlinkDelay, stats.downlink, d.directions[1].measured),
        ] {
            let record = LinkDirectionRecord(measured: histogram, counters: counters, path: "wifi", direction: name)
            XCTAssertEqual(record.packets, Int64(samples))
            XCTAssertEqual(record.reorderingRate, Double(counters.reordered.packets) / Double(samples))
            let q = try XCTUnwrap(record.oneWayDelayMs)
            // The emulator's part of each probe's trip (TUN read to TUN write) is most of it.
            let sorted = probes.sorted()
            let probeMedianMs = Double(sorted[sorted.count / 2]) / 1e6
            XCTAssertEqual(q.p50, probeMedianMs, accuracy: 1, name)
            XCTAssertLessThanOrEqual(q.p50, probeMedianMs, name)
            XCTAssertLessThan(q.p10, q.p90, name)
        }
    }
}
