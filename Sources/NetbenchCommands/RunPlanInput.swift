import Foundation
import BenchCore
import BenchModel
import Reporters
import Runner
import Testbed
import Browsers
import Workloads
import RemoteExecution
import Statistics
import CommandLineKit

/// What `netbench run` will do: the suite's settings with the command line's options over them.
struct RunPlanInput {
    var request: RunRequest
    var suiteName: String
    /// Where the shard came from: "--shard" or the engine's variables.
    var shardSource = ""
    /// `--resume`: the log in the output directory continues.
    var resuming = false

    /// One merge per group of settings: the suites' values, then the flags over them.
    static func resolve(_ c: RunCommand) throws -> RunPlanInput {
        let library = Library.locate()
        let files = try PlanFiles.read(c.files.isEmpty ? [library.suitePath("default")] : c.files, given: c.files)
        let plan = try PlanValues.merge(files.suite, c)
        let scenarios = try files.scenarioPaths.map { ($0, try Scenario.load(from: $0)) }
        let profiles = try plan.profiles.map { try library.profile($0) }
        let out = c.out ?? defaultOutputDirectory(files.name)
        var request = RunRequest(
            suiteName: files.name, scenarios: scenarios, profiles: profiles,
            transports: plan.transports, runs: plan.runs, warmupRuns: plan.warmup, seed: plan.seed,
            baselineTransport: plan.baseline, outputDirectory: out)
        request.adaptive = plan.adaptive
        request.server = c.clientOptions.merged(over: c.serverOptions.merged(over: files.suite.server))
        if c.ecn { request.server.ecn = true }
        try request.server.checkECN(
            tcp: plan.transports.contains { $0 != .h3 } && request.server.tcpCongestionControl != nil,
            quic: plan.transports.contains(.h3))
        request.pageLoads = c.pageLoads(over: files.suite.pageLoads)
        request.emulator = c.emulator
        request.diagnostics = c.diagnostics.settings
        request.diagnostics.pcapDirectory = c.pcap
        request.diagnostics.linkLogDirectory = c.linkLog
        try request.diagnostics.checkPacketCapture(emulated: c.server == nil && profiles.contains(where: \.isEmulated))
        var input = RunPlanInput(request: request, suiteName: files.name)
        try input.takeShard(c.shard)
        input.request.planDigest = try digest(files, plan, profiles: profiles, clients: request.pageLoads.clients)
        if let dir = c.resume { try input.resume(from: dir, out: c.out) }
        return input
    }

    /// `--shard I/N`, else the shard a CI or batch system's variables name.
    mutating func takeShard(_ flag: ShardSpec?) throws {
        if let flag {
            request.shard = flag
            shardSource = "--shard"
        } else if let (shard, source) = try ShardSpec.fromEnvironment(ProcessInfo.processInfo.environment) {
            request.shard = shard
            shardSource = source
        }
    }

    /// The digest of what makes the plan: file contents, profiles, matrix, counts and version.
    static func digest(_ files: PlanFiles, _ plan: PlanValues, profiles: [Profile], clients: [RunClient]) throws
        -> String
    {
        let runs = plan.adaptive.map { "auto(precision=\($0.precision),min=\($0.minRuns),max=\($0.maxRuns))" }
        let contents = files.scenarioPaths.map { [UInt8](FileManager.default.contents(atPath: $0) ?? Data()) }
        let digest = PlanDigest(
            scenarioContents: contents,
            profiles: profiles, suiteContents: files.suiteBytes, transports: plan.transports,
            clients: clients.map(\.rawValue), runs: runs ?? String(plan.runs),
            warmupRuns: plan.warmup, seed: plan.seed, netbenchVersion: netbenchVersion)
        return try digest.hex()
    }

    /// `--resume DIR`: the log of DIR must be of this plan (digest, shard) and this host; its runs are kept.
    mutating func resume(from dir: String, out: String?) throws {
        if let out,
            URL(fileURLWithPath: out).standardizedFileURL.path != URL(fileURLWithPath: dir).standardizedFileURL.path
        {
            throw BenchError.usage("--resume \(dir) continues in that directory; --out \(out) names another")
        }
        let log = URL(fileURLWithPath: dir).appendingPathComponent(ResultsLog.fileName).path
        guard FileManager.default.fileExists(atPath: log) else {
            throw BenchError.data(
                "\(dir): no \(ResultsLog.fileName) to resume (was this directory written by netbench run?)")
        }
        let contents = try ResultsLog.load(from: log)
        let h = contents.header
        let host = ProcessInfo.processInfo.hostName
        if h.host.hostname != host {
            throw BenchError.data(
                "\(log): host is '\(h.host.hostname ?? "unknown")'; this machine is '\(host)' (resume on the machine "
                    + "that began the run)"
            )
        }
        if h.shard != request.shard {
            throw BenchError.data(
                "\(log): shard is \(h.shard?.description ?? "none"); this run's is "
                    + "\(request.shard?.description ?? "none")"
            )
        }
        if h.planDigest != request.planDigest {
            let differences = PlanComparison.differences(
                h.suite, version: h.netbenchVersion, against: currentSuiteInfo(), version: netbenchVersion)
            throw BenchError.data(
                "\(log): planDigest is \(h.planDigest); this plan's is \(request.planDigest ?? "")"
                    + (differences.isEmpty
                        ? " (the contents of a scenario, profile or suite file changed)"
                        : " (\(differences.joined(separator: "; ")))"))
        }
        if contents.droppedBytes > 0 {
            writeError(
                "netbench: note: \(log): the last line was cut off (a run interrupted mid-write): that run is made "
                    + "again"
            )
        }
        request.finishedRuns = contents.runs
        request.outputDirectory = dir
        resuming = true
    }

