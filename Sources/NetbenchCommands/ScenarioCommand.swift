import BenchCore
import BenchModel
import SystemIO
import Foundation
import CommandLineKit

/// `netbench scenario generate | validate | show`: synthetic pages from HTTP Archive
/// distributions, and checks and summaries of scenario files.
struct ScenarioCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "scenario",
            abstract: "generate, validate or summarise page scenarios",
            subcommands: [ScenarioGenerate.self, ScenarioValidate.self, ScenarioShow.self, ScenarioExportCommand.self])
    }
}

struct ScenarioGenerate: ParsableCommand {
    static var configuration: CommandConfiguration {
        var presets = ""
        for p in ScenarioPreset.allCases {
            presets += "  " + p.rawValue.padding(toLength: 21, withPad: " ", startingAt: 0) + p.summary + "\n"
        }
        return CommandConfiguration(
            name: "generate",
            abstract: "draw a page from the HTTP Archive 2024 distributions",
            discussion: """
                Draws requests per page, request mix and bytes per type, third parties and dependency depth from \
                the HTTP Archive 2024 distributions. Options not given are drawn; --preset starts from a shipped \
                page's options. The same options and seed give byte-identical JSON. Writes to stdout unless -o is given.
                --corpus N writes N pages spanning the distribution into the directory -o names (a Latin hypercube \
                over \
                the request-count and page-weight quantiles, host names unique per page) and corpus.json, the index \
                naming each page's quantiles; a suite's "scenarios" may name that directory.
                Sizes: B, KB, MB, GB (powers of 1000), KiB, MiB, GiB. Presets:

                """ + presets,
            examples: [
                "netbench scenario generate --preset mobile-median -o Scenarios/pages/mobile-median.json",
                "netbench scenario generate --requests 120 --bytes 3MB --origins 10 --seed 42",
                "netbench scenario generate --seed 7 | netbench scenario validate -",
                "netbench scenario generate --percentile 90 -o Scenarios/pages/percentiles/mobile-p90.json",
                "netbench scenario generate --corpus 500 --seed 1 -o corpus/",
            ],
            exitCodes: [ExitCodeDoc(.success, "generated"), Netbench.usageExit])
    }

    @Option("--preset", value: "NAME", help: "start from a shipped page's options", parse: .choice(ScenarioPreset.self))
    var preset: ScenarioPreset?
    @Option("--distribution", value: "NAME", help: "mobile or desktop distributions", parse: .distribution)
    var distribution: PageDistribution?
    @Option("--requests", value: "N", help: "requests on the page", parse: .int(1...5000)) var requests: Int?
    @Option("--bytes", value: "SIZE", help: "total bytes of the page (e.g. 2.3MB, 512KiB)", parse: .size) var bytes:
        Int64?
    @Option("--origins", value: "N", help: "origins (hosts) serving the page", parse: .int(1...1000)) var origins: Int?
    @Option("--seed", value: "N", default: 1, help: "seed of the draw", parse: .uint64) var seed: UInt64
    @Option(
        "--script-chain", value: "N", help: "length of a chain of scripts each loading the next", parse: .int(0...100))
    var chain: Int?
    @Option("--name", value: "NAME", help: "the scenario's name", parse: .nonEmpty) var name: String?
    @Option(
        "--percentile", value: "P",
        help: "the page at the P-th percentile (1-99) by requests (the published quantiles, interpolated) "
            + "and by bytes (the P-th percentile of 4,000 pages of the fitted model), median type mix",
        parse: .int(1...99)) var percentile: Int?
    @Option(
        "--corpus", value: "N", help: "N pages spanning the distribution, into the directory -o names",
        parse: .int(1...100_000)) var corpus: Int?
    @Option(
        "--output", "-o", value: "SCENARIO.json", help: "where to write (default: stdout; with --corpus: a directory)",
        parse: .file("json")) var output: String?

    func validate() throws {
        if corpus != nil { try ScenarioCorpusWriter.validate(self) }
        let customised = requests != nil || bytes != nil || origins != nil || chain != nil || distribution != nil
        if let preset, preset.options(seed: seed) == nil, customised {
            throw BenchError.usage("the bulk preset '\(preset.rawValue)' takes only --name and -o")
        }
        if percentile != nil, preset != nil || requests != nil || bytes != nil || corpus != nil {
            throw BenchError.usage(
                "--percentile sets the requests and bytes: it does not combine with --preset, --requests, --bytes or "
                    + "--corpus"
            )
        }
    }

