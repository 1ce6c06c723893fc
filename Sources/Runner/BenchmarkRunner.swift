import Foundation
import BenchCore
import BenchModel
import SystemIO
import Transport
import TLS
import QUIC
import Synchronization
import Replay

/// Which client loads the pages: netbench's own browser-like loader, or a real headless Chromium.
public enum RunClient: String, Sendable, CaseIterable {
    case builtin, chromium

    /// "builtin", "chromium" or both, comma-separated; nil when a name is unknown or repeated.
    public static func parseList(_ text: String) -> [RunClient]? {
        let list = text.split(separator: ",").map { RunClient(rawValue: $0.trimmingCharacters(in: .whitespaces)) }
        guard !list.isEmpty, list.allSatisfy({ $0 != nil }), Set(list.map { $0! }).count == list.count else { return nil }
        return list.map { $0! }
    }

    /// The Chromium binary runs would use, or nil; `chromiumInstallHint` says how to get one.
    public static var chromiumPath: String? { ChromiumBrowser.locate() }
    public static var chromiumInstallHint: String { ChromiumBrowser.installHint }
}

/// What `netbench run` asked for, resolved: scenario files loaded, profiles loaded.
public struct RunRequest: Sendable {
    public var suiteName: String
    public var scenarios: [(path: String, scenario: Scenario)]
    public var profiles: [Profile]
    public var transports: [TransportKind]
    public var runs: Int
    public var warmupRuns: Int
    public var seed: UInt64
    public var baselineTransport: TransportKind?
    public var outputDirectory: String
    /// Per-run limit; nil: derived from the profile (10 × the ideal page load + 30 s, at most 10 min).
    public var timeoutPerRun: Nanoseconds?
    public var keyLogFile: String?
    public var tlsVersion: TLSVersion?
    public var qlogDirectory: String?
    public var quicCongestionControl: QUICCongestionControl = .cubic
    /// Each run is made by every client in turn (interleaved, like the transports).
    public var clients: [RunClient] = [.builtin]
    /// Repeat views: keep TLS sessions and QUIC tickets between the runs of a profile block (the
    /// first run is cold; later ones resume, QUIC with 0-RTT). Use a warm-up run to fill them.
    public var repeatView = false
    /// Run the emulator's packet loop under SCHED_FIFO (steadier on a busy machine).
    public var emulatorRealtime = false
    /// The emulator's precise mode (polls shortly before each release; costs CPU, recorded per run).
    public var emulatorPrecise = false
    /// TCP congestion control, set on every socket (namespaces here default to bbr).
    public var tcpCongestionControl: String = "cubic"
    /// Where profiles named by a profile's `paths` are looked up.
    public var library: Library = Library.locate()

    public init(suiteName: String, scenarios: [(path: String, scenario: Scenario)], profiles: [Profile], transports: [TransportKind],
                runs: Int, warmupRuns: Int = 0, seed: UInt64 = 1, baselineTransport: TransportKind? = nil, outputDirectory: String) {
        self.suiteName = suiteName; self.scenarios = scenarios; self.profiles = profiles; self.transports = transports
        self.runs = runs; self.warmupRuns = warmupRuns; self.seed = seed; self.baselineTransport = baselineTransport
        self.outputDirectory = outputDirectory
    }
}

/// Progress reports for the executable to display (the runner prints nothing itself).
public protocol RunObserver: AnyObject {
    func blockStarting(profile: Profile, runs: Int)
    func runStarting(position: Int, total: Int, label: String)
    func runFinished(position: Int, total: Int, record: RunRecord)
    func notice(_ text: String)
}

/// Executes a run request: for each profile, sets up the network (loopback or emulated), starts the
/// replay servers, runs the interleaved matrix, and after every run rewrites the results atomically.
public final class BenchmarkRunner: @unchecked Sendable {
    public let request: RunRequest
    private let cancelled = Atomic<Bool>(false)
    private let currentLoop = Mutex<StopFlag?>(nil)
    private let netbenchVersion: String

    public init(request: RunRequest, netbenchVersion: String) {
        self.request = request
        self.netbenchVersion = netbenchVersion
    }

