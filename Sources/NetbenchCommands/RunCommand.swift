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
                  DIR/runs.csv       one row per run (failed and warm-up runs included)
                  DIR/summary.csv    per scenario/profile/transport/metric: n, median, p90, p95, mean, sd, 95% CI
                  DIR/summary.md     the summary as Markdown (for pull-request comments)
                  DIR/report.html    the comparative report (open it in a browser)

                A run is appended to runs.jsonl in one write and fsync as it ends: a crash, Ctrl-C or kill -9 \
                loses at most the run in flight; --resume DIR continues, and 'netbench report DIR' writes the \
                other files again from the log. Progress is one line per run on stderr with an ETA, then a \
                summary table. Ctrl-C stops the run in progress and removes the network namespaces. Emulated \
                profiles need root; without it netbench runs itself again in a user and network namespace \
                where the kernel allows it, else exits 77.

                With no file, runs the default suite (Scenarios/suites/default.json: the median mobile page over \
                h1, h2, h3 on loopback, Cable, 4G and 3GFast, adaptive runs, about 10 minutes on 2 cores). A suite \
                names its scenarios, profiles, transports and runs; options given here override it. With scenario \
                files, the defaults are --transport h1,h2 --profile loopback --runs 10.

                --runs auto stops a cell once the distribution-free 95% interval of its median PLT (order \
                statistics, exact binomial coverage) is within ±--precision; a suite may say "runs": "auto". \
                --shard gives each shard whole scenario × profile blocks (all transports, runs interleaved), or \
                with more shards than blocks a block's run indices (with --runs auto, whole blocks only); \
                'netbench merge' pools the shards. --resume of another plan, shard or host exits 65 naming what \
                differs; unfinished cells repeat their warm-ups.

                Every run records its server options (runs[].server: tlsRecords, lateBinding for h2, the \
                congestion control read back from the server's sockets); a suite's "tlsRecords" sets \
                --tls-records (nginx's default is 16k).

                The built-in client's handshakes weigh what a browser's do: every TLS ClientHello (TCP and \
                QUIC) carries an extension of a GREASE type that servers ignore, 1,650 bytes of zeros, so that \
                it is as long as Chromium 156's with its post-quantum key share (about 1,980 bytes; OpenSSL \
                3.0 cannot offer ML-KEM), and a QUIC handshake takes two Initial datagrams as Chromium's does. \
                On a 1 Mbit/s uplink that is 13 ms per connection. --client-hello-pad 0 sends the libraries' \
                own (about 326 bytes); runs[].server.clientHelloPadding records it.

                --client chromium: a fresh headless Chromium per run (scripts/bootstrap.sh --chromium, or \
                NETBENCH_CHROMIUM) in the client's namespace, trusting the run's certificates by their public \
                keys, over exactly the run's protocol (a resource fetched over another fails the run; h3 is \
                forced with --origin-to-force-quic-on, and netbench's server also answers Chromium with Alt-Svc h3, \
                as a site reached over h3 has advertised it: else Chromium holds low-priority requests to an origin \
                it does not know as QUIC-capable, at most 6 per host and 10 per page in flight). It \
                records Resource Timing in the same schema ("client": "chromium") plus loadEventMs, firstPaintMs, \
                firstContentfulPaintMs and largestContentfulPaintMs; a suite's "client" sets it too.

                \(RunClient.firefoxDocumentation)

                \(RunClient.pageCompletionDocumentation)

                --server HOST:PORT: no local servers and no emulator; every origin is reached at HOST:PORT (h3 \
                over UDP to the same port) with its name as SNI and Host, and runs are recorded under the \
                profile "network". Before the first run each origin name gets one verified handshake per \
                protocol stack, against --ca or the system store (SSL_CERT_FILE, SSL_CERT_DIR, else OpenSSL's \
                default paths); one that does not verify exits 2. Then GET /.well-known/netbench: 'netbench \
                serve' of another scenario exits 65, a 404 (nginx, a CDN) is fine. Each run's RTT, and so its \
                ideal, is the minimum of 5 TCP connects just before it (a UDP-only server: QUIC's minimum RTT, \
                as metrics.rttSource says). A response whose status or size differs from the scenario fails the \
                run. Servers: 'netbench serve', the nginx configuration of 'netbench scenario export' (h1, h2), \
                ngtcp2's gtlsserver (h3). HOST must resolve to IPv4. A server that is not 'netbench serve' \
                answers at once, so its ideal leaves the scenario's think times out (metrics.idealModel says \
                which model applied). --client chromium loads from --server too (h1, h2, h3): Chromium trusts \
                the certificates of --ca by their public keys, which it matches against the certificates the \
                server sends, so give --ca the server's own certificate (nginx's, or 'netbench serve --cert F \
                --key K' with --ca F); the CA of 'serve --ca-out' is not sent by the server and Chromium refuses \
                it (ERR_CERT_AUTHORITY_INVALID, for h3 ERR_QUIC_PROTOCOL_ERROR); without --ca, Chromium's own \
                store. --client firefox loads from --server too (h1, h2, h3), with the preferences given above: \
                every origin name resolved to the server's address, h3 forced by the Alt-Svc mapping; Firefox \
                trusts every certificate of --ca (a CA, such as that of 'serve --ca-out', or the server's own \
                certificate) through its fresh profile's NSS database, and without --ca only its own built-in \
                roots (not SSL_CERT_FILE). The server must serve pages a browser runs (recorded pages, or \
                'netbench serve --pages'); a recorded page's own ports all go to the server's port.

                --pcap DIR (emulated profiles only; DIR must exist): per run, path and direction, the IPv4 packets \
                entering the emulator's link model (dropped ones included) and leaving it, as pcap files with \
                LINKTYPE_RAW named after the run, the path, up or down and in or out (listed in the run's \
                emulator.pcapFiles). Give --keylog too to decrypt TLS and QUIC in Wireshark or tshark \
                (tls.keylog_file). A capture that cannot be written stops with one notice; the runs go on.

                --link-log DIR (emulated profiles only; DIR must exist): per run, path and direction, a link log \
                in Mahimahi's mm-link format (<run>-<path>-<up|down>.log; listed in the run's emulator.links), \
                which mm-throughput-graph and mm-delay-graph read: '# base timestamp: B', then per line a time \
                in ms and '+ BYTES' (arrival), '- BYTES DELAY' (left the bottleneck after DELAY ms, \
                serialization included), '# 1500' (every delivery opportunity of a trace; for a constant rate \
                one per 1,500 bytes' serialization time; none when unlimited) or 'd 1 BYTES' (a drop of any \
                cause; mm-throughput-graph stops at 'd' lines, mm-link's own included, mahimahi#136: \
                filter them out with grep -v ' d '). Costs CPU at high rates. A log that cannot be written \
                stops with one notice; the runs go on. Without it every emulated run still records each \
                direction's queueing delay (p50, p90, p99, max) and its throughput, offered load, capacity, \
                drops and delay over time.

                Environment variables and where the scenario library is found: 'netbench man'.
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
                ExitCodeDoc(
                    .runFailed,
                    "every run failed, setup failed, a results, key-log or qlog file could not be "
                        + "written (a full disk: the runs so far are kept), or the run was interrupted"),
                Netbench.usageExit,
                ExitCodeDoc(.dataError, "bad scenario, profile or suite; --resume of another plan or host"),
                ExitCodeDoc(.noPermission, "missing privilege for an emulated profile"),
            ])
    }

    @Argument(
        "SUITE_OR_SCENARIO", help: "a suite file, scenario files or a corpus directory (default: the default suite)",
        completion: .file(extensions: ["json"])) var files: [String]
    @Option(
        "--transport", "-t", value: "LIST",
        help: "transports to compare: h1 (HTTP/1.1+TLS), h2 (HTTP/2+TLS), h3 (HTTP/3+QUIC)", parse: .transports)
    var transports: [TransportKind]?
    @Option(
        "--profile", "-p", value: "LIST",
        help: "network profiles by name (see 'netbench profiles') or file; loopback = no emulation",
        parse: .list(of: .nonEmpty)) var profiles: [String]?
    @Option(
        "--runs", "-n", value: "N",
        help:
            "counted runs per scenario × profile × transport, or auto: until the 95% CI of each cell's median PLT is "
                + "within ±--precision",
        parse: .runs) var runs: RunsSetting?
    @Option(
        "--precision", value: "P",
        help: "--runs auto: the median PLT's 95% CI half-width to reach, relative (default 2%)", parse: .percent)
    var precision: Double?
    @Option(
        "--max-runs", value: "N",
        help: "--runs auto: at most this many runs per cell (default 30); a cell settles "
            + "after 6 at the earliest (no 95% interval of the median below 6)",
        parse: .int(5...100_000)) var maxRuns: Int?
    @Option(
        "--budget", value: "D", help: "--runs auto: start no new round after this long, e.g. 1200s", parse: .duration())
    var budget: Nanoseconds?
    @Option(
        "--shard", value: "I/N",
        help:
            "run only shard I of N (1-based) of the plan; also from JOB_COMPLETION_INDEX+NETBENCH_SHARD_COUNT, "
                + "CI_NODE_INDEX/CI_NODE_TOTAL, SLURM_ARRAY_TASK_ID/_MIN/_COUNT",
        parse: .shard) var shard: ShardSpec?
    @Option(
        "--resume", value: "DIR",
        help:
            "continue the interrupted run in DIR (same plan and host): finished runs are kept, the cut-off run "
                + "repeated",
        parse: .directory) var resume: String?
    @Option(
        "--warmup", value: "N", help: "extra runs first, recorded but left out of statistics", parse: .int(0...1000))
    var warmup: Int?
    @Option(
        "--out", "-o", value: "DIR", help: "output directory (default: results/<UTC time>-<suite>/)", parse: .directory)
    var out: String?
    @Option(
        "--seed", value: "N", help: "seed for loss and other random choices (default: the suite's, else 1)",
        parse: .uint64) var seed: UInt64?
    @Option(
        "--timeout", value: "D", help: "limit per run, e.g. 30s (default: 10 × the ideal load time + 30 s)",
        parse: .duration()) var timeout: Nanoseconds?
    @OptionGroup var serverOptions: ServerOptionGroup
    @OptionGroup var clientOptions: ClientOptionGroup
    @OptionGroup var diagnostics: DiagnosticOptionGroup
    @Option(
        "--pcap", value: "DIR",
        help: "emulated runs: write pcap files of the packets entering and leaving the emulator's links into DIR, "
            + "which must exist (<run>-<path>-<up|down>-<in|out>.pcap)",
        parse: .directory) var pcap: String?
    @Option(
        "--link-log", value: "DIR",
        help: "emulated runs: write a Mahimahi-format link log (+ - # d lines) per run, path and direction into "
            + "DIR, which must exist (<run>-<path>-<up|down>.log)",
        parse: .directory) var linkLog: String?
    @Flag(
        "--repeat-view",
        help:
            "keep TLS sessions and QUIC tickets between runs: later runs resume (QUIC 0-RTT); each connection records "
                + "resumed / earlyDataAccepted (use --warmup 1)"
    ) var repeatView: Bool
    @Flag(
        "--ecn",
        help:
            "ECN at the endpoints: QUIC sends ECT(0) (until ngtcp2's validation fails) and, on emulated profiles, TCP "
                + "negotiates ECN (net.ipv4.tcp_ecn=1 in the namespaces); needs a congestion control that reacts to CE "
                + "(cubic or reno, not bbr). Each connection records whether ECN was negotiated (TCP) or validated "
                + "(QUIC) and the codepoints received (connections[].ecn)"
    ) var ecn: Bool
    @Flag(
        "--emulator-precise",
        help:
            "the emulator's precise mode: its loop, under SCHED_FIFO, stops sleeping shortly before each release and "
                + "polls (release lateness below the timer floor, at the cost of CPU the endpoints may need; see "
                + "'netbench calibrate --precise')"
    ) var emulatorPrecise: Bool
    @Option(
        "--release-window", value: "D",
        help: "how long past its release a packet of a streaming link of 500 Mbit/s or more may wait for the ones "
            + "due after it, to leave in one pass and one GSO write with them (counted in the release lateness; "
            + "see 'netbench calibrate --release-window'); default 100us, 0 releases every packet in a pass of its "
            + "own. Recorded as emulator.releaseWindowUs",
        parse: .duration(atLeast: 0)) var releaseWindow: Nanoseconds?
    @Option(
        "--client", value: "LIST",
        help:
            "who loads the pages: builtin (netbench's loader, default), chromium (a fresh headless Chromium per run, "
                + "served real HTML/CSS/JS), firefox (a fresh headless Firefox per run over WebDriver BiDi), or "
                + "several, interleaved (the report then sets them side by side)",
        parse: .clients) var clients: [RunClient]?
    @Flag(
        "--filmstrip",
        help: "with --client chromium: after each profile's runs, one more browser load per scenario "
            + "and transport, capturing what it paints; the report shows the frames every 100 ms side by side per "
            + "transport, results.json keeps them (filmstrips); not a measured run: capturing costs CPU")
    var filmstrip: Bool
    @Flag(
        "--visual-metrics",
        help: "with --client chromium or firefox: during every run the browser's painted frames are captured "
            + "(Chromium: its PNG screencast, a frame per paint, at most 400×400; Firefox: a WebDriver BiDi viewport "
            + "screenshot every 100 ms, the first before navigation) and the run records WebPageTest's Speed Index "
            + "(speedIndexMs), first visual change and visually complete 85/95/99/100% (colour histograms of each "
            + "frame against the first and last, near-white left out); reports show SI beside FCP and LCP; "
            + "'check' can threshold speedIndexMs")
    var visualMetrics: Bool
    @Option(
        "--cpu-slowdown", value: "N",
        help: "with --client chromium or firefox: the browser's CPU N times slower (1–100, 1: none; a phone's is "
            + "3–6× this "
            + "machine's), as a suite's \"cpuSlowdown\" does. Chromium: DevTools Emulation.setCPUThrottlingRate N; "
            + "Firefox: a cgroup cpu quota on its whole process tree from the page's setup on (not its startup), "
            + "1/N of one CPU in a short period (2 ms, or N ms "
            + "when N > 2: the kernel's smallest quota is 1 ms), made per run and removed after; needs root and a "
            + "cgroup cpu controller (exit 2 naming what is missing). Refused for the built-in client, which shares "
            + "its process with the replay server and the emulator. Each run records runs[].cpuSlowdown (factor, "
            + "mechanism, and for the quota throttledPeriods)",
        parse: .slowdown) var cpuSlowdown: Double?
    @Flag(
        "--no-deterministic-js",
        help: "with --client chromium or firefox on a recorded page (every body recorded): leave the page's Date and "
            + "Math.random alone. By default, as Web Page Replay does, a script run in every document before the "
            + "page's own makes Date.now()/new Date() read the recording's start (the scenario's recordedAt) at "
            + "navigation and advance with real time from there, and Math.random() a generator (mulberry32) "
            + "seeded with --seed, so a replay makes the recording's choices; each run records "
            + "runs[].deterministicJS (dateStart, randomSeed, mechanism) when applied (netbench's replay only, not "
            + "--server)")
    var noDeterministicJS: Bool
    @Option(
        "--label", value: "TEXT",
        help:
            "a name for this run recorded with the results (source.label), beside the git commit and branch of the "
                + "working directory when it is a repository; 'history' and '--push' use it",
        parse: .nonEmpty) var label: String?
    @Option(
        "--server", value: "HOST:PORT",
        help:
            "load every origin from this server over the real network (names as SNI and Host; h3 over UDP to the same "
                + "port; profile 'network', RTT from TCP connects); checks its certificates and, at "
                + "/.well-known/netbench, that it serves these scenarios",
        parse: .nonEmpty) var server: String?
    @Option(
        "--ca", value: "FILE",
        help:
            "--server: PEM file of the roots the server's certificates must verify against (default: the system store, "
                + "OpenSSL's default verify paths)",
        parse: .file()) var ca: String?
    @Flag(
        "--json",
        help:
            "print the summary (per cell: runs, medians, p95, ideal) and the output paths as JSON instead of the table")
    var json: Bool
    @Flag("--quiet", "-q", help: "no progress lines and no table; errors only (the files are written as always)")
    var quiet: Bool

    func validate() throws { _ = try OutputMode.from(json: json, quiet: quiet) }

    func run() throws -> ExitCode {
        let mode = try OutputMode.from(json: json, quiet: quiet)
        let plan = try RunPlanInput.resolve(self)
        var (request, suiteName) = (plan.request, plan.suiteName)
        if filmstrip {
            guard request.pageLoads.clients.contains(.chromium) else {
                throw BenchError.usage("--filmstrip needs --client chromium (the built-in client paints nothing)")
            }
            request.pageLoads.filmstrip = true
        }
        try Self.checkCPUSlowdown(request.pageLoads)
        if visualMetrics {
            guard request.pageLoads.clients.contains(where: { $0 != .builtin }) else {
                throw BenchError.usage(
                    "--visual-metrics needs --client chromium or firefox (the built-in client paints nothing)")
            }
            request.pageLoads.visualMetrics = true
        }
        let (executors, serverLine) = try remoteExecutors(&request)
        if request.profiles.contains(where: \.isEmulated) { try PrivilegeGate.requireEmulation() }
        if executors == nil { try PrivilegeGate.requireCongestionControl(for: request) }
        let out = request.outputDirectory
        let runner = BenchmarkRunner(
            request: request, netbenchVersion: netbenchVersion,
            executors: try executors ?? StandardExecutors.testbed(request))
        let progress = ProgressDisplay(silent: mode != .table)
        let interrupt = InterruptHandler { runner.cancel() }
        defer { interrupt.remove() }
        progress.line(planLine(request, suiteName: suiteName))
        prepareMachine(progress)
        if let serverLine { progress.line(serverLine) }
        if let shard = request.shard {
            progress.line("shard \(shard) (\(plan.shardSource)), plan \(request.planDigest ?? "")")
        }
        if plan.resuming { progress.line("resuming \(out): \(request.finishedRuns.count) run(s) kept") }
        let sink = ResultsLogSink(directory: out, resuming: plan.resuming)
        let source = SourceDetection.detect(label: label)
        sink.source = source
        var results = try runner.execute(observer: progress, sink: sink)
        // A resumed run keeps the source its log's header recorded.
        if plan.resuming, let logged = try? ResultsLog.load(from: sink.path).header.source {
            results.source = logged
        } else {
            results.source = source
        }
        try ResultsWriter.writeFinal(results, to: out)
        try printSummary(results, mode: mode, directory: out, interrupted: runner.isCancelled)
        if runner.isCancelled {
            if mode != .json {
                writeError(
                    "interrupted: \(results.runs.count) run(s) kept in \(out)/runs.jsonl (continue with --resume "
                        + "\(out))"
                )
            }
            return .runFailed
        }
        let ok = results.runs.filter { $0.status == .ok }.count
        if ok == 0 && !results.runs.isEmpty { return .runFailed }
        return .success
    }
}

