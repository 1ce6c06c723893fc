import Foundation
import BenchCore
import BenchModel
import Runner
import TLS
import QUIC

struct RunCommand: Command {
    static let name = "run"
    static let summary = "run a suite or scenarios and write results, summary and report"
    static let help = """
    usage: netbench run [SUITE.json | SCENARIO.json ...] [--transport h1,h2,h3] [--profile NAME,...]
                        [--runs N] [--warmup N] [--out DIR] [--seed N] [--timeout DURATION]
                        [--tls 1.2|1.3] [--keylog FILE] [--qlog DIR] [--tcp-cc NAME] [--quic-cc NAME]
                        [--repeat-view] [--emulator-realtime] [--client builtin|chromium|builtin,chromium]

    Loads pages (scenarios) through the replay server over each transport and profile, interleaving
    the runs (h1 h2 h3 h1 h2 h3 …), and writes after every run, atomically:
      DIR/results.json   every run's raw timestamps (schema v1)
      DIR/summary.csv    per scenario/profile/transport/metric: n, median, p90, p95, mean, sd, 95% CI
      DIR/report.html    the comparative report (open it in a browser)

    With no file, runs the default suite (Scenarios/suites/default.json). A suite names its scenarios,
    profiles, transports and runs; options given here override it. With scenario files, the defaults
    are --transport h1,h2 --profile loopback --runs 10.

    options:
      --transport LIST   transports to compare: h1 (HTTP/1.1+TLS), h2 (HTTP/2+TLS), h3 (HTTP/3+QUIC)
      --profile LIST     network profiles by name (see 'netbench profiles') or file; loopback = no emulation
      --runs N           counted runs per scenario × profile × transport
      --warmup N         extra runs first, recorded but left out of statistics
      --out DIR          output directory (default: results/<UTC time>-<suite>/)
      --seed N           seed for loss and other random choices (default: the suite's, else 1)
      --timeout D        limit per run, e.g. 30s (default: 10 × the ideal load time + 30 s)
      --tls V            force TLS 1.2 or 1.3 for h1/h2 (default: 1.3 negotiated)
      --keylog FILE      append TLS secrets in NSS key-log format (default: $SSLKEYLOGFILE)
      --qlog DIR         write a qlog file per QUIC connection (<client|server>-<scid>.sqlog)
      --repeat-view      keep TLS sessions and QUIC tickets between runs: later runs resume (QUIC 0-RTT);
                         each connection records resumed / earlyDataAccepted (use --warmup 1)
      --emulator-realtime  run the emulator's packet loop under SCHED_FIFO: steadier release times on a
                         busy machine at moderate rates (see 'netbench calibrate --realtime')
      --tcp-cc NAME      TCP congestion control on every socket (default cubic; recorded per connection)
      --quic-cc NAME     QUIC congestion control: reno, cubic (default), bbr, bbr2
      --client LIST      who loads the pages: builtin (netbench's loader, default), chromium (a fresh
                         headless Chromium per run, served real HTML/CSS/JS), or both, interleaved
                         (the report then sets them side by side)

    examples:
      netbench run
      netbench run Scenarios/pages/mobile-median.json --transport h1,h2 --runs 10 --out /tmp/nb
      netbench run Scenarios/suites/weak-network.json --runs 5
      netbench run Scenarios/pages/mobile-median.json --transport h1,h2,h3 --client builtin,chromium
    exit codes: 0 ok (even if some runs failed: see results), 2 every run failed or setup failed,
                64 usage, 65 bad scenario/profile/suite, 77 missing privilege
    """