    /// Asks the runner to stop after the current run (safe from any thread, e.g. a SIGINT handler).
    public func cancel() {
        cancelled.store(true, ordering: .releasing)
        currentLoop.withLock { $0?.set() }
    }
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Runs everything; `persist` is called with the results after every run (write them to disk there).
    public func execute(observer: RunObserver, persist: (ResultsFile) throws -> Void) throws -> ResultsFile {
        let r = request
        var results = ResultsFile(
            netbenchVersion: netbenchVersion, startedAt: BenchmarkRunner.utcTimestamp(), host: BenchmarkRunner.hostInfo(),
            suite: SuiteInfo(name: r.suiteName, scenarios: r.scenarios.map { $0.scenario.name }, profiles: r.profiles,
                             transports: r.transports, runs: r.runs, warmupRuns: r.warmupRuns, seed: r.seed,
                             baselineTransport: r.baselineTransport, client: r.clients.map(\.rawValue).joined(separator: ",")))
        if r.clients.contains(.chromium) && ChromiumBrowser.locate() == nil {
            throw BenchError.run("--client chromium: Chromium is not installed; " + ChromiumBrowser.installHint)
        }
        try persist(results)
        let plan = RunPlan(scenarios: r.scenarios.count, profiles: r.profiles.count, transports: r.transports,
                           runs: r.runs, warmupRuns: r.warmupRuns)
        let hosts = r.scenarios.flatMap { $0.scenario.origins.map(\.host) }
        let credentials = try RunCredentials(hosts: hosts)
        if r.clients.contains(.chromium) { noteRenderedSizes(observer) }
        let total = plan.count * r.clients.count
        var position = 0
        for (pi, profile) in r.profiles.enumerated() {
            if isCancelled { break }
            let items = plan.items.filter { $0.profileIndex == pi }
            observer.blockStarting(profile: profile, runs: items.count * r.clients.count)
            let network = try NetworkBlock(profile: profile, scenarios: r.scenarios.map(\.scenario), credentials: credentials,
                                           withQUIC: r.transports.contains(.h3), tlsVersion: r.tlsVersion, keyLogFile: r.keyLogFile,
                                           tcpCongestionControl: r.tcpCongestionControl, repeatView: r.repeatView,
                                           quic: QUICConfiguration().with {
                                               $0.qlogDirectory = r.qlogDirectory
                                               $0.congestionControl = r.quicCongestionControl
                                           }, seed: r.seed &+ UInt64(pi), library: r.library, emulatorRealtime: r.emulatorRealtime,
                                           renderPages: r.clients.contains(.chromium), emulatorPrecise: r.emulatorPrecise)
            defer { network.close() }
            for item in items { for client in r.clients {
                if isCancelled { break }
                position += 1
                let (path, scenario) = r.scenarios[item.scenarioIndex]
                _ = path
                let who = r.clients == [.builtin] ? "" : "\(client.rawValue) · "
                let label = "\(scenario.name) · \(profile.name) · \(who)\(item.transport.rawValue) · " + (item.warmup ? "warm-up" : "run \(item.index + 1)/\(r.runs)")
                observer.runStarting(position: position, total: total, label: label)
                var record = network.run(scenario: scenario, scenarioIndex: item.scenarioIndex, transport: item.transport,
                                         index: item.index, timeout: r.timeoutPerRun, client: client) { flag in
                    currentLoop.withLock { $0 = flag }
                    if flag != nil && isCancelled { flag?.set() }
                }
                // An interrupted run measured nothing: it is not kept.
                if isCancelled { break }
                record.startedAt = record.startedAt ?? BenchmarkRunner.utcTimestamp()
                results.runs.append(record)
                try persist(results)
                observer.runFinished(position: position, total: total, record: record)
            } }
        }
        return results
    }

    /// Says, once, which rendered pages could not keep their scenario's size (they are served
    /// larger, never cut) and what a browser cannot discover as the scenario says.
    private func noteRenderedSizes(_ observer: RunObserver) {
        for (_, s) in request.scenarios where s.bulk == nil {
            let renderer = PageRenderer(scenario: s, port: 65535)
            let over = s.resources.filter { renderer.servedBytes(of: $0) > $0.bytes }
            if !over.isEmpty {
                observer.notice("\(s.name): rendered for the browser, " + over.map { "\($0.id) is \(renderer.servedBytes(of: $0) - $0.bytes) B larger" }.joined(separator: ", ")
                                + " than the scenario says (content does not fit; served whole)")
            }
            if !renderer.notes.isEmpty {
                observer.notice("\(s.name): for the browser, " + renderer.notes.prefix(3).joined(separator: "; ")
                                + (renderer.notes.count > 3 ? "; and \(renderer.notes.count - 3) more" : ""))
            }
        }
    }

    static func utcTimestamp(_ date: Date = Date()) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }

    static func hostInfo() -> HostInfo {
        let kernel = ProcessControl.readSmallFile("/proc/sys/kernel/osrelease")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown"
        return HostInfo(kernel: "Linux " + kernel, cpuCount: ProcessInfo.processInfo.activeProcessorCount,
                        hostname: ProcessInfo.processInfo.hostName)
    }
}