    func run() throws -> ExitCode {
        if let corpus, let output {
            return try ScenarioCorpusWriter.write(count: corpus, seed: seed, distribution: distribution, to: output)
        }
        let (requests, origins, chain, name, output, seed) = (
            self.requests, self.origins, self.chain, self.name, self.output, self.seed
        )
        let customised = requests != nil || bytes != nil || origins != nil || chain != nil || distribution != nil
        var scenario: Scenario
        if let preset, preset.options(seed: seed) == nil {
            scenario = try preset.scenario(seed: seed)
        } else {
            var options =
                try percentile.map {
                    try PercentilePage(distribution: distribution ?? .mobile2024, percentile: $0).options(seed: seed)
                }
                ?? preset?.options(seed: seed) ?? ScenarioGenerator.Options(name: "generated", seed: seed)
            if customised && preset != nil { options.description = nil }  // the preset's summary no longer holds
            if let distribution { options.distribution = distribution }
            if let requests {
                options.requests = requests
                if bytes == nil { options.totalBytes = nil }  // the bytes follow the count
                if origins == nil, let o = options.origins, o > requests { options.origins = requests }
            }
            if let bytes { options.totalBytes = bytes }
            if let origins { options.origins = origins }
            if let chain { options.scriptChain = chain }
            scenario = try ScenarioGenerator(options).generate()
        }
        if let name { scenario.name = name }
        try scenario.validate(file: "(generated)")
        let data = try JSONFile.encode(scenario)
        if let output {
            try AtomicFile.write(data, to: output)
            if let b = scenario.bulk {
                print("wrote \(output): bulk \(b.direction.rawValue) of \(Units.formatBytes(b.bytes))")
            } else {
                let s = ScenarioSummary(scenario)
                print(
                    "wrote \(output): \(s.requests) requests, \(Units.formatBytes(s.totalBytes)), \(s.origins.count) "
                        + "origins, depth \(s.depth)"
                )
            }
        } else {
            StandardOutput.write(data)
        }
        return .success
    }

}

struct ScenarioValidate: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "validate",
            abstract: "check scenario files; print OK or every problem (file, key path, value)",
            examples: [
                "netbench scenario validate Scenarios/pages/*.json",
                "netbench scenario generate --seed 7 | netbench scenario validate -",
            ],
            exitCodes: [
                ExitCodeDoc(.success, "every file is valid"), Netbench.usageExit,
                ExitCodeDoc(.dataError, "a file is bad"),
            ])
    }

    @Argument("FILE", count: 1..., help: "scenario files (- reads stdin)", completion: .file(extensions: ["json"]))
    var files: [String]

    func run() throws -> ExitCode {
        var failed = false
        for f in files {
            do {
                if f == "-" {
                    let s = try JSONFile.decode(
                        Scenario.self, from: FileHandle.standardInput.readDataToEndOfFile(), file: "(stdin)")
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

}

struct ScenarioShow: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "show",
            abstract: "origins, requests and bytes per type, depth and the critical path of a scenario",
            discussion:
                "The critical path assumes each request costs one RTT plus its serialization on a reference link "
                    + "(--rtt, --down); no handshakes, no competition.",
            examples: [
                "netbench scenario show Scenarios/pages/spa-deep-chain.json",
                "netbench scenario show Scenarios/pages/mobile-median.json --rtt 70ms --down 12Mbit",
            ],
            exitCodes: [ExitCodeDoc(.success, "shown"), Netbench.usageExit, Netbench.dataExit])
    }

    @Argument("FILE", help: "the scenario file", completion: .file(extensions: ["json"])) var file: String
    @Option(
        "--rtt", value: "D", default: 100_000_000, defaultText: "100ms", help: "round trip of the reference link",
        parse: .duration()) var rttNs: Nanoseconds
    @Option(
        "--down", value: "RATE", default: 10e6, defaultText: "10Mbit", help: "rate of the reference link",
        parse: .bitrate) var rate: Double

    func run() throws -> ExitCode {
        let rtt = Double(rttNs) / 1e6
        let scenario = try Scenario.load(from: file)
        print(Self.showText(scenario, ScenarioSummary(scenario, rttMs: rtt, bitsPerSecond: rate)), terminator: "")
        return .success
    }

    static func showText(_ s: Scenario, _ m: ScenarioSummary) -> String {
        func pad(_ t: String, _ n: Int) -> String { t.padding(toLength: max(n, t.count), withPad: " ", startingAt: 0) }
        func lpad(_ t: String, _ n: Int) -> String { String(repeating: " ", count: max(0, n - t.count)) + t }
        var out = "\(s.name)\n"
        if let d = s.description { out += "  \(d)\n" }
        if let b = s.bulk {
            out +=
                "bulk \(b.direction.rawValue) of \(Units.formatBytes(b.bytes)) from \(s.origins.first?.host ?? "?")\n"
            if s.resources.isEmpty { return out }
        }
        out +=
            "\(m.requests) requests, \(Units.formatBytes(m.totalBytes)), \(m.origins.count) origins, depth \(m.depth), "
                + "\(m.renderBlocking) render-blocking\n\n"
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
            out +=
                "  " + pad(t.rawValue, 12) + lpad("\(n)", 4) + " req "
                + lpad(Units.formatBytes(m.bytesByType[t] ?? 0), 10) + "\n"
        }
        out +=
            "\ncritical path (\(m.criticalPath.count) requests, ends at \(Units.format(m.criticalPathMs, 0)) ms with "
        out +=
            "\(Units.format(m.referenceRttMs, 1)) ms RTT and \(Units.formatBitrate(m.referenceBitsPerSecond)); no "
                + "handshakes, no competition):\n"
        out += "  " + m.criticalPath.joined(separator: " → ") + "\n"
        return out
    }
}

extension ValueParser where T == PageDistribution {
    static var distribution: ValueParser<PageDistribution> {
        .init(
            expected: "one of " + PageDistribution.all.map(\.name).joined(separator: ", "),
            completion: .choices(PageDistribution.all.map(\.name))
        ) { name in PageDistribution.all.first { $0.name == name } }
    }
}