    func currentSuiteInfo() -> SuiteInfo {
        let r = request
        return SuiteInfo(
            name: r.suiteName, scenarios: r.scenarios.map { $0.scenario.name }, profiles: r.profiles,
            transports: r.transports,
            runs: r.runs, warmupRuns: r.warmupRuns, seed: r.seed, baselineTransport: r.baselineTransport,
            client: r.pageLoads.clients.map(\.rawValue).joined(separator: ","))
    }

    /// A directory given as a file (a corpus): the scenario files it stands for; nil for a file.
    static func corpusPages(_ path: String) throws -> [String]? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return nil
        }
        return try CorpusManifest.scenarioFiles(
            inDirectory: path, suite: "netbench run", key: "SUITE_OR_SCENARIO", value: path)
    }

    /// A suite has `scenarios`; a scenario has `resources`.
    static func isSuite(_ path: String) throws -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BenchError.data("\(path): does not exist or cannot be read")
        }
        guard let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            // Raises the JSON syntax error with its position.
            _ = try JSONFile.decode([String: Int].self, from: data, file: path)
            throw BenchError.data("\(path): not a JSON object")
        }
        return obj["scenarios"] != nil && obj["resources"] == nil
    }

    static func defaultOutputDirectory(_ suite: String) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return "results/\(f.string(from: Date()))-\(suite)"
    }
}

/// `netbench run --json`: the terminal summary's figures per cell, and where the files are.
struct RunSummaryJSON: Encodable {
    struct Stat: Encodable { var median: Double; var p95: Double }
    struct Cell: Encodable {
        var scenario: String
        var profile: String
        var transport: String
        var client: String?
        var runs: Int
        var failed: Int
        var pltMs: Stat?
        var ttfbMs: Stat?
        var handshakeMs: Stat?
        var idealPltMs: Double?
    }
    var results: String
    var summary: String
    var report: String
    var interrupted: Bool
    var cells: [Cell]

    init(_ r: ResultsFile, directory: String, interrupted: Bool) {
        results = directory + "/results.json"
        summary = directory + "/summary.csv"
        report = directory + "/report.html"
        self.interrupted = interrupted
        let a = ResultsAnalysis(r)
        func stat(_ m: String, _ cell: CellKey) -> Stat? {
            a.summary(m, cell).map { Stat(median: $0.median, p95: $0.p95) }
        }
        cells = a.cells.map { cell in
            Cell(
                scenario: cell.scenario, profile: cell.profile, transport: cell.transport.rawValue,
                client: cell.client?.rawValue,
                runs: a.countedRuns(cell).count, failed: a.runs(cell).filter { $0.status == .failed }.count,
                pltMs: stat("pltMs", cell), ttfbMs: stat("ttfbMs", cell), handshakeMs: stat("handshakeMs", cell),
                idealPltMs: a.summary("idealPltMs", cell)?.median)
        }
    }
}

/// `--runs N` or `--runs auto`.
enum RunsSetting: Equatable, ExpressibleByIntegerLiteral {
    case fixed(Int)
    case auto
    init(integerLiteral value: Int) { self = .fixed(value) }
}

extension ValueParser where T == RunsSetting {
    static var runs: ValueParser<RunsSetting> {
        .init(expected: "a whole number from 1 to 100000, or auto", completion: .choices(["auto", "5", "10", "30"])) {
            text in
            if text == "auto" { return .auto }
            return Int(text).flatMap { (1...100_000).contains($0) ? .fixed($0) : nil }
        }
    }
}

extension ValueParser where T == ShardSpec {
    static var shard: ValueParser<ShardSpec> {
        .init(expected: "I/N with 1 ≤ I ≤ N (e.g. 2/4)") { ShardSpec.parse($0) }
    }
}

/// What differs between two plans, in words (for refusals of resume and merge).
enum PlanComparison {
    static func differences(_ a: SuiteInfo, version va: String, against b: SuiteInfo, version vb: String) -> [String] {
        var out: [String] = []
        func diff<T: Equatable>(_ name: String, _ x: T, _ y: T, _ show: (T) -> String) {
            if x != y { out.append("\(name) \(show(x)) vs \(show(y))") }
        }
        diff("netbench version", va, vb) { $0 }
        diff("scenarios", a.scenarios, b.scenarios) { $0.joined(separator: ",") }
        diff("profiles", a.profiles.map(\.name), b.profiles.map(\.name)) { $0.joined(separator: ",") }
        diff("profile contents", a.profiles, b.profiles) { _ in "" }
        diff("transports", a.transports, b.transports) { $0.map(\.rawValue).joined(separator: ",") }
        diff("runs", a.runs, b.runs) { String($0) }
        diff("warm-up runs", a.warmupRuns ?? 0, b.warmupRuns ?? 0) { String($0) }
        diff("seed", a.seed, b.seed) { String($0) }
        diff("clients", a.client ?? "builtin", b.client ?? "builtin") { $0 }
        return out.map { $0.hasSuffix(" vs ") ? String($0.dropLast(4)) : $0 }
    }
}
