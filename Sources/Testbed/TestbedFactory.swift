import BenchCore
import BenchModel
import QUIC
import Runner
import SystemIO
import Transport

extension ProfileTestbed: PageExecutor {
    var hasPathEvents: Bool { profile.hasPathEvents }

    func execute(_ run: RunSpec, register: (StopFlag?) -> Void) -> RunRecord {
        runOnce(run, register: register)
    }
}

/// The testbed of every profile's block: a `ProfileTestbed` with the request's servers and
/// settings, netbench's own client, and the clients and background traffic plugged in.
public final class TestbedFactory: PageExecutorFactory {
    let request: RunRequest
    let credentials: RunCredentials
    /// qlog and QUIC key-log files for the whole plan, checked before the first run.
    let diagnostics: DiagnosticFiles?
    let clients: [RunClient: PageLoadFactory]
    let background: BackgroundTrafficFactory?

    /// `clients`: the page-load factories of the clients other than netbench's own (a run of a
    /// client without one fails, naming it); `background`: what runs a profile's cross traffic.
    public init(request: RunRequest, clients: [PageLoadFactory] = [], background: BackgroundTrafficFactory? = nil) throws {
        self.request = request
        self.clients = Dictionary(clients.map { ($0.client, $0) }, uniquingKeysWith: { a, _ in a })
        self.background = background
        credentials = try RunCredentials(hosts: request.scenarios.flatMap { $0.scenario.origins.map(\.host) })
        diagnostics = request.qlogDirectory == nil && request.keyLogFile == nil ? nil
            : try DiagnosticFiles(qlogDirectory: request.qlogDirectory, keyLogPath: request.keyLogFile)
    }

    public func prepare(notice: (String) -> Void) throws {
        for client in request.clients where client != .builtin {
            guard let factory = clients[client] else {
                throw BenchError.run("--client \(client.rawValue): this build has no such client")
            }
            try factory.prepare(scenarios: request.scenarios.map(\.scenario), notice: notice)
        }
    }

    public func makeExecutor(profile: Profile, profileIndex: Int) throws -> PageExecutor {
        let r = request
        let rendered = r.clients.contains { clients[$0]?.needsRenderedPages == true }
        return try ProfileTestbed(profile: profile, scenarios: r.scenarios.map(\.scenario), credentials: credentials,
                                  withQUIC: r.transports.contains(.h3), tlsVersion: r.tlsVersion, keyLogFile: r.keyLogFile,
                                  tcpCongestionControl: r.tcpCongestionControl, repeatView: r.repeatView,
                                  quic: QUICConfiguration().with {
                                      $0.diagnostics = diagnostics
                                      $0.congestionControl = r.quicCongestionControl
                                  }, seed: r.seed &+ UInt64(profileIndex), library: r.library,
                                  emulatorRealtime: r.emulatorRealtime, renderPages: rendered,
                                  tlsRecords: r.tlsRecords, emulatorPrecise: r.emulatorPrecise,
                                  emulatorNormalScheduler: r.emulatorNormalScheduler, lateBinding: r.lateBinding,
                                  clients: clients, background: background)
    }

    public func idealPltMs(profile: Profile, scenarioIndex: Int, transport: TransportKind) -> Double? {
        guard profile.isEmulated, let rtt = profile.rtt else { return nil }
        let path = try? ProfileLink.paths(of: profile, library: request.library).first
        let finishing = RunFinishing(rttMs: rtt.nanoseconds.inMilliseconds,
                                     downlinkBitsPerSecond: path.flatMap { ProfileLink.downlinkBitsPerSecond($0) },
                                     configuredTLS12: request.tlsVersion == .tls12)
        return finishing.plannedIdeal(transport)?.pltMs(request.scenarios[scenarioIndex].scenario)
    }
}
