import Foundation
import BenchCore
import Runner
import BenchModel
import Testbed
import LinkModel
import LinkEmulator

/// What `netbench calibrate` measured for one profile: the emulator against what it claims.
public struct CalibrationResult: Sendable {
    public var profile: Profile
    public var configuredRTT: Nanoseconds
    /// The RTT the link model gives a lone probe (configured RTT plus its serialization each way;
    /// the probes go one at a time, so they meet no queue); nil on a trace link (unknown).
    public var predictedRTT: Nanoseconds?
    /// UDP echo round trips (kernel receive timestamps, the echo's dwell removed).
    public var rttSamples: [Nanoseconds]
    public var probesSent: Int
    /// IP size of each probe (payload + 28 bytes of IPv4 and UDP headers).
    public var probePacketBytes: Int
    public var configuredDownBitsPerSecond: Double?
    public var goodput: GoodputMeasurement?
    /// The same goodput measurement over a bare veth pair between the same namespaces, without the
    /// emulator (`Calibration.measureVethGoodput`): the machine's own limit; nil when not measured.
    public var vethGoodput: GoodputMeasurement?
    public var congestionControl: String
    /// The timer floor this calibration was judged against.
    public var timerFloor: TimerFloor
    /// The emulator while only the probes went through it (idle), and while one TCP transfer
    /// saturated it (loaded; nil without the goodput phase).
    public var idle: EmulatorReport
    public var loaded: EmulatorReport?

    /// Probe RTT minus the predicted RTT (or the configured one when the prediction is unknown).
    public var rttErrors: [Nanoseconds] { rttSamples.map { $0 - (predictedRTT ?? configuredRTT) } }
}

public enum CalibrationRun {
    /// Creates the profile's network, measures RTT (`samples` UDP echoes, the emulator otherwise
    /// idle) and, unless `goodputDuration` is nil, the TCP goodput of `flows` connections downstream
    /// with the emulator restarted (so each phase's lateness is its own); removes the network
    /// again, also on error. `emulator`: the packet loop's scheduling and mode, the precise mode's
    /// spin margin taken from `timerFloor`. With `vethGoodput` (and a goodput phase), the same
    /// goodput is measured once more over a bare veth pair between the namespaces, the emulator
    /// stopped.
    public static func measure(
        profile: Profile, samples: Int, goodputDuration: Nanoseconds?, flows: Int = 1, seed: UInt64 = 1,
        emulator: EmulatorSettings = EmulatorSettings(), vethGoodput: Bool = false,
        timerFloor: TimerFloor
    ) throws -> CalibrationResult {
        let privileges = EmulationPrivileges.check()
        guard privileges.isSufficient else { throw BenchError.privilege(privileges.reason) }
        guard profile.isEmulated else {
            throw BenchError.usage("profile '\(profile.name)' is not emulated: nothing to calibrate")
        }
        let path = try ProfileLink.path(named: "wifi", from: profile)
        var options = EmulatedNetwork.Options(seed: seed)
        emulator.apply(to: &options, floor: timerFloor)
        let network = try EmulatedNetwork.create(paths: [path], options: options)
        defer { network.teardown() }
        let payload = 64
        // Probes every 10 ms (or RTT/4 when that is longer), so a run takes about samples × interval.
        let interval = max(Nanoseconds.milliseconds(10), path.roundTrip / 4)
        try network.start()
        let rtts: [Nanoseconds]
        do {
            rtts = try Calibration.measureRoundTrip(
                on: network, samples: samples, interval: interval, payloadBytes: payload,
                timeout: path.roundTrip * 4 + .seconds(2))
        } catch {
            _ = try? network.stop()
            throw error
        }
        let idle = try network.stop()
        var goodput: GoodputMeasurement?
        var loaded: EmulatorReport?
        if let d = goodputDuration {
            try network.start()
            do {
                goodput = try Calibration.measureGoodput(
                    on: network, duration: d, warmup: min(.seconds(2), d / 3), flows: flows)
            } catch {
                _ = try? network.stop()
                throw error
            }
            loaded = try network.stop()
        }
        var veth: GoodputMeasurement?
        if let d = goodputDuration, vethGoodput {
            veth = try Calibration.measureVethGoodput(
                on: network, duration: d, warmup: min(.seconds(2), d / 3), flows: flows)
        }
        return CalibrationResult(
            profile: profile, configuredRTT: path.roundTrip,
            predictedRTT: path.predictedRoundTrip(packetBytes: payload + 28),
            rttSamples: rtts, probesSent: samples, probePacketBytes: payload + 28,
            configuredDownBitsPerSecond: path.downlink.rate.meanBitsPerSecond, goodput: goodput,
            vethGoodput: veth, congestionControl: network.congestionControl, timerFloor: timerFloor, idle: idle,
            loaded: loaded)
    }
}
