import Foundation
import BenchCore
import BenchModel
import Runner
import Testbed
import LinkModel
import LinkEmulator
import Statistics

/// Calibrate's delay phase: one-way probes through the real emulator in both directions, against
/// the link model run on a virtual clock with the same configuration and the same send times.
///
/// The delay check: the measured one-way delays and the model's delays convolved with the timer
/// floor measured before (each model delay plus two independent draws from the floor's wake-up
/// lateness: the loop's wake-up on the probe's arrival and its wake-up for the release) must not
/// differ by more than the two-sample Kolmogorov–Smirnov critical distance at α = 0.001.
/// The reordering check: the measured rate of probes that arrived after a later one (RFC 4737)
/// against the model's rate on the same schedule, within a two-proportion z bound at α = 0.001
/// (|r₁ − r₂| ≤ 3.29·√(r̄(1 − r̄)(1/n₁ + 1/n₂)) + 1/n₁).
public struct DelayCalibration: Sendable {
    public struct Direction: Sendable {
        /// `up` (client → server) or `down`.
        public var name: String
        public var configuration: LinkConfiguration
        public var probesSent: Int
        /// Measured one-way delays (ns), in arrival order.
        public var measured: [Nanoseconds]
        /// The model's delays for the same send times (configured), and those convolved with the floor.
        public var model: [Nanoseconds]
        public var reference: [Nanoseconds]
        public var measuredReordered: Int
        public var modelReordered: Int
        /// What the emulator itself counted on this link (all packets, not only probes).
        public var emulatorReordered: Int64
        public var emulatorForwarded: Int64

        /// Checked when the delay varies (jitter or a delay trace); reordering when it can reorder.
        public var checksDelay: Bool {
            configuration.delayVariation.jitter != nil || configuration.delayVariation.trace != nil
        }
        public var checksReordering: Bool { configuration.delayVariation.reorders }

        public var ksDistance: Double? {
            KolmogorovSmirnov.distance(measured.map(Double.init), reference.map(Double.init))
        }
        public var ksCritical: Double {
            KolmogorovSmirnov.criticalDistance(n: max(1, measured.count), m: max(1, reference.count))
        }
        public var delayPasses: Bool { ksDistance.map { $0 <= ksCritical } ?? false }

        public var measuredRate: Double { measured.isEmpty ? 0 : Double(measuredReordered) / Double(measured.count) }
        public var modelRate: Double { model.isEmpty ? 0 : Double(modelReordered) / Double(model.count) }
        public var reorderTolerance: Double {
            let n1 = Double(max(1, measured.count)), n2 = Double(max(1, model.count))
            let pooled = (Double(measuredReordered) + Double(modelReordered)) / (n1 + n2)
            return 3.29 * (pooled * (1 - pooled) * (1 / n1 + 1 / n2)).squareRoot() + 1 / n1
        }
        public var reorderingPasses: Bool { abs(measuredRate - modelRate) <= reorderTolerance }
    }

    public var directions: [Direction]
    /// The emulator during the probes.
    public var report: EmulatorReport
    public var interval: Nanoseconds

    /// Whether a path's delay configuration gives this phase anything to check.
    public static func applies(to path: PathConfiguration) -> Bool {
        [path.uplink, path.downlink].contains { !$0.delayVariation.isNone }
    }

    /// Builds `profile`'s network as calibrate builds it (one path, `emulator`'s scheduling and
    /// mode), runs `samples` probes each way every `interval`, and removes the network again, also
    /// on error; nil when the profile's delay has nothing to check (no jitter, trace or reordering).
    public static func measure(
        profile: Profile, samples: Int, interval: Nanoseconds, emulator: EmulatorSettings, timerFloor: TimerFloor,
        seed: UInt64 = 1
    ) throws -> DelayCalibration? {
        let path = try ProfileLink.path(named: "wifi", from: profile)
        guard applies(to: path) else { return nil }
        var options = EmulatedNetwork.Options(seed: seed)
        emulator.apply(to: &options, floor: timerFloor)
        let network = try EmulatedNetwork.create(paths: [path], options: options)
        defer { network.teardown() }
        return try measure(
            network: network, path: path, floor: timerFloor, samples: samples, interval: interval, seed: seed)
    }

    /// Runs the probes on a started-and-stopped cycle of `network` (it must not be running) and
    /// compares them with the model. `seed`: the model's own seed (not the emulator's: the
    /// distributions must match, not the draws).
    public static func measure(
        network: EmulatedNetwork, path: PathConfiguration, floor: TimerFloor, samples: Int,
        interval: Nanoseconds, seed: UInt64
    ) throws -> DelayCalibration {
        let payload = 64
        let started = Instant.now()
        try network.start()
        let probes: (up: OneWayProbes, down: OneWayProbes)
        do {
            probes = try Calibration.measureOneWay(
                on: network, path: path.name, samples: samples, interval: interval, payloadBytes: payload,
                timeout: 4 * (path.roundTrip + .seconds(1)))
        } catch {
            _ = try? network.stop()
            throw error
        }
        let report = try network.stop()
        let stats = report.paths.first { $0.name == path.name }
        var draws = FloorDraws(floor, seed: seed)
        func direction(_ name: String, _ c: LinkConfiguration, _ p: OneWayProbes, _ counters: LinkCounters?)
            -> Direction
        {
            // Send offsets counted from the emulator's start, as its delay trace counts them.
            let lead = p.begin.since(started)
            let sim = LinkSimulation.run(
                c, arrivals: p.sendOffsets.map { $0 + lead }, size: payload + 28, seed: seed ^ 0xC0FF_EE00)
            let model = sim.releases.map(\.delay)
            return Direction(
                name: name, configuration: c, probesSent: p.sendOffsets.count, measured: p.delays, model: model,
                reference: model.map { $0 + draws.next() + draws.next() }, measuredReordered: p.reordered,
                modelReordered: Int(sim.reordered), emulatorReordered: counters?.reordered.packets ?? 0,
                emulatorForwarded: counters?.forwarded.packets ?? 0)
        }
        return DelayCalibration(
            directions: [
                direction("up", path.uplink, probes.up, stats?.uplink),
                direction("down", path.downlink, probes.down, stats?.downlink),
            ], report: report, interval: interval)
    }
}

/// Random draws from the timer floor's wake-up lateness (inverse CDF on 1,000 quantiles); 0
/// when the floor has no histogram.
struct FloorDraws {
    private let quantiles: [Nanoseconds]
    private var random: SeededRandom

    init(_ floor: TimerFloor, seed: UInt64) {
        random = SeededRandom(seed: seed ^ 0xF100_F100)
        guard let h = floor.histogram, h.count > 0 else { quantiles = [0]; return }
        quantiles = (0..<1_000).map { h.percentile((Double($0) + 0.5) / 1_000) }
    }

    mutating func next() -> Nanoseconds { quantiles[Int(random.nextUnit() * Double(quantiles.count))] }
}