    static func run(_ args: inout Arguments) throws -> ExitCode {
        let transportsOpt = try args.option("--transport", "-t")
        let profilesOpt = try args.option("--profile", "-p")
        let runsOpt = try args.intOption("--runs", "-n", range: 1...100_000)
        let warmupOpt = try args.intOption("--warmup", "--warmup", range: 0...1000)
        let outOpt = try args.option("--out", "-o")
        let seedOpt = try args.option("--seed")
        let timeoutOpt = try args.option("--timeout")
        let tlsOpt = try args.option("--tls")
        let keylogOpt = try args.option("--keylog")
        let qlogOpt = try args.option("--qlog")
        let clientOpt = try args.option("--client")
        let tcpCC = try args.option("--tcp-cc")
        let repeatView = args.flag("--repeat-view")
        let emulatorRealtime = args.flag("--emulator-realtime")
        let quicCCText = try args.option("--quic-cc")
        let files = try args.positionals()

        // Option values are checked before any file is read: a typo is a usage error (64).
        var transportList: [TransportKind]?
        if let t = transportsOpt {
            guard let list = TransportKind.parseList(t) else { throw BenchError.usage("--transport '\(t)': expected a list of h1, h2, h3") }
            transportList = list
        }
        var seedValue: UInt64?
        if let s = seedOpt {
            guard let v = UInt64(s) else { throw BenchError.usage("--seed '\(s)' is not a whole number ≥ 0") }
            seedValue = v
        }
        var timeoutValue: Nanoseconds?
        if let t = timeoutOpt {
            guard let ns = Units.parseDuration(t), ns > 0 else { throw BenchError.usage("--timeout '\(t)' is not a duration (e.g. 30s)") }
            timeoutValue = ns
        }
        var clientList: [RunClient]?
        if let c = clientOpt {
            guard let list = RunClient.parseList(c) else { throw BenchError.usage("--client '\(c)': expected builtin, chromium or builtin,chromium") }
            clientList = list
        }
        var quicCC: QUICCongestionControl?
        if let q = quicCCText {
            guard let v = QUICCongestionControl(rawValue: q) else {
                throw BenchError.usage("--quic-cc '\(q)': expected one of \(QUICCongestionControl.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            quicCC = v
        }
        var tlsValue: TLSVersion?
        if let v = tlsOpt {
            guard let version = TLSVersion(rawValue: v) else { throw BenchError.usage("--tls '\(v)': expected 1.2 or 1.3") }
            tlsValue = version
        }

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

        var inputs = files
        if inputs.isEmpty { inputs = [library.suitePath("default")] }
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
                if let c = suite.client, let list = RunClient.parseList(c) { clients = list }
                suiteRepeatView = suite.repeatView ?? false
            } else {
                scenarioPaths.append(file)
            }
        }
        if files.count == 1, !(try isSuite(files[0])) {
            suiteName = URL(fileURLWithPath: files[0]).deletingPathExtension().lastPathComponent
        }
        if let list = transportList { transports = list }
        if let list = clientList { clients = list }
        if let p = profilesOpt { profileNames = p.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
        if let n = runsOpt { runs = n }
        if let w = warmupOpt { warmup = w }
        if let v = seedValue { seed = v }
        if let b = baseline, !transports.contains(b) { baseline = transports.first }

        let scenarios = try scenarioPaths.map { ($0, try Scenario.load(from: $0)) }
        let profiles = try profileNames.map { try library.profile($0) }
        if profiles.contains(where: \.isEmulated) { try PrivilegeGate.requireEmulation() }

        let out = outOpt ?? defaultOutputDirectory(suiteName)
        var request = RunRequest(suiteName: suiteName, scenarios: scenarios, profiles: profiles, transports: transports,
                                 runs: runs, warmupRuns: warmup, seed: seed, baselineTransport: baseline ?? transports.first,
                                 outputDirectory: out)
        request.timeoutPerRun = timeoutValue
        request.tlsVersion = tlsValue
        request.keyLogFile = keylogOpt ?? ProcessInfo.processInfo.environment["SSLKEYLOGFILE"]
        request.qlogDirectory = qlogOpt
        request.clients = clients
        if let tcpCC { request.tcpCongestionControl = tcpCC }
        request.repeatView = repeatView || suiteRepeatView
        request.emulatorRealtime = emulatorRealtime
        if let quicCC { request.quicCongestionControl = quicCC }

        let runner = BenchmarkRunner(request: request, netbenchVersion: netbenchVersion)
        let progress = ProgressDisplay()
        let interrupt = InterruptHandler { runner.cancel() }
        defer { interrupt.remove() }
        progress.line("netbench \(netbenchVersion): \(suiteName): \(scenarios.count) scenario(s) × \(profiles.count) profile(s) × \(transports.map(\.rawValue).joined(separator: ",")) × \(runs) run(s)\(clients == [.builtin] ? "" : " × " + clients.map(\.rawValue).joined(separator: ","))\(warmup > 0 ? " + \(warmup) warm-up" : "") → \(out)")
        let results = try runner.execute(observer: progress) { results in
            try ResultsWriter.writeProgress(results, to: out)
        }
        try ResultsWriter.writeFinal(results, to: out)
        print(ResultsWriter.terminalSummary(results), terminator: "")
        print("results: \(out)/results.json\nsummary: \(out)/summary.csv\nreport:  \(out)/report.html")
        if runner.isCancelled {
            progress.line("interrupted: \(results.runs.count) run(s) kept in \(out)/results.json")
            return .runFailed
        }
        let ok = results.runs.filter { $0.status == .ok }.count
        if ok == 0 && !results.runs.isEmpty { return .runFailed }
        return .success
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
