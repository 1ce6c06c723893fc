import BenchCore
import BenchModel
import Foundation

/// `netbench scenario generate | validate | show`: synthetic pages from HTTP Archive
/// distributions, and checks and summaries of scenario files.
struct ScenarioCommand: Command {
    static let name = "scenario"
    static let summary = "generate, validate or summarise page scenarios"
    static var help: String {
        var s = """
        usage: netbench scenario generate [--preset NAME] [--distribution mobile|desktop]
                                          [--requests N] [--bytes SIZE] [--origins N] [--seed N]
                                          [--script-chain N] [--name NAME] [-o SCENARIO.json]
               netbench scenario validate FILE...         (- reads stdin)
               netbench scenario show FILE [--rtt DURATION] [--down RATE]

        generate  draws a page from the HTTP Archive 2024 distributions (requests per page, request
                  mix and bytes per type, third parties, dependency depth). Options not given are
                  drawn; --preset starts from a shipped page's options. The same options and seed
                  give byte-identical JSON. Writes to stdout unless -o is given.
        validate  checks each scenario file; prints OK or every problem (file, key path, value);
                  exit 65 if any file is bad.
        show      origins, requests and bytes per type, depth and the critical path (each request
                  costs one RTT plus its serialization; reference link --rtt 100ms --down 10Mbit).

        Sizes: B, KB, MB, GB (powers of 1000), KiB, MiB, GiB. Presets:

        """
        for p in ScenarioPreset.allCases { s += "  " + p.rawValue.padding(toLength: 21, withPad: " ", startingAt: 0) + p.summary + "\n" }
        s += "\nexamples:\n  netbench scenario generate --preset mobile-median -o Scenarios/pages/mobile-median.json\n"
        s += "  netbench scenario generate --requests 120 --bytes 3MB --origins 10 --seed 42\n"
        s += "  netbench scenario generate --seed 7 | netbench scenario validate -\n"
        s += "  netbench scenario validate Scenarios/pages/*.json\n  netbench scenario show Scenarios/pages/spa-deep-chain.json\n"
        return s
    }

    /// Every option of every subcommand, taken before the positionals: `Arguments` only yields
    /// positionals once all options are consumed, so the subcommand checks afterwards that it was
    /// given only its own.
    struct Raw {
        var given: [String: String] = [:]

        init(_ args: inout Arguments) throws {
            for name in ["--preset", "--distribution", "--requests", "--bytes", "--origins", "--seed",
                         "--script-chain", "--name", "--rtt", "--down"] {
                if let v = try args.option(name) { given[name] = v }
            }
            if let v = try args.option("-o", "--output") { given["-o"] = v }
        }

        func only(_ allowed: Set<String>, for sub: String) throws {
            if let bad = given.keys.sorted().first(where: { !allowed.contains($0) }) {
                throw BenchError.usage("'\(sub)' does not take \(bad)")
            }
        }