extension RunCommand {
    /// `--server`: the executor factory for a real server (certificates checked, server identified)
    /// and the line that says who answered; nil without `--server`.
    func remoteExecutors(_ request: inout RunRequest) throws -> (PageExecutorFactory?, String?) {
        guard let server else {
            if ca != nil { throw BenchError.usage("--ca needs --server") }
            return (nil, nil)
        }
        let endpoint: RemoteEndpoint
        do { endpoint = try RemoteEndpoint(parsing: server) } catch { throw BenchError.usage("\(error)") }
        let credentials: RunCredentials
        if let ca {
            guard let pem = FileManager.default.contents(atPath: ca).flatMap({ String(data: $0, encoding: .utf8) }),
                pem.contains("BEGIN CERTIFICATE")
            else {
                throw BenchError.data("\(ca): not a readable PEM certificate file")
            }
            credentials = RunCredentials(caPEM: pem)
        } else {
            do { credentials = try RunCredentials.systemStore() } catch {
                throw BenchError.run("--server without --ca trusts the system store: \(error)")
            }
        }
        request.profiles = [RemoteExecutorFactory.profile]
        let factory = try RemoteExecutorFactory(
            endpoint: endpoint, request: request, credentials: credentials, browsers: StandardExecutors.browsers())
        return (factory, factory.identity.map { "server \(endpoint): \($0)" })
    }

