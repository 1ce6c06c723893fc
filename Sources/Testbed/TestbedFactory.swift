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
    let parts: TestbedParts

    /// `clients`: the page-load factories of the clients other than netbench's own (a run of a
    /// client without one fails, naming it); `background`: what runs a profile's cross traffic.
    public init(request: RunRequest, clients: [PageLoadFactory] = [], background: BackgroundTrafficFactory? = nil)
        throws
    {
        self.request = request
        let hosts = request.scenarios.flatMap { $0.scenario.origins.map(\.host) }
        parts = TestbedParts(
            credentials: try RunCredentials(hosts: hosts),
            diagnostics: try request.diagnostics.open(),
            clients: Dictionary(clients.map { ($0.client, $0) }, uniquingKeysWith: { a, _ in a }),
            background: background)
    }

    public func prepare(notice: (String) -> Void) throws {
        for client in request.pageLoads.clients where client != .builtin {
            guard let factory = parts.clients[client] else {
                throw BenchError.run("--client \(client.rawValue): this build has no such client")
            }
            try factory.prepare(scenarios: request.scenarios.map(\.scenario), notice: notice)
        }
    }

    public func makeExecutor(profile: Profile, profileIndex: Int) throws -> PageExecutor {
        try ProfileTestbed(profile: profile, seed: request.seed &+ UInt64(profileIndex), request: request, parts: parts)
    }

    public func idealPltMs(profile: Profile, scenarioIndex: Int, transport: TransportKind) -> Double? {
        guard profile.isEmulated, let rtt = profile.rtt else { return nil }
        let path = try? ProfileLink.paths(of: profile, library: request.library).first
        var finishing = RunFinishing(
            rttMs: rtt.nanoseconds.inMilliseconds,
            downlinkBitsPerSecond: path.flatMap { ProfileLink.downlinkBitsPerSecond($0) },
            configuredTLS12: request.server.tlsVersion == .tls12)
        finishing.ownServerCongestionControl =
            (request.server.tcpCongestionControl, request.server.quicCongestionControl.rawValue)
        return finishing.plannedIdeal(transport)?.pltMs(request.scenarios[scenarioIndex].scenario)
    }
}
