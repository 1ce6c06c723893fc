import Foundation
import BenchCore
import BenchModel
import Runner
import Statistics

struct CalibrateCommand: Command {
    static let name = "calibrate"
    static let summary = "measure the link emulator against the profile it claims"
    static let help = """
    usage: netbench calibrate --profile NAME[,NAME...] [--samples N] [--duration D] [--no-goodput]
           netbench calibrate --rtt D --rate R [--loss P] ...

    Builds the profile's emulated network, measures the round-trip time with UDP echoes (kernel
    timestamps) and the goodput of one TCP connection downstream (cubic, after a warm-up), and prints
    configured against measured with the error, plus the emulator's release lateness (p50/p99) and
    TUN drops. Targets: RTT error p99 ≤ 0.5 ms; TCP goodput ≥ 94% of the rate (96.5% is the header
    limit at MTU 1500). Needs root (network namespaces and TUN devices).

    options:
      --profile LIST   profiles by name or file
      --rtt D --rate R an ad-hoc symmetric profile instead (e.g. --rtt 40ms --rate 500Mbit)
      --loss P         loss for the ad-hoc profile (e.g. 1%)
      --samples N      RTT probes (default 200)
      --duration D     goodput measurement time (default 10s)
      --no-goodput     measure RTT only

    examples:
      netbench calibrate --profile Cable,4G
      netbench calibrate --rtt 200ms --rate 100Mbit --duration 15s
    """

    static func run(_ args: inout Arguments) throws -> ExitCode {
        let profileList = try args.option("--profile", "-p")
        let rttText = try args.option("--rtt")
        let rateText = try args.option("--rate")
        let lossText = try args.option("--loss")
        let samples = try args.intOption("--samples", "--samples", range: 10...100_000) ?? 200
        let durationText = try args.option("--duration") ?? "10s"
        let noGoodput = args.flag("--no-goodput")
        _ = try args.positionals()
        guard let duration = Units.parseDuration(durationText), duration >= .seconds(1) else {
            throw BenchError.usage("--duration '\(durationText)' must be a duration of at least 1s")
        }
        var profiles: [Profile] = []
        if let rttText {
            guard let rtt = Units.parseDuration(rttText) else { throw BenchError.usage("--rtt '\(rttText)' is not a duration") }
            guard let rateText, let rate = Units.parseBitrate(rateText), rate > 0 else { throw BenchError.usage("--rate RATE is required with --rtt (e.g. 100Mbit)") }
            var loss: Fraction?
            if let lossText {
                let v = lossText.hasSuffix("%") ? Double(lossText.dropLast()).map { $0 / 100 } : Double(lossText)
                guard let v, (0...1).contains(v) else { throw BenchError.usage("--loss '\(lossText)' is not a probability (e.g. 1%)") }
                loss = Fraction(v)
            }
            profiles.append(Profile(name: "rtt\(rttText)-\(rateText)", source: "command line", rtt: DurationValue(nanoseconds: rtt),
                                    down: BitrateValue(bitsPerSecond: rate), up: BitrateValue(bitsPerSecond: rate), loss: loss))
        }
        if let profileList {
            let library = Library.locate()
            profiles += try profileList.split(separator: ",").map { try library.profile(String($0)) }
        }
        guard !profiles.isEmpty else { throw BenchError.usage("give --profile NAME or --rtt D --rate R") }
        try PrivilegeGate.requireEmulation()

        var worst: ExitCode = .success
        for p in profiles where p.isEmulated {
            FileHandle.standardError.write("calibrating \(p.name) (\(p.summary))…\n".data(using: .utf8)!)
            let r = try CalibrationRun.measure(profile: p, samples: samples, goodputDuration: noGoodput ? nil : duration)
            print(render(r))
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
        lines.append("  emulator release lateness p50 \(ms(r.latenessP50)) ms, p99 \(ms(r.latenessP99)) ms; TUN drops \(r.tunDrops)")
        if !r.flagReasons.isEmpty { lines.append("  FLAGGED: " + r.flagReasons.joined(separator: "; ")) }
        return lines.joined(separator: "\n")
    }
}
