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

    static func resolve(_ c: RunCommand) throws -> RunPlanInput {
        let library = Library.locate()
        var suiteName = "adhoc"
        var scenarioPaths: [String] = []
        var profileNames = ["loopback"]
        var transports: [TransportKind] = [.h1, .h2]
        var runs = 10
        var warmup = 0
        var seed: UInt64 = 1
        var baseline: TransportKind?
        var clients: [RunClient] = [.builtin]
        var suiteRepeatView = false
        var suiteBytes: [UInt8]?
        var suiteAuto = false
        var tlsRecords = TLSRecordPolicy.dynamic
        var suiteAdaptive: (precision: Double?, maxRuns: Int?, budget: Nanoseconds?) = (nil, nil, nil)

        let inputs = c.files.isEmpty ? [library.suitePath("default")] : c.files
        for file in inputs {
            if let pages = try corpusPages(file) {
                scenarioPaths += pages
            } else if try isSuite(file) {
                let suite = try Suite.load(from: file)
                suiteBytes = (suiteBytes ?? []) + [UInt8](FileManager.default.contents(atPath: file) ?? Data())
                suiteName = suite.name
                scenarioPaths += suite.scenarios
                profileNames = suite.profiles
                transports = suite.transports
                runs = suite.runs
                suiteAuto = suite.$runs.isAuto
                warmup = suite.warmupRuns ?? 0
                seed = suite.seed ?? seed
                baseline = suite.baselineTransport
                if let s = suite.client, let list = RunClient.parseList(s) { clients = list }
                suiteRepeatView = suite.repeatView ?? false
                if let t = suite.tlsRecords, let p = TLSRecordPolicy(t) { tlsRecords = p }
                suiteAdaptive = (suite.precision, suite.maxRuns, suite.budget?.nanoseconds)
            } else {
                scenarioPaths.append(file)
            }
        }
        if c.files.count == 1, try corpusPages(c.files[0]) != nil || !(try isSuite(c.files[0])) {
            suiteName = URL(fileURLWithPath: c.files[0]).deletingPathExtension().lastPathComponent
        }
        transports = c.transports ?? transports
        clients = c.clients ?? clients
        profileNames = c.profiles ?? profileNames
        if case .fixed(let n) = c.runs { runs = n; suiteAuto = false }
        let adaptive: AdaptiveRuns? = c.runs == .auto || (c.runs == nil && suiteAuto)
            ? AdaptiveRuns(precision: c.precision ?? suiteAdaptive.precision ?? 0.02, maxRuns: c.maxRuns ?? suiteAdaptive.maxRuns ?? 30,
                           budget: c.budget ?? suiteAdaptive.budget) : nil
        if adaptive == nil, c.precision != nil || c.maxRuns != nil || c.budget != nil {
            throw BenchError.usage("--precision, --max-runs and --budget go with --runs auto")
        }
        if let a = adaptive { runs = a.maxRuns }
        warmup = c.warmup ?? warmup
        seed = c.seed ?? seed
        if let b = baseline, !transports.contains(b) { baseline = transports.first }

        let scenarios = try scenarioPaths.map { ($0, try Scenario.load(from: $0)) }
        let profiles = try profileNames.map { try library.profile($0) }
        var request = RunRequest(suiteName: suiteName, scenarios: scenarios, profiles: profiles, transports: transports,
                                 runs: runs, warmupRuns: warmup, seed: seed, baselineTransport: baseline ?? transports.first,
                                 outputDirectory: c.out ?? defaultOutputDirectory(suiteName))
        request.adaptive = adaptive
        request.timeoutPerRun = c.timeout
        request.tlsVersion = c.tls
        request.keyLogFile = c.keylog ?? ProcessInfo.processInfo.environment["SSLKEYLOGFILE"]
        request.qlogDirectory = c.qlog
        request.clients = clients
        if let cc = c.tcpCC { request.tcpCongestionControl = cc }
        request.repeatView = c.repeatView || suiteRepeatView
        request.emulatorRealtime = c.emulatorRealtime
        request.tlsRecords = c.tlsRecords ?? tlsRecords
        request.lateBinding = c.lateBinding ?? .standard
        request.emulatorPrecise = c.emulatorPrecise
        if let q = c.quicCC { request.quicCongestionControl = q }
        var input = RunPlanInput(request: request, suiteName: suiteName)
        if let shard = c.shard {
            input.request.shard = shard
            input.shardSource = "--shard"
        } else if let (shard, source) = try ShardSpec.fromEnvironment(ProcessInfo.processInfo.environment) {
            input.request.shard = shard
            input.shardSource = source
        }
        let digest = PlanDigest(scenarioContents: scenarioPaths.map { [UInt8](FileManager.default.contents(atPath: $0) ?? Data()) },
                                profiles: profiles, suiteContents: suiteBytes, transports: transports, clients: clients.map(\.rawValue),
                                runs: adaptive.map { "auto(precision=\($0.precision),min=\($0.minRuns),max=\($0.maxRuns))" } ?? String(runs),
                                warmupRuns: warmup, seed: seed, netbenchVersion: netbenchVersion)
        input.request.planDigest = try digest.hex()
        if let dir = c.resume { try input.resume(from: dir, out: c.out) }
        return input
    }

    /// `--resume DIR`: the log of DIR must be of this plan (digest, shard) and this host; its runs are kept.
    mutating func resume(from dir: String, out: String?) throws {
        if let out, URL(fileURLWithPath: out).standardizedFileURL.path != URL(fileURLWithPath: dir).standardizedFileURL.path {
            throw BenchError.usage("--resume \(dir) continues in that directory; --out \(out) names another")
        }
        let log = URL(fileURLWithPath: dir).appendingPathComponent(ResultsLog.fileName).path
        guard FileManager.default.fileExists(atPath: log) else {
            throw BenchError.data("\(dir): no \(ResultsLog.fileName) to resume (was this directory written by netbench run?)")
        }
        let contents = try ResultsLog.load(from: log)
        let h = contents.header
        let host = ProcessInfo.processInfo.hostName
        if h.host.hostname != host {
            throw BenchError.data("\(log): host is '\(h.host.hostname ?? "unknown")'; this machine is '\(host)' (resume on the machine that began the run)")
        }
        if h.shard != request.shard {
            throw BenchError.data("\(log): shard is \(h.shard?.description ?? "none"); this run's is \(request.shard?.description ?? "none")")
        }
        if h.planDigest != request.planDigest {
            let differences = PlanComparison.differences(h.suite, version: h.netbenchVersion, against: currentSuiteInfo(), version: netbenchVersion)
            throw BenchError.data("\(log): planDigest is \(h.planDigest); this plan's is \(request.planDigest ?? "")"
                                  + (differences.isEmpty ? " (the contents of a scenario, profile or suite file changed)" : " (\(differences.joined(separator: "; ")))"))
        }
        if contents.droppedBytes > 0 {
            writeError("netbench: note: \(log): the last line was cut off (a run interrupted mid-write): that run is made again")
        }
        request.finishedRuns = contents.runs
        request.outputDirectory = dir
        resuming = true
    }

    func currentSuiteInfo() -> SuiteInfo {
        let r = request
        return SuiteInfo(name: r.suiteName, scenarios: r.scenarios.map { $0.scenario.name }, profiles: r.profiles, transports: r.transports,
                         runs: r.runs, warmupRuns: r.warmupRuns, seed: r.seed, baselineTransport: r.baselineTransport,
                         client: r.clients.map(\.rawValue).joined(separator: ","))
    }

    /// A directory given as a file (a corpus): the scenario files it stands for; nil for a file.
    static func corpusPages(_ path: String) throws -> [String]? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
        return try CorpusManifest.scenarioFiles(inDirectory: path, suite: "netbench run", key: "SUITE_OR_SCENARIO", value: path)
    }

    /// A suite has `scenarios`; a scenario has `resources`.
    static func isSuite(_ path: String) throws -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else { throw BenchError.data("\(path): does not exist or cannot be read") }
        guard let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            _ = try JSONFile.decode([String: Int].self, from: data, file: path) // raises the JSON syntax error with its position
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
        func stat(_ m: String, _ cell: CellKey) -> Stat? { a.summary(m, cell).map { Stat(median: $0.median, p95: $0.p95) } }
        cells = a.cells.map { cell in
            Cell(scenario: cell.scenario, profile: cell.profile, transport: cell.transport.rawValue, client: cell.client?.rawValue,
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
        .init(expected: "a whole number from 1 to 100000, or auto", completion: .choices(["auto", "5", "10", "30"])) { text in
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
