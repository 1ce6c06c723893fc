import Foundation
import BenchCore
import BenchModel
import LinkModel
import LinkEmulator

/// What `netbench calibrate` measured for one profile: the emulator against what it claims.
public struct CalibrationResult: Sendable {
    public var profile: Profile
    public var configuredRTT: Nanoseconds
    /// UDP echo round trips (kernel receive timestamps, the echo's dwell removed).
    public var rttSamples: [Nanoseconds]
    public var probesSent: Int
    public var configuredDownBitsPerSecond: Double?
    public var goodput: GoodputMeasurement?
    public var latenessP50: Nanoseconds
    public var latenessP99: Nanoseconds
    public var tunDrops: Int64
    public var flagReasons: [String]
    public var congestionControl: String
    /// The timer floor this calibration was judged against.
    public var timerFloor: TimerFloor
    /// The emulator's whole report (lateness, CPU share, run-queue wait, steal, precise margin).
    public var report: EmulatorReport
}

public enum CalibrationRun {
    /// Creates the profile's network, measures RTT (`samples` UDP echoes) and, unless `goodputDuration`
    /// is nil, the TCP goodput of one connection downstream; removes the network again, also on error.
    /// `realtime`: run the packet loop under SCHED_FIFO (steadier under co-tenant load at moderate
    /// rates; worse at saturation, where it starves the kernel's own work).
    public static func measure(profile: Profile, samples: Int, goodputDuration: Nanoseconds?, seed: UInt64 = 1,
                               realtime: Bool = false, precise: Bool = false, timerFloor: TimerFloor) throws -> CalibrationResult {
        let privileges = EmulationPrivileges.check()
        guard privileges.isSufficient else { throw BenchError.privilege(privileges.reason) }
        guard profile.isEmulated else { throw BenchError.usage("profile '\(profile.name)' is not emulated: nothing to calibrate") }
        let path = try ProfileLink.path(named: "wifi", from: profile)
        var options = EmulatedNetwork.Options(seed: seed)
        if realtime { options.loopRealtimePriority = 10 }
        if precise { options.preciseSpinMargin = PreciseMode.spinMargin(floor: timerFloor) }
        let network = try EmulatedNetwork.create(paths: [path], options: options)
        defer { network.teardown() }
        try network.start()
        var report: EmulatorReport?
        defer { if report == nil { _ = try? network.stop() } }
        // Probes every 10 ms (or RTT/4 when that is longer), so a run takes about samples × interval.
        let interval = max(Nanoseconds.milliseconds(10), path.roundTrip / 4)
        let rtts = try Calibration.measureRoundTrip(on: network, samples: samples, interval: interval,
                                                   timeout: path.roundTrip * 4 + .seconds(2))
        var goodput: GoodputMeasurement?
        if let d = goodputDuration {
            goodput = try Calibration.measureGoodput(on: network, duration: d, warmup: min(.seconds(2), d / 3))
        }
        let r = try network.stop()
        report = r
        return CalibrationResult(
            profile: profile, configuredRTT: path.roundTrip, rttSamples: rtts, probesSent: samples,
            configuredDownBitsPerSecond: path.downlink.rate.meanBitsPerSecond, goodput: goodput,
            latenessP50: r.latenessP50, latenessP99: r.latenessP99,
            tunDrops: r.devices.reduce(0) { $0 + Int64($1.after.txDropped - $1.before.txDropped) },
            flagReasons: r.flagReasons, congestionControl: network.congestionControl, timerFloor: timerFloor, report: r)
    }
}