    /// The plan in one line: scenarios × profiles × transports × runs (× clients) + warm-ups → directory.
    func planLine(_ request: RunRequest, suiteName: String) -> String {
        let clients = request.pageLoads.clients
        let runs = request.adaptive.map { "auto (≤ \($0.maxRuns))" } ?? String(request.runs)
        let transports = request.transports.map(\.rawValue).joined(separator: ",")
        let clientPart = clients == [.builtin] ? "" : " × " + clients.map(\.rawValue).joined(separator: ",")
        let warmups = request.warmupRuns > 0 ? " + \(request.warmupRuns) warm-up" : ""
        return "netbench \(netbenchVersion): \(suiteName): \(request.scenarios.count) scenario(s) × "
            + "\(request.profiles.count) profile(s) × \(transports) × \(runs) run(s)\(clientPart)\(warmups) → "
            + request.outputDirectory
    }

    /// Leftovers of dead runs (their lock is free) go before this run starts; a live run beside
    /// this one shares the CPUs, which its figures and ours will feel.
    func prepareMachine(_ progress: ProgressDisplay) {
        if getuid() == 0 {
            let removed = EmulatedNetwork.cleanupStale()
            if !removed.isEmpty {
                progress.line(
                    "removed \(removed.count) namespace(s) left by netbench runs that died: "
                        + removed.joined(separator: ", "))
            }
        }
        for other in RunLock.liveOthers() {
            writeError(
                "netbench: warning: another netbench run (pid \(other.pid.map(String.init) ?? "unknown")) "
                    + "is emulating a network on this machine: both share the CPUs, and both runs' figures feel it")
        }
    }

