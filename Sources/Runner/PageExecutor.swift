import Foundation
import BenchCore
import BenchModel
import Transport
import QUIC
import SystemIO

/// One run as the scheduler asks for it.
public struct RunSpec: Sendable, Hashable {
    public var scenarioIndex: Int
    public var transport: TransportKind
    /// Index among the counted runs of the cell; warm-ups are negative (-1, -2, …).
    public var index: Int
    public var client: RunClient
    /// False for the migration baseline: the same load without the profile's network events.
    public var withEvents: Bool
    public var timeout: Nanoseconds?

    public init(scenarioIndex: Int, transport: TransportKind, index: Int, client: RunClient = .builtin,
                withEvents: Bool = true, timeout: Nanoseconds? = nil) {
        self.scenarioIndex = scenarioIndex; self.transport = transport; self.index = index
        self.client = client; self.withEvents = withEvents; self.timeout = timeout
    }
}

/// Does one run of one profile's block and returns its record; the scheduler decides what runs
/// when (warm-ups, interleaving, migration baselines, persistence, cancellation, shards, resume).
/// The built-in implementation is `NetworkBlock` (servers, emulated network, built-in or Chromium
/// client); tests use stand-ins that need no sockets.
public protocol PageExecutor: AnyObject {
    /// Whether the profile changes the network during a run (each such run is then followed by a
    /// baseline run without the change).
    var hasPathEvents: Bool { get }
    /// `register` receives the run's stop handle (nil when it ends), so a cancel can end it at once.
    func execute(_ run: RunSpec, register: (StopFlag?) -> Void) -> RunRecord
    /// Releases the block's network and servers.
    func close()
}

/// Makes the executor of each profile's block.
public protocol PageExecutorFactory: AnyObject {
    func makeExecutor(profile: Profile, profileIndex: Int) throws -> PageExecutor
    /// The physical lower bound of a run's page load, in ms, before any run was measured (for the ETA).
    func idealPltMs(profile: Profile, scenarioIndex: Int, transport: TransportKind) -> Double?
}

/// One page load by one client: netbench's own loader (`PageRun`) or Chromium (`ChromiumPageRun`).
protocol PageLoad {
    func execute(register: (StopFlag?) -> Void) throws -> PageRun.Outcome
}

extension PageRun: PageLoad {}
extension ChromiumPageRun: PageLoad {}

extension NetworkBlock: PageExecutor {
    var hasPathEvents: Bool { profile.hasPathEvents }

    func execute(_ run: RunSpec, register: (StopFlag?) -> Void) -> RunRecord {
        runOnce(scenario: scenarios[run.scenarioIndex], scenarioIndex: run.scenarioIndex, transport: run.transport,
                index: run.index, timeout: run.timeout, withEvents: run.withEvents, client: run.client, register: register)
    }
}

/// The real thing: per profile, a `NetworkBlock` with the request's servers and settings.
final class BuiltinExecutorFactory: PageExecutorFactory {
    let request: RunRequest
    let credentials: RunCredentials
    /// qlog and QUIC key-log files for the whole plan, checked before the first run.
    let diagnostics: DiagnosticFiles?

    init(request: RunRequest) throws {
        self.request = request
        credentials = try RunCredentials(hosts: request.scenarios.flatMap { $0.scenario.origins.map(\.host) })
        diagnostics = request.qlogDirectory == nil && request.keyLogFile == nil ? nil
            : try DiagnosticFiles(qlogDirectory: request.qlogDirectory, keyLogPath: request.keyLogFile)
    }

    func makeExecutor(profile: Profile, profileIndex: Int) throws -> PageExecutor {
        let r = request
        return try NetworkBlock(profile: profile, scenarios: r.scenarios.map(\.scenario), credentials: credentials,
                                withQUIC: r.transports.contains(.h3), tlsVersion: r.tlsVersion, keyLogFile: r.keyLogFile,
                                tcpCongestionControl: r.tcpCongestionControl, repeatView: r.repeatView,
                                quic: QUICConfiguration().with {
                                    $0.diagnostics = diagnostics
                                    $0.congestionControl = r.quicCongestionControl
                                }, seed: r.seed &+ UInt64(profileIndex), library: r.library, emulatorRealtime: r.emulatorRealtime,
                                renderPages: r.clients.contains(.chromium), tlsRecords: r.tlsRecords, emulatorPrecise: r.emulatorPrecise,
                                emulatorNormalScheduler: r.emulatorNormalScheduler, lateBinding: r.lateBinding)
    }

    func idealPltMs(profile: Profile, scenarioIndex: Int, transport: TransportKind) -> Double? {
        guard profile.isEmulated, let rtt = profile.rtt else { return nil }
        let path = try? ProfileLink.paths(of: profile, library: request.library).first
        let ideal = IdealPageLoad(rttMs: rtt.nanoseconds.inMilliseconds, downlinkBitsPerSecond: path.flatMap { ProfileLink.downlinkBitsPerSecond($0) },
                                  transport: transport)
        return ideal.pltMs(request.scenarios[scenarioIndex].scenario)
    }
}
