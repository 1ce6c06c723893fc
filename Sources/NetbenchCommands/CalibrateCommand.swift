import Foundation
import BenchCore
import BenchModel
import Runner
import LinkEmulator
import Statistics
import CommandLineKit

struct CalibrateCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "calibrate",
            abstract: "measure the link emulator against the profile it claims",
            discussion: """
            Builds the profile's emulated network (--profile, or an ad-hoc symmetric one from --rtt and --rate), \
            measures the round-trip time with UDP echoes (kernel timestamps) and the goodput of one TCP \
            connection downstream (cubic, after a warm-up), and prints configured against measured with the \
            error, plus the emulator's release lateness (p50/p99) and TUN drops. Targets: RTT error p99 ≤ 0.5 ms; \
            TCP goodput ≥ 94% of the rate (96.5% is the header limit at MTU 1500). Needs root (network \
            namespaces and TUN devices).
            """,
            examples: ["netbench calibrate --profile Cable,4G", "netbench calibrate --rtt 200ms --rate 100Mbit --duration 15s"],
            exitCodes: [
                ExitCodeDoc(.success, "every measurement within its target"),
                ExitCodeDoc(.runFailed, "a measurement missed its target (FLAGGED) or the network could not be built"),
                Netbench.usageExit, Netbench.dataExit,
                ExitCodeDoc(.noPermission, "no privilege for network namespaces and TUN devices"),
            ])
    }

    @Option("--profile", "-p", value: "LIST", help: "profiles by name or file", parse: .list(of: .nonEmpty)) var profileNames: [String]?
    @Option("--rtt", value: "D", help: "round trip of an ad-hoc symmetric profile (e.g. 40ms); needs --rate", parse: .duration()) var rtt: Nanoseconds?
    @Option("--rate", value: "R", help: "rate of the ad-hoc profile, both directions (e.g. 500Mbit)", parse: .bitrate) var rate: Double?
    @Option("--loss", value: "P", help: "loss for the ad-hoc profile (e.g. 1%)", parse: .probability) var loss: Double?
    @Option("--samples", value: "N", default: 200, help: "RTT probes", parse: .int(10...100_000)) var samples: Int
    @Option("--duration", value: "D", default: 10_000_000_000, defaultText: "10s", help: "goodput measurement time", parse: .duration(atLeast: 1_000_000_000)) var duration: Nanoseconds
    @Flag("--no-goodput", help: "measure RTT only") var noGoodput: Bool
    @Flag("--precise", help: "precise mode: the packet loop stops sleeping shortly before each release and polls (punctual below the timer floor; costs CPU, reported)") var precise: Bool
    @Flag("--realtime", help: "run the packet loop under SCHED_FIFO (steadier on a busy machine at moderate rates; worse near saturation)") var realtime: Bool

    func validate() throws {
        if rtt != nil && rate == nil { throw BenchError.usage("--rate RATE is required with --rtt (e.g. 100Mbit)") }
        if rtt == nil && (rate != nil || loss != nil) { throw BenchError.usage("--rate and --loss describe an ad-hoc profile: give --rtt too") }
        if rtt == nil && profileNames == nil { throw BenchError.usage("give --profile NAME or --rtt D --rate R") }
    }

    func run() throws -> ExitCode {
        let samples = self.samples, realtime = self.realtime, precise = self.precise
        var profiles: [Profile] = []
        if let rtt, let rate {
            let name = "rtt\(Units.format(Double(rtt) / 1e6, 0))ms-\(Units.formatBitrate(rate).replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "/s", with: ""))"
            profiles.append(Profile(name: name, source: "command line", rtt: DurationValue(nanoseconds: rtt),
                                    down: BitrateValue(bitsPerSecond: rate), up: BitrateValue(bitsPerSecond: rate), loss: loss.map { Fraction($0) }))
        }
        if let profileNames {
            let library = Library.locate()
            profiles += try profileNames.map { try library.profile($0) }
        }
        try PrivilegeGate.requireEmulation()

        FileHandle.standardError.write("measuring the timer floor (2 s)…\n".data(using: .utf8)!)
        let floor = TimerFloor.measure(duration: .seconds(2))
        print(floor.summary)
        var worst: ExitCode = .success
        for p in profiles where p.isEmulated {
            FileHandle.standardError.write("calibrating \(p.name) (\(p.summary))…\n".data(using: .utf8)!)
            let r = try CalibrationRun.measure(profile: p, samples: samples, goodputDuration: noGoodput ? nil : duration,
                                               realtime: realtime, precise: precise, timerFloor: floor)
            print(Self.render(r))
            if !r.flagReasons.isEmpty { worst = .runFailed }
        }
        return worst
    }

    static func render(_ r: CalibrationResult) -> String {
        let ms = { (ns: Nanoseconds) in Units.format(Double(ns) / 1e6, 3) }
        var lines = ["profile \(r.profile.name): \(r.profile.summary)"]
        let conf = Double(r.configuredRTT) / 1e6
        let rtts = r.rttSamples.map { Double($0) / 1e6 }
        if let med = Descriptive.median(rtts), let p99 = Descriptive.p99(rtts), let p1 = Descriptive.percentile(rtts, 1) {
            let errs = rtts.map { abs($0 - conf) }
            let e50 = Descriptive.median(errs) ?? 0, e99 = Descriptive.p99(errs) ?? 0
            lines.append("  RTT      configured \(Units.format(conf, 3)) ms   measured median \(Units.format(med, 3)) ms (p1 \(Units.format(p1, 3)), p99 \(Units.format(p99, 3)))   |error| median \(Units.format(e50, 3)) ms, p99 \(Units.format(e99, 3)) ms \(e99 <= 0.5 ? "✓" : "✗ (target ≤ 0.5 ms)")   \(rtts.count)/\(r.probesSent) echoes")
        } else {
            lines.append("  RTT      no echo came back (\(r.probesSent) sent)")
        }
        if let g = r.goodput {
            if let rate = r.configuredDownBitsPerSecond {
                let pct = g.bitsPerSecond / rate * 100
                lines.append("  goodput  configured \(Units.formatBitrate(rate))   measured \(Units.formatBitrate(g.bitsPerSecond)) = \(Units.format(pct, 1))% \(pct >= 94 ? "✓" : "✗ (target ≥ 94%)")   TCP \(r.congestionControl), \(Units.format(Double(g.window) / 1e9, 1)) s window")
            } else {
                lines.append("  goodput  unlimited link: measured \(Units.formatBitrate(g.bitsPerSecond))")
            }
        }
        lines.append("  emulator \(r.report.spinMargin.map { "precise mode (polls from \(ms($0)) ms before a release)" } ?? "default mode")"
            + ": release lateness p50 \(ms(r.latenessP50)) ms, p99 \(ms(r.latenessP99)) ms (floor p99 \(ms(r.timerFloor.p99)) ms); TUN drops \(r.tunDrops)")
        lines.append("           of which late wake-ups p99 \(ms(r.report.wakeLatenessP99)) ms, the emulator's own p99 \(ms(r.report.ownLatenessP99)) ms")
        let share = r.report.loopCPUShare.map { Units.format($0 * 100, 1) + "% of a core" } ?? "unknown"
        lines.append("  loop CPU \(share); waited for a CPU \(r.report.loopRunQueueWait.map(ms) ?? "unknown") ms; machine steal \(r.report.stealTime.map(ms) ?? "unknown") ms over \(Units.format(Double(r.report.duration) / 1e9, 1)) s")
        if !r.flagReasons.isEmpty { lines.append("  FLAGGED: " + r.flagReasons.joined(separator: "; ")) }
        return lines.joined(separator: "\n")
    }
}

extension ValueParser where T == Double {
    /// `1%` or `0.01`.
    static var probability: ValueParser<Double> {
        .init(expected: "a probability (e.g. 1% or 0.01)") { text in
            let v = text.hasSuffix("%") ? Double(text.dropLast()).map { $0 / 100 } : Double(text)
            return v.flatMap { (0...1).contains($0) ? $0 : nil }
        }
    }
}