    func printSummary(_ results: ResultsFile, mode: OutputMode, directory out: String, interrupted: Bool) throws {
        switch mode {
        case .table:
            print(ResultsWriter.terminalSummary(results), terminator: "")
            print("results: \(out)/results.json\nsummary: \(out)/summary.csv\nreport:  \(out)/report.html")
        case .json:
            try OutputMode.printJSON(RunSummaryJSON(results, directory: out, interrupted: interrupted))
        case .quiet:
            break
        }
    }
}

extension ValueParser where T == [RunClient] {
    static var clients: ValueParser<[RunClient]> {
        .init(
            expected: "builtin, chromium, firefox or a comma-separated list of them",
            completion: .choices(["builtin", "chromium", "firefox", "builtin,chromium", "builtin,chromium,firefox"])
        ) { RunClient.parseList($0) }
    }
}

extension RunCommand {
    /// `--cpu-slowdown` (or a suite's cpuSlowdown) before the first run: browsers only (64), and for
    /// Firefox a cgroup cpu controller this process can use (2, naming what is missing).
    static func checkCPUSlowdown(_ p: PageLoadSettings) throws {
        guard let n = p.cpuSlowdown else { return }
        guard n >= 1 else { throw BenchError.usage("--cpu-slowdown \(n): must be at least 1") }
        if p.clients.contains(.builtin) {
            throw BenchError.usage(
                "--cpu-slowdown: the built-in client shares its process with the replay server and the emulator's "
                    + "packet loop, so a CPU quota would slow them too; use --client chromium or firefox")
        }
        if p.clients.contains(.firefox), case .failure(let why) = CPUQuotaGroup.locate() {
            throw BenchError.run("--cpu-slowdown for --client firefox: \(why.message)")
        }
    }
}

extension ValueParser where T == Double {
    /// `--cpu-slowdown`: a factor from 1 to 100.
    static var slowdown: ValueParser<Double> {
        .init(expected: "a slowdown factor from 1 to 100 (e.g. 4)") {
            Double($0).flatMap { $0 >= 1 && $0 <= 100 ? $0 : nil }
        }
    }
}
