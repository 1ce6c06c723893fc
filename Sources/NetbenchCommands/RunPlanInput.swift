import Foundation
import BenchCore
import BenchModel
import Reporters
import Runner
import Statistics

/// What `netbench run` will do: the suite's settings with the command line's options over them.
struct RunPlanInput {
    var request: RunRequest
    var suiteName: String

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

        let inputs = c.files.isEmpty ? [library.suitePath("default")] : c.files
        for file in inputs {
            if try isSuite(file) {
                let suite = try Suite.load(from: file)
                suiteName = suite.name
                scenarioPaths += suite.scenarios
                profileNames = suite.profiles
                transports = suite.transports
                runs = suite.runs
                warmup = suite.warmupRuns ?? 0
                seed = suite.seed ?? seed
                baseline = suite.baselineTransport
                if let s = suite.client, let list = RunClient.parseList(s) { clients = list }
                suiteRepeatView = suite.repeatView ?? false
            } else {
                scenarioPaths.append(file)
            }
        }
        if c.files.count == 1, !(try isSuite(c.files[0])) {
            suiteName = URL(fileURLWithPath: c.files[0]).deletingPathExtension().lastPathComponent
        }
        transports = c.transports ?? transports
        clients = c.clients ?? clients
        profileNames = c.profiles ?? profileNames
        runs = c.runs ?? runs
        warmup = c.warmup ?? warmup
        seed = c.seed ?? seed
        if let b = baseline, !transports.contains(b) { baseline = transports.first }

        let scenarios = try scenarioPaths.map { ($0, try Scenario.load(from: $0)) }
        let profiles = try profileNames.map { try library.profile($0) }
        var request = RunRequest(suiteName: suiteName, scenarios: scenarios, profiles: profiles, transports: transports,
                                 runs: runs, warmupRuns: warmup, seed: seed, baselineTransport: baseline ?? transports.first,
                                 outputDirectory: c.out ?? defaultOutputDirectory(suiteName))
        request.timeoutPerRun = c.timeout
        request.tlsVersion = c.tls
        request.keyLogFile = c.keylog ?? ProcessInfo.processInfo.environment["SSLKEYLOGFILE"]
        request.qlogDirectory = c.qlog
        request.clients = clients
        if let cc = c.tcpCC { request.tcpCongestionControl = cc }
        request.repeatView = c.repeatView || suiteRepeatView
        request.emulatorRealtime = c.emulatorRealtime
        request.emulatorPrecise = c.emulatorPrecise
        if let q = c.quicCC { request.quicCongestionControl = q }
        return RunPlanInput(request: request, suiteName: suiteName)
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
            Cell(scenario: cell.scenario, profile: cell.profile, transport: cell.transport.rawValue, client: cell.client,
                 runs: a.countedRuns(cell).count, failed: a.runs(cell).filter { $0.status == .failed }.count,
                 pltMs: stat("pltMs", cell), ttfbMs: stat("ttfbMs", cell), handshakeMs: stat("handshakeMs", cell),
                 idealPltMs: a.summary("idealPltMs", cell)?.median)
        }
    }
}
