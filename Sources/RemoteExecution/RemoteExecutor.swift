#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import BenchCore
import BenchModel
import Transport
import QUIC
import TLS
import SystemIO
import Runner
import Testbed

/// `run --server`: every origin of the scenarios loaded from one real server over the real network
/// (no local servers, no emulator). The profile is recorded as "network"; its RTT is the minimum of
/// TCP connects measured before each run, and the ideal is computed from it. Every response is
/// checked against the scenario (status, exact bytes).
public final class RemoteExecutor: PageExecutor {
    let endpoint: RemoteEndpoint
    let address: Endpoint
    let scenarios: [Scenario]
    let credentials: RunCredentials
    let tlsVersion: TLSVersion?
    let quic: QUICConfiguration
    /// Bytes the built-in client pads each TLS ClientHello with (`run --client-hello-pad`).
    var clientHelloPadding = 0
    /// `--keylog` and `--qlog` for the page loads (not for the probes before the first run).
    var keyLogFile: String?
    var diagnostics: DiagnosticFiles?
    /// Browsers that load pages from the server (`--client chromium`, `firefox`), by client.
    var browsers: [RunClient: PageLoadFactory] = [:]
    public var hasPathEvents: Bool { false }
    public static let profileName = "network"

    /// Who answered the description request (`identify`); recorded with every run.
    public private(set) var identity: RemoteServerIdentity?

    public init(
        endpoint: RemoteEndpoint, scenarios: [Scenario], credentials: RunCredentials, tlsVersion: TLSVersion? = nil,
        quic: QUICConfiguration = QUICConfiguration()
    ) throws {
        self.endpoint = endpoint; self.scenarios = scenarios; self.tlsVersion = tlsVersion; self.quic = quic
        self.credentials = credentials
        address = Endpoint(address: try RemoteRTTProbe.ipv4Address(endpoint), port: endpoint.port)
    }

    private var originNames: [String] {
        var seen = Set<String>()
        return scenarios.flatMap { $0.origins.map(\.host) }.filter { seen.insert($0).inserted }
    }

    /// Before the first run: per origin name, one verified handshake over TCP+TLS (h1/h2 in the plan)
    /// and one over QUIC (h3 in the plan), each carrying a GET of the description; throws
    /// `RemoteCertificateCheck.Failure` naming the name, the endpoint and the TLS library's reason.
    public func verifyCertificates(transports: [TransportKind]) throws {
        let stacks = [transports.first { $0 != .h3 }, transports.contains(.h3) ? .h3 : nil].compactMap { $0 }
        for transport in stacks {
            for host in originNames {
                do {
                    _ = try RemoteServerProbe.get(
                        ServerDescription.path, over: transport, at: address, serverName: host,
                        credentials: credentials, tlsVersion: tlsVersion, quic: quic)
                } catch {
                    throw RemoteCertificateCheck.Failure(
                        hostName: host, endpoint: "\(endpoint)" + (transport == .h3 ? " (QUIC)" : ""),
                        reason: "\(error)")
                }
            }
        }
    }

    /// Before the first run, after `verifyCertificates`: asks the server for its description over
    /// `transport`. netbench serve of another scenario throws `ScenarioDigest.Mismatch`; a server
    /// without the description (404) is recorded as not identified.
    public func identify(over transport: TransportKind, scenarioFiles: [(file: String, name: String, bytes: [UInt8])])
        throws -> RemoteServerIdentity
    {
        let host = scenarios.first?.origins.first?.host ?? endpoint.host
        let head: RemoteServerProbe.Head
        do {
            head = try RemoteServerProbe.get(
                ServerDescription.path, over: transport, at: address, serverName: host,
                credentials: credentials, tlsVersion: tlsVersion, quic: quic)
        } catch {
            throw BenchError.run(
                "--server \(endpoint): GET https://\(host)\(ServerDescription.path) over \(transport.rawValue) failed: "
                    + "\(error)"
            )
        }
        let id = try RemoteServerIdentity.judge(
            status: head.status, description: ServerDescription(headers: head.headers),
            scenarios: scenarioFiles, server: endpoint.description)
        identity = id
        return id
    }

