import XCTest
import Foundation
import BenchCore
import LinkModel
import LinkEmulator

/// The calibration figures (RTT error, goodput share, release lateness) at the rates and RTTs the
/// targets name. Slow (about a minute) and meant for a release build on a quiet machine, so it
/// runs only when NETBENCH_CALIBRATE=1:
///   NETBENCH_CALIBRATE=1 swift test -c release -Xswiftc -enable-testing --filter CalibrationFigures
/// It prints the figures and asserts nothing about timing (targets belong to calibration output).
final class CalibrationFiguresTests: XCTestCase {
    override func setUp() async throws {
        guard ProcessInfo.processInfo.environment["NETBENCH_CALIBRATE"] == "1" else {
            throw XCTSkip("calibration figures run only with NETBENCH_CALIBRATE=1")
        }
        try requireEmulationPrivileges()
    }

    private func ms(_ ns: Nanoseconds) -> String { Units.format(Double(ns) / 1e6, 3) }

    /// NETBENCH_LOOP_NICE=none|N overrides the packet loop's nice value, NETBENCH_LOOP_FIFO=N
    /// puts it under SCHED_FIFO (for experiments).
    private var options: EmulatedNetwork.Options {
        var o = EmulatedNetwork.Options()
        if let v = ProcessInfo.processInfo.environment["NETBENCH_LOOP_NICE"] { o.loopNice = Int32(v) }
        if let v = ProcessInfo.processInfo.environment["NETBENCH_LOOP_FIFO"] { o.loopRealtimePriority = Int32(v) }
        return o
    }

    func testRoundTripError() throws {
        let env = ProcessInfo.processInfo.environment
        let rtts = env["NETBENCH_CALIBRATE_RTTS"].map { $0.split(separator: ",").compactMap { Double($0) } } ?? [40, 200]
        for rtt in rtts {
            let rate = 100e6
            let network = try EmulatedNetwork.create(paths: [.symmetric(name: "wifi", roundTrip: .milliseconds(rtt),
                                                                        rate: .constant(bitsPerSecond: rate))], options: options)
            defer { network.teardown() }
            try network.start()
            let payload = 64
            let samples = try Calibration.measureRoundTrip(on: network, samples: 300, interval: .milliseconds(5), payloadBytes: payload)
            let report = try network.stop()
            // Ideal: the two one-way delays plus the probe's serialization each way.
            let serialization = Nanoseconds((Double(payload + 28) * 8 / rate * 1e9).rounded())
            let ideal = Nanoseconds.milliseconds(rtt) + 2 * serialization
            let errors = samples.map { $0 - ideal }
            print("CALIBRATION rtt=\(Int(rtt))ms samples=\(samples.count) error median=\(ms(median(errors)))ms p99=\(ms(percentile(errors, 0.99)))ms min=\(ms(errors.min() ?? 0))ms max=\(ms(errors.max() ?? 0))ms lateness p50=\(ms(report.latenessP50))ms p99=\(ms(report.latenessP99))ms loopRunQueueWait=\(ms(report.loopRunQueueWait ?? 0))ms flagged=\(report.flagged) \(report.flagReasons)")
        }
    }

    func testGoodput() throws {
        let env = ProcessInfo.processInfo.environment
        let rates = env["NETBENCH_CALIBRATE_RATES"].map { $0.split(separator: ",").compactMap { Double($0) } } ?? [10, 100, 500]
        for mbit in rates {
            let rate = mbit * 1e6
            let network = try EmulatedNetwork.create(paths: [.symmetric(name: "wifi", roundTrip: .milliseconds(40),
                                                                        rate: .constant(bitsPerSecond: rate))], options: options)
            defer { network.teardown() }
            try network.start()
            let g = try Calibration.measureGoodput(on: network, duration: .seconds(12), warmup: .seconds(3))
            let report = try network.stop()
            let down = report.paths[0].downlink
            let txDrops = report.tunTxDrops
            print("CALIBRATION goodput cap=\(Int(mbit))Mbit/s measured=\(Units.format(g.bitsPerSecond / 1e6, 2))Mbit/s share=\(Units.format(100 * g.bitsPerSecond / rate, 1))% lateness p50=\(ms(report.latenessP50))ms p99=\(ms(report.latenessP99))ms max=\(ms(report.latenessMax))ms queueDrops=\(down.droppedByQueue.packets) forwarded=\(down.forwarded.packets) tunTxDrops=\(txDrops) loopCPU=\(ms(report.loopCPUTime ?? 0))ms loopRunQueueWait=\(ms(report.loopRunQueueWait ?? 0))ms flagged=\(report.flagged) \(report.flagReasons)")
        }
    }
}
