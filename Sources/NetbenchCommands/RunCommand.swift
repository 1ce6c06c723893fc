import Foundation
import SystemIO
import LinkEmulator
import BenchCore
import BenchModel
import CommandLineKit
import Runner
import Testbed
import Browsers
import Workloads
import RemoteExecution
import TLS
import QUIC

struct RunCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "run",
            abstract: "run a suite or scenarios and write results, summary and report",
            discussion: """
            Loads pages (scenarios) through the replay server over each transport and profile, interleaving \
            the runs (h1 h2 h3 h1 h2 h3 …), and writes:
              DIR/runs.jsonl     a header line, then every run's raw timestamps, one line per run as it ends
              DIR/results.json   the same runs as one file (schema v1), written when the run ends
              DIR/summary.csv    per scenario/profile/transport/metric: n, median, p90, p95, mean, sd, 95% CI
              DIR/report.html    the comparative report (open it in a browser)

            With no file, runs the default suite (Scenarios/suites/default.json). A suite names its scenarios, \
            profiles, transports and runs; options given here override it. With scenario files, the defaults \
            are --transport h1,h2 --profile loopback --runs 10.
            """,
            examples: [
                "netbench run",
                "netbench run Scenarios/pages/mobile-median.json -t h1,h2 -n 10 -o /tmp/nb",
                "netbench run Scenarios/suites/weak-network.json --runs 5",
                "netbench run Scenarios/pages/mobile-median.json --transport h1,h2,h3 --client builtin,chromium",
                "netbench run Scenarios/pages/small-page.json --json > summary.json",
                "netbench run Scenarios/suites/default.json --shard 2/4 -o shard-2",
                "netbench run Scenarios/suites/default.json --resume results/20240601T120000Z-default",
                "netbench run Scenarios/pages/mobile-median.json --runs auto --precision 2% --max-runs 30",
            ],
            exitCodes: [
                ExitCodeDoc(.success, "ok (even if some runs failed: see the results)"),
                ExitCodeDoc(.runFailed, "every run failed, setup failed, or the run was interrupted"),
                Netbench.usageExit,
                ExitCodeDoc(.dataError, "bad scenario, profile or suite; --resume of another plan or host"),
                ExitCodeDoc(.noPermission, "missing privilege for an emulated profile"),
            ])
    }

    @Argument("SUITE_OR_SCENARIO", help: "a suite file, scenario files or a corpus directory (default: the default suite)",
              completion: .file(extensions: ["json"])) var files: [String]
    @Option("--transport", "-t", value: "LIST", help: "transports to compare: h1 (HTTP/1.1+TLS), h2 (HTTP/2+TLS), h3 (HTTP/3+QUIC)", parse: .transports) var transports: [TransportKind]?
    @Option("--profile", "-p", value: "LIST", help: "network profiles by name (see 'netbench profiles') or file; loopback = no emulation", parse: .list(of: .nonEmpty)) var profiles: [String]?
    @Option("--runs", "-n", value: "N", help: "counted runs per scenario × profile × transport, or auto: until the 95% CI of each cell's median PLT is within ±--precision", parse: .runs) var runs: RunsSetting?
    @Option("--precision", value: "P", help: "--runs auto: the median PLT's 95% CI half-width to reach, relative (default 2%)", parse: .percent) var precision: Double?
    @Option("--max-runs", value: "N", help: "--runs auto: at most this many runs per cell (default 30; at least 5 are made)", parse: .int(5...100_000)) var maxRuns: Int?
    @Option("--budget", value: "D", help: "--runs auto: start no new round after this long, e.g. 1200s", parse: .duration()) var budget: Nanoseconds?
    @Option("--shard", value: "I/N", help: "run only shard I of N (1-based) of the plan; also from JOB_COMPLETION_INDEX+NETBENCH_SHARD_COUNT, CI_NODE_INDEX/CI_NODE_TOTAL, SLURM_ARRAY_TASK_ID/_MIN/_COUNT", parse: .shard) var shard: ShardSpec?
    @Option("--resume", value: "DIR", help: "continue the interrupted run in DIR (same plan and host): finished runs are kept, the cut-off run repeated", parse: .directory) var resume: String?
    @Option("--warmup", value: "N", help: "extra runs first, recorded but left out of statistics", parse: .int(0...1000)) var warmup: Int?
    @Option("--out", "-o", value: "DIR", help: "output directory (default: results/<UTC time>-<suite>/)", parse: .directory) var out: String?
    @Option("--seed", value: "N", help: "seed for loss and other random choices (default: the suite's, else 1)", parse: .uint64) var seed: UInt64?
    @Option("--timeout", value: "D", help: "limit per run, e.g. 30s (default: 10 × the ideal load time + 30 s)", parse: .duration()) var timeout: Nanoseconds?
    @Option("--tls", value: "V", help: "force TLS 1.2 or 1.3 for h1/h2 (default: 1.3 negotiated)", parse: .choice(TLSVersion.self)) var tls: TLSVersion?
    @Option("--keylog", value: "FILE", help: "append TLS secrets in NSS key-log format (default: $SSLKEYLOGFILE)", parse: .file()) var keylog: String?
    @Option("--qlog", value: "DIR", help: "write a qlog file per QUIC connection (<client|server>-<scid>.sqlog)", parse: .directory) var qlog: String?
    @Flag("--repeat-view", help: "keep TLS sessions and QUIC tickets between runs: later runs resume (QUIC 0-RTT); each connection records resumed / earlyDataAccepted (use --warmup 1)") var repeatView: Bool
    @Flag("--emulator-realtime", help: "kept for compatibility: the emulator's packet loop runs under SCHED_FIFO by default now (see 'netbench calibrate --normal-scheduler')") var emulatorRealtime: Bool
    @Flag("--emulator-precise", help: "the emulator's precise mode: its loop, under SCHED_FIFO, stops sleeping shortly before each release and polls (release lateness below the timer floor, at the cost of CPU the endpoints may need; see 'netbench calibrate --precise')") var emulatorPrecise: Bool
    @Option("--tcp-cc", value: "NAME", help: "TCP congestion control on every socket (default cubic; recorded per connection)", parse: .nonEmpty) var tcpCC: String?
    @Option("--late-binding", value: "SIZE", help: "HTTP/2 server: at most SIZE bytes wait unsent in the kernel (TCP_NOTSENT_LOWAT) so stream priorities choose what is sent next, as h2o does (default 16KiB); off: the kernel queues whatever the server writes, as nginx does", parse: .lateBinding) var lateBinding: LateBinding?
    @Option("--tls-records", value: "R", help: "server TLS record sizing: dynamic (one packet per record at first and after an idle second, 16 KiB after 1 MB; default), 16k, or a fixed size such as 4KiB", parse: .tlsRecords) var tlsRecords: TLSRecordPolicy?
    @Option("--quic-cc", value: "NAME", help: "QUIC congestion control", parse: .choice(QUICCongestionControl.self)) var quicCC: QUICCongestionControl?
    @Option("--client", value: "LIST", help: "who loads the pages: builtin (netbench's loader, default), chromium (a fresh headless Chromium per run, served real HTML/CSS/JS), or both, interleaved (the report then sets them side by side)", parse: .clients) var clients: [RunClient]?
    @Flag("--filmstrip", help: "with --client chromium: after each profile's runs, one more browser load per scenario and transport, capturing what it paints; the report shows the frames every 100 ms side by side per transport (not a measured run: capturing costs CPU)") var filmstrip: Bool
    @Option("--label", value: "TEXT", help: "a name for this run recorded with the results (source.label), beside the git commit and branch of the working directory when it is a repository; 'history' and '--push' use it", parse: .nonEmpty) var label: String?
    @Option("--server", value: "HOST:PORT", help: "load every origin from this server over the real network (names as SNI and Host; h3 over UDP to the same port; profile 'network', RTT from TCP connects); checks its certificates and, at /.well-known/netbench, that it serves these scenarios", parse: .nonEmpty) var server: String?
    @Option("--ca", value: "FILE", help: "--server: PEM file of the roots the server's certificates must verify against (default: the system store, OpenSSL's default verify paths)", parse: .file()) var ca: String?
    @Flag("--json", help: "print the summary (per cell: runs, medians, p95, ideal) and the output paths as JSON instead of the table") var json: Bool
    @Flag("--quiet", "-q", help: "no progress lines and no table; errors only (the files are written as always)") var quiet: Bool

    func validate() throws { _ = try OutputMode.from(json: json, quiet: quiet) }

    func run() throws -> ExitCode {
        let mode = try OutputMode.from(json: json, quiet: quiet)
        let plan = try RunPlanInput.resolve(self)
        var (request, suiteName) = (plan.request, plan.suiteName)
        if filmstrip {
            guard request.clients.contains(.chromium) else {
                throw BenchError.usage("--filmstrip needs --client chromium (the built-in client paints nothing)")
            }
            request.filmstrip = true
        }
        var executors: PageExecutorFactory?
        var serverLine: String?
        if let server {
            let endpoint: RemoteEndpoint
            do { endpoint = try RemoteEndpoint(parsing: server) } catch { throw BenchError.usage("\(error)") }
            let credentials: RunCredentials
            if let ca {
                guard let pem = FileManager.default.contents(atPath: ca).flatMap({ String(data: $0, encoding: .utf8) }), pem.contains("BEGIN CERTIFICATE") else {
                    throw BenchError.data("\(ca): not a readable PEM certificate file")
                }
                credentials = RunCredentials(caPEM: pem)
            } else {
                do { credentials = try RunCredentials.systemStore() } catch { throw BenchError.run("--server without --ca trusts the system store: \(error)") }
            }
            request.profiles = [RemoteExecutorFactory.profile]
            let factory = try RemoteExecutorFactory(endpoint: endpoint, request: request, credentials: credentials)
            serverLine = factory.identity.map { "server \(endpoint): \($0)" }
            executors = factory
        } else if ca != nil {
            throw BenchError.usage("--ca needs --server")
        }
        if request.profiles.contains(where: \.isEmulated) { try PrivilegeGate.requireEmulation() }
        let out = request.outputDirectory
        let runner = BenchmarkRunner(request: request, netbenchVersion: netbenchVersion,
                                     executors: try executors ?? StandardExecutors.testbed(request))
        let progress = ProgressDisplay(silent: mode != .table)
        let interrupt = InterruptHandler { runner.cancel() }
        defer { interrupt.remove() }
        let c = request.clients
        progress.line("netbench \(netbenchVersion): \(suiteName): \(request.scenarios.count) scenario(s) × \(request.profiles.count) profile(s) × \(request.transports.map(\.rawValue).joined(separator: ",")) × \(request.adaptive.map { "auto (≤ \($0.maxRuns))" } ?? String(request.runs)) run(s)\(c == [.builtin] ? "" : " × " + c.map(\.rawValue).joined(separator: ","))\(request.warmupRuns > 0 ? " + \(request.warmupRuns) warm-up" : "") → \(out)")
        // Leftovers of dead runs (their lock is free) go before this run starts; a live run beside
        // this one shares the CPUs, which its figures and ours will feel.
        if getuid() == 0 {
            let removed = EmulatedNetwork.cleanupStale()
            if !removed.isEmpty { progress.line("removed \(removed.count) namespace(s) left by netbench runs that died: \(removed.joined(separator: ", "))") }
        }
        for other in RunLock.liveOthers() {
            writeError("netbench: warning: another netbench run (pid \(other.pid.map(String.init) ?? "unknown")) is emulating a network on this machine: both share the CPUs, and both runs' figures feel it")
        }
        if let serverLine { progress.line(serverLine) }
        if let shard = request.shard { progress.line("shard \(shard) (\(plan.shardSource)), plan \(request.planDigest ?? "")") }
        if plan.resuming { progress.line("resuming \(out): \(request.finishedRuns.count) run(s) kept") }
        let sink = ResultsLogSink(directory: out, resuming: plan.resuming)
        let source = SourceDetection.detect(label: label)
        sink.source = source
        var results = try runner.execute(observer: progress, sink: sink)
        // A resumed run keeps the source its log's header recorded.
        if plan.resuming, let logged = try? ResultsLog.load(from: sink.path).header.source { results.source = logged } else { results.source = source }
        try ResultsWriter.writeFinal(results, to: out)
        switch mode {
        case .table:
            print(ResultsWriter.terminalSummary(results), terminator: "")
            print("results: \(out)/results.json\nsummary: \(out)/summary.csv\nreport:  \(out)/report.html")
        case .json:
            try OutputMode.printJSON(RunSummaryJSON(results, directory: out, interrupted: runner.isCancelled))
        case .quiet:
            break
        }
        if runner.isCancelled {
            if mode != .json { writeError("interrupted: \(results.runs.count) run(s) kept in \(out)/runs.jsonl (continue with --resume \(out))") }
            return .runFailed
        }
        let ok = results.runs.filter { $0.status == .ok }.count
        if ok == 0 && !results.runs.isEmpty { return .runFailed }
        return .success
    }
}

extension ValueParser where T == [RunClient] {
    static var clients: ValueParser<[RunClient]> {
        .init(expected: "builtin, chromium or builtin,chromium", completion: .choices(["builtin", "chromium", "builtin,chromium"])) { RunClient.parseList($0) }
    }
}