    public func execute(_ run: RunSpec, register: (StopFlag?) -> Void) -> RunRecord {
        let scenario = scenarios[run.scenarioIndex]
        var record = RunRecord(
            scenario: scenario.name, profile: Self.profileName, transport: run.transport,
            index: max(run.index, 0), status: .ok)
        if run.index < 0 { record.warmup = true }
        record.client = run.client
        record.startedAt = BenchmarkRunner.utcTimestamp()
        record.server = ServerRecord(address: endpoint.description, identity: identity?.description)
        var rttMs: Double?
        var rttProblem: String?
        do { rttMs = try RemoteRTTProbe.measure(endpoint).inMilliseconds } catch { rttProblem = "\(error)" }
        do {
            let context = PageLoadContext(
                scenario: scenario, transport: run.transport,
                serverEndpoints: ServerHost.Endpoints(tcp: address, udp: address),
                credentials: credentials, timeout: run.timeout ?? .seconds(60))
            if let browser = browsers[run.client] {
                // The browser checks what it got itself (protocol, status, bytes; a real page's resources
                // it never asked for are listed, not missing).
                let outcome = try browser.makeLoad(context).execute(register: register)
                record.requests = outcome.requests
                record.connections = outcome.connections
                record.metrics = outcome.metrics
                record.notRequested = outcome.notRequested
                if let f = outcome.failure { record.status = .failed; record.error = f }
                return finish(record, scenario: scenario, run: run, rttMs: rttMs, rttProblem: rttProblem)
            }
            var page = PageRun(
                context: context, keyLogFile: keyLogFile, tlsVersion: tlsVersion,
                quic: quic.with { $0.diagnostics = diagnostics ?? $0.diagnostics })
            page.clientHelloPadding = clientHelloPadding
            record.server?.clientHelloPadding = clientHelloPadding
            let outcome = try page.execute(register: register)
            record.requests = outcome.requests
            record.connections = outcome.connections
            record.metrics = outcome.metrics
            if let f = outcome.failure {
                // A short or long body ends the load early; the check against the scenario names the resource.
                record.status = .failed
                record.error = Self.mismatch(scenario, record.requests, ignoringMissing: true).map { "\($0)" } ?? f
            }
            if record.status == .ok, let bad = Self.mismatch(scenario, record.requests) {
                record.status = .failed; record.error = "\(bad)"
            }
        } catch {
            record.status = .failed; record.error = "\(error)"
        }
        return finish(record, scenario: scenario, run: run, rttMs: rttMs, rttProblem: rttProblem)
    }

    /// The run's RTT, ideal and derived figures (`RunFinishing`), as for every executor.
    private func finish(
        _ record: RunRecord, scenario: Scenario, run: RunSpec, rttMs: Double?, rttProblem: String?
    ) -> RunRecord {
        var record = record, rttMs = rttMs, rttProblem = rttProblem
        // A UDP-only server (an h3 server such as gtlsserver) refuses TCP: QUIC's own minimum RTT stands in.
        if rttMs == nil, run.transport == .h3 {
            rttMs = record.connections.compactMap { $0.quic?.minRttMs }.min()
            if rttMs != nil {
                rttProblem = nil; record.metrics.rttSource = "QUIC minimum RTT (no TCP connect completed)"
            }
        }
        let unknown = "RTT unknown: \(rttProblem ?? "the TCP connects to \(endpoint) failed")"
        // Only netbench serve waits the scenario's think times; any other server answers at once.
        let thinks: Bool
        if case .netbench = identity { thinks = true } else { thinks = false }
        RunFinishing(
            rttMs: rttMs, rttProblem: rttMs == nil ? unknown : nil, configuredTLS12: tlsVersion == .tls12,
            serverThinks: thinks
        ).finish(&record, scenario: scenario)
        return record
    }

