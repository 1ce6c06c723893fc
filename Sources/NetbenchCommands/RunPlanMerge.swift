import Foundation
import BenchCore
import BenchModel
import Runner

/// What the files on `run`'s command line say, before any flag: the scenarios of every file, the
/// bytes of the suites (for the plan's digest), the plan's name and the suites' values.
struct PlanFiles {
    var name = "adhoc"
    var scenarioPaths: [String] = []
    var suiteBytes: [UInt8]?
    var suite = SuiteValues()

    /// `inputs`: the files given, or the default suite when none is.
    static func read(_ inputs: [String], given: [String]) throws -> PlanFiles {
        var f = PlanFiles()
        for file in inputs {
            if let pages = try RunPlanInput.corpusPages(file) {
                f.scenarioPaths += pages
            } else if try RunPlanInput.isSuite(file) {
                let suite = try Suite.load(from: file)
                f.suiteBytes = (f.suiteBytes ?? []) + [UInt8](FileManager.default.contents(atPath: file) ?? Data())
                f.name = suite.name
                f.scenarioPaths += suite.scenarios
                f.suite.read(suite)
            } else {
                f.scenarioPaths.append(file)
            }
        }
        if given.count == 1, try RunPlanInput.corpusPages(given[0]) != nil || !(try RunPlanInput.isSuite(given[0])) {
            f.name = URL(fileURLWithPath: given[0]).deletingPathExtension().lastPathComponent
        }
        return f
    }
}

/// The suites' values, a later suite's over an earlier one's; without a suite, `run`'s defaults
/// for scenario files (h1,h2, loopback, 10 runs).
struct SuiteValues {
    var profiles = ["loopback"]
    var transports: [TransportKind] = [.h1, .h2]
    var runs = 10
    var auto = false
    var precision: Double?
    var maxRuns: Int?
    var budget: Nanoseconds?
    var warmup = 0
    var seed: UInt64 = 1
    var baseline: TransportKind?
    var server = ServerSettings.benchmark
    var pageLoads = PageLoadSettings()

    /// A key the suite leaves out keeps the earlier value for `seed`, `client` and `tlsRecords`,
    /// and goes back to the default for the others.
    mutating func read(_ suite: Suite) {
        profiles = suite.profiles
        transports = suite.transports
        runs = suite.runs
        auto = suite.$runs.isAuto
        (precision, maxRuns, budget) = (suite.precision, suite.maxRuns, suite.budget?.nanoseconds)
        warmup = suite.warmupRuns ?? 0
        seed = suite.seed ?? seed
        baseline = suite.baselineTransport
        if let s = suite.client, let list = RunClient.parseList(s) { pageLoads.clients = list }
        pageLoads.repeatView = suite.repeatView ?? false
        pageLoads.cpuSlowdown = suite.cpuSlowdown
        if let t = suite.tlsRecords, let p = TLSRecordPolicy(t) { server.tlsRecords = p }
    }
}

/// The plan's matrix and counts: the suites' values with `run`'s flags over them.
struct PlanValues {
    var profiles: [String]
    var transports: [TransportKind]
    var runs: Int
    var adaptive: AdaptiveRuns?
    var warmup: Int
    var seed: UInt64
    var baseline: TransportKind?

    static func merge(_ s: SuiteValues, _ c: RunCommand) throws -> PlanValues {
        let transports = c.transports ?? s.transports
        let adaptive = try adaptiveRuns(s, c)
        var runs = s.runs
        if case .fixed(let n) = c.runs { runs = n }
        // A baseline the flags left out of the plan gives way to the first transport.
        let baseline = s.baseline.flatMap { transports.contains($0) ? $0 : nil } ?? transports.first
        return PlanValues(
            profiles: c.profiles ?? s.profiles, transports: transports, runs: adaptive?.maxRuns ?? runs,
            adaptive: adaptive, warmup: c.warmup ?? s.warmup, seed: c.seed ?? s.seed, baseline: baseline)
    }

    /// `--runs auto` (or a suite's `"runs": "auto"` that `--runs N` does not override).
    static func adaptiveRuns(_ s: SuiteValues, _ c: RunCommand) throws -> AdaptiveRuns? {
        guard c.runs == .auto || (c.runs == nil && s.auto) else {
            if c.precision != nil || c.maxRuns != nil || c.budget != nil {
                throw BenchError.usage("--precision, --max-runs and --budget go with --runs auto")
            }
            return nil
        }
        return AdaptiveRuns(
            precision: c.precision ?? s.precision ?? 0.02, maxRuns: c.maxRuns ?? s.maxRuns ?? 30,
            budget: c.budget ?? s.budget)
    }
}

extension ServerOptionGroup {
    /// The flags given over `base` (a suite's values over `run`'s defaults, or `serve`'s).
    func merged(over base: ServerSettings) -> ServerSettings {
        var s = base
        if let v = tlsVersion { s.tlsVersion = v }
        if let r = tlsRecords { s.tlsRecords = r }
        if let l = lateBinding { s.lateBinding = l }
        if let cc = tcpCongestionControl { s.tcpCongestionControl = cc }
        if let q = quicCongestionControl { s.quicCongestionControl = q }
        if let u = quicUDPPayload { s.quicUDPPayload = u }
        if let p = quicPacing { s.quicPacing = p }
        return s
    }
}

extension ClientOptionGroup {
    /// The flags given over `base` (after the server's).
    func merged(over base: ServerSettings) -> ServerSettings {
        var s = base
        if let n = quicClientCIDLength { s.quicClientCIDLength = n }
        if let n = clientHelloPadding { s.clientHelloPadding = n }
        return s
    }
}

extension DiagnosticOptionGroup {
    var settings: DiagnosticSettings {
        DiagnosticSettings(keyLogFile: keyLogFile, qlogDirectory: qlog)
    }
}

extension RunCommand {
    /// `--client`, `--repeat-view` and `--timeout` over the suites' (`--filmstrip` is checked
    /// against the clients once the plan is resolved).
    func pageLoads(over base: PageLoadSettings) -> PageLoadSettings {
        var p = base
        p.clients = clients ?? base.clients
        p.repeatView = repeatView || base.repeatView
        p.timeout = timeout
        p.cpuSlowdown = cpuSlowdown ?? base.cpuSlowdown
        p.deterministicJS = !noDeterministicJS
        return p
    }

    /// `--emulator-precise`, `--release-window`; the packet loop runs under SCHED_FIFO 10.
    var emulator: EmulatorSettings {
        var e = EmulatorSettings(precise: emulatorPrecise)
        e.releaseWindow = releaseWindow
        return e
    }
}