        func int(_ name: String, _ range: ClosedRange<Int>) throws -> Int? {
            guard let v = given[name] else { return nil }
            guard let n = Int(v), range.contains(n) else {
                throw BenchError.usage("\(name) '\(v)' must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return n
        }
    }

    static func run(_ args: inout Arguments) throws -> ExitCode {
        let raw = try Raw(&args)
        var rest = try args.positionals()
        guard !rest.isEmpty else { throw BenchError.usage("missing subcommand: generate, validate or show") }
        let sub = rest.removeFirst()
        switch sub {
        case "generate":
            if let extra = rest.first { throw BenchError.usage("unexpected argument '\(extra)'") }
            try raw.only(["--preset", "--distribution", "--requests", "--bytes", "--origins", "--seed",
                          "--script-chain", "--name", "-o"], for: sub)
            return try generate(raw)
        case "validate":
            try raw.only([], for: sub)
            return try validate(rest)
        case "show":
            try raw.only(["--rtt", "--down"], for: sub)
            return try show(rest, raw)
        default:
            throw BenchError.usage("unknown subcommand '\(sub)': generate, validate or show")
        }
    }

    static func generate(_ raw: Raw) throws -> ExitCode {
        let presetName = raw.given["--preset"]
        let distName = raw.given["--distribution"]
        let requests = try raw.int("--requests", 1...5000)
        let bytesText = raw.given["--bytes"]
        let origins = try raw.int("--origins", 1...1000)
        let seedText = raw.given["--seed"]
        let chain = try raw.int("--script-chain", 0...100)
        let name = raw.given["--name"]
        let output = raw.given["-o"]

        var seed: UInt64 = 1
        if let seedText {
            guard let v = UInt64(seedText) else { throw BenchError.usage("--seed '\(seedText)' must be a whole number ≥ 0") }
            seed = v
        }
        var preset: ScenarioPreset?
        if let presetName {
            guard let p = ScenarioPreset(rawValue: presetName) else {
                throw BenchError.usage("--preset '\(presetName)' is not one of \(ScenarioPreset.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            preset = p
        }
        let customised = requests != nil || bytesText != nil || origins != nil || chain != nil || distName != nil
        var scenario: Scenario
        if let preset, preset.options(seed: seed) == nil {
            if customised { throw BenchError.usage("the bulk preset '\(preset.rawValue)' takes only --name and -o") }
            scenario = try preset.scenario(seed: seed)
        } else {
            var options = preset?.options(seed: seed) ?? ScenarioGenerator.Options(name: "generated", seed: seed)
            if customised && preset != nil { options.description = nil }   // the preset's summary no longer holds
            if let distName {
                guard let d = PageDistribution.all.first(where: { $0.name == distName }) else {
                    throw BenchError.usage("--distribution '\(distName)' is not one of \(PageDistribution.all.map(\.name).joined(separator: ", "))")
                }
                options.distribution = d
            }
            if let requests {
                options.requests = requests
                if bytesText == nil { options.totalBytes = nil }           // the bytes follow the count
                if origins == nil, let o = options.origins, o > requests { options.origins = requests }
            }
            if let bytesText {
                guard let b = Units.parseBytes(bytesText) else { throw BenchError.usage("--bytes '\(bytesText)' is not a size (e.g. 2.3MB, 512KiB)") }
                options.totalBytes = b
            }
            if let origins { options.origins = origins }
            if let chain { options.scriptChain = chain }
            scenario = try ScenarioGenerator(options).generate()
        }
        if let name { scenario.name = name }
        try scenario.validate(file: "(generated)")
        let data = try JSONFile.encode(scenario)
        if let output {
            try JSONFile.writeAtomically(data, to: output)
            if let b = scenario.bulk {
                print("wrote \(output): bulk \(b.direction.rawValue) of \(Units.formatBytes(b.bytes))")
            } else {
                let s = ScenarioSummary(scenario)
                print("wrote \(output): \(s.requests) requests, \(Units.formatBytes(s.totalBytes)), \(s.origins.count) origins, depth \(s.depth)")
            }
        } else {
            FileHandle.standardOutput.write(data)
        }
        return .success
    }

    static func validate(_ files: [String]) throws -> ExitCode {
        if files.isEmpty { throw BenchError.usage("validate needs at least one scenario file") }
        var failed = false
        for f in files {
            do {
                if f == "-" {
                    let s = try JSONFile.decode(Scenario.self, from: FileHandle.standardInput.readDataToEndOfFile(), file: "(stdin)")
                    try s.validate(file: "(stdin)")
                } else {
                    _ = try Scenario.load(from: f)
                }
                print("\(f == "-" ? "(stdin)" : f): OK")
            } catch let e as BenchError {
                failed = true
                print(e.message)
            }
        }
        return failed ? .dataError : .success
    }

    static func show(_ files: [String], _ raw: Raw) throws -> ExitCode {
        let rttText = raw.given["--rtt"]
        let downText = raw.given["--down"]
        guard files.count == 1 else { throw BenchError.usage("show needs exactly one scenario file") }
        var rtt = 100.0
        var rate = 10e6
        if let rttText {
            guard let ns = Units.parseDuration(rttText) else { throw BenchError.usage("--rtt '\(rttText)' is not a duration (e.g. 100ms)") }
            rtt = Double(ns) / 1e6
        }
        if let downText {
            guard let r = Units.parseBitrate(downText), r > 0 else { throw BenchError.usage("--down '\(downText)' is not a rate (e.g. 10Mbit)") }
            rate = r
        }
        let scenario = try Scenario.load(from: files[0])
        print(showText(scenario, ScenarioSummary(scenario, rttMs: rtt, bitsPerSecond: rate)), terminator: "")
        return .success
    }

    static func showText(_ s: Scenario, _ m: ScenarioSummary) -> String {
        func pad(_ t: String, _ n: Int) -> String { t.padding(toLength: max(n, t.count), withPad: " ", startingAt: 0) }
        func lpad(_ t: String, _ n: Int) -> String { String(repeating: " ", count: max(0, n - t.count)) + t }
        var out = "\(s.name)\n"
        if let d = s.description { out += "  \(d)\n" }
        if let b = s.bulk {
            out += "bulk \(b.direction.rawValue) of \(Units.formatBytes(b.bytes)) from \(s.origins.first?.host ?? "?")\n"
            if s.resources.isEmpty { return out }
        }
        out += "\(m.requests) requests, \(Units.formatBytes(m.totalBytes)), \(m.origins.count) origins, depth \(m.depth), \(m.renderBlocking) render-blocking\n\n"
        out += "origins:\n"
        let idWidth = (m.origins.map(\.id.count).max() ?? 0) + 2
        let hostWidth = (m.origins.map(\.host.count).max() ?? 0) + 2
        for o in m.origins {
            let host = o.host == o.id ? "" : o.host
            out += "  " + pad(o.id, idWidth) + pad(host, m.origins.allSatisfy { $0.host == $0.id } ? 0 : hostWidth)
            out += lpad("\(o.requests)", 4) + " req " + lpad(Units.formatBytes(o.bytes), 10)
            out += o.thirdParty ? "  third party\n" : "\n"
        }
        out += "\nby type:\n"
        for t in Scenario.ResourceType.allCases {
            let n = m.countByType[t] ?? 0
            guard n > 0 else { continue }
            out += "  " + pad(t.rawValue, 12) + lpad("\(n)", 4) + " req " + lpad(Units.formatBytes(m.bytesByType[t] ?? 0), 10) + "\n"
        }
        out += "\ncritical path (\(m.criticalPath.count) requests, ends at \(Units.format(m.criticalPathMs, 0)) ms with "
        out += "\(Units.format(m.referenceRttMs, 1)) ms RTT and \(Units.formatBitrate(m.referenceBitsPerSecond)); no handshakes, no competition):\n"
        out += "  " + m.criticalPath.joined(separator: " → ") + "\n"
        return out
    }
}