    /// The first resource whose response is missing, not 200, or not exactly its scenario size.
    static func mismatch(_ scenario: Scenario, _ requests: [RequestRecord], ignoringMissing: Bool = false)
        -> RemoteResponseCheck.Mismatch?
    {
        for r in scenario.resources {
            guard let got = requests.first(where: { $0.id == r.id }) else {
                if ignoringMissing { continue }
                return RemoteResponseCheck.Mismatch(resourceID: r.id, url: r.path, what: "never loaded")
            }
            if let m = RemoteResponseCheck.check(r, in: scenario, status: got.status ?? 0, bodyBytes: got.bytes) {
                return m
            }
        }
        return nil
    }

    public func close() {}
}

/// `run --server`: one `RemoteExecutor` for the plan's single "network" profile; certificates are
/// verified once, before the first run (a failure is a run failure, exit 2, naming the name and why;
/// netbench serve of another scenario is a data error, exit 65, naming both scenarios).
public final class RemoteExecutorFactory: PageExecutorFactory {
    let executor: RemoteExecutor

    /// Who the server is, as `identify` found it.
    public var identity: RemoteServerIdentity? { executor.identity }

    /// Verifies the certificates (a failure: `BenchError.run`, exit 2, unless the server says it
    /// serves another scenario: `refusal`), then identifies the server (another scenario:
    /// `BenchError.data`, exit 65).
    public init(
        endpoint: RemoteEndpoint, request: RunRequest, credentials: RunCredentials, browsers: [PageLoadFactory] = []
    ) throws {
        // A client without a factory here cannot load from a remote server: a run labelled with a
        // browser that never loaded the page would be false data.
        let supported = Dictionary(browsers.map { ($0.client, $0) }, uniquingKeysWith: { a, _ in a })
        if let other = request.pageLoads.clients.first(where: { $0 != .builtin && supported[$0] == nil }) {
            let able = ["the built-in client"] + browsers.map(\.client.rawValue)
            throw BenchError.usage(
                "--server loads pages with " + able.joined(separator: ", ") + "; --client \(other.rawValue) "
                    + "needs netbench's own replay server (drop --server)")
        }
        executor = try RemoteExecutor(
            endpoint: endpoint, scenarios: request.scenarios.map(\.scenario),
            credentials: credentials, tlsVersion: request.server.tlsVersion)
        for c in request.pageLoads.clients where c != .builtin {
            guard let b = supported[c] else { continue }
            try b.prepare(scenarios: request.scenarios.map(\.scenario)) { _ in }
            executor.browsers[c] = b
        }
        // Checked before the first run, as for emulated runs (a qlog directory that is missing is a usage error).
        executor.keyLogFile = request.diagnostics.keyLogFile
        executor.clientHelloPadding = request.server.clientHelloPadding
        executor.diagnostics = try request.diagnostics.open()
        let files = request.scenarios.map { (file: $0.path, name: $0.scenario.name, bytes: Self.contents($0.path)) }
        do { try executor.verifyCertificates(transports: request.transports) } catch {
            throw executor.refusal(afterCertificateFailure: error, transports: request.transports, scenarioFiles: files)
        }
        do { _ = try executor.identify(over: request.transports.first ?? .h2, scenarioFiles: files) } catch let e
            as ScenarioDigest.Mismatch
        { throw BenchError.data("\(e)") }
    }

    static func contents(_ path: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: path) ?? Data()) }

    public static let profile = Profile(
        name: RemoteExecutor.profileName,
        description: "the real network to --server (RTT: minimum of TCP connects before each run)",
        source: "--server", emulated: false)

    public func makeExecutor(profile: Profile, profileIndex: Int) throws -> PageExecutor { executor }

    public func idealPltMs(profile: Profile, scenarioIndex: Int, transport: TransportKind) -> Double? { nil }
}
