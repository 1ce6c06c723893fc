#if canImport(Glibc)
import Glibc
#endif
import BenchCore
import BenchModel
import Transport
import QUIC
import TLS

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
    public var hasPathEvents: Bool { false }
    public static let profileName = "network"

    public init(endpoint: RemoteEndpoint, scenarios: [Scenario], trustedRootsPEM: String, tlsVersion: TLSVersion? = nil,
                quic: QUICConfiguration = QUICConfiguration()) throws {
        self.endpoint = endpoint; self.scenarios = scenarios; self.tlsVersion = tlsVersion; self.quic = quic
        credentials = RunCredentials(caPEM: trustedRootsPEM)
        var a = in_addr()
        guard inet_pton(AF_INET, endpoint.host == "localhost" ? "127.0.0.1" : endpoint.host, &a) == 1 else {
            throw RemoteEndpointError.invalid(endpoint.description, "the built-in client needs an IPv4 address")
        }
        address = Endpoint(address: UInt32(bigEndian: a.s_addr), port: endpoint.port)
    }

    /// Before the first run: one verified TLS handshake per origin name; throws `RemoteCertificateCheck.Failure`.
    public func verifyCertificates() throws {
        let ctx = try TLSClientContext(TLSClientConfiguration(trustedRootsPEM: credentials.caPEM))
        var seen = Set<String>()
        for s in scenarios { for o in s.origins where seen.insert(o.host).inserted {
            try RemoteCertificateCheck.verify(hostName: o.host, at: endpoint, context: ctx)
        } }
    }

    public func execute(_ run: RunSpec, register: (StopFlag?) -> Void) -> RunRecord {
        let scenario = scenarios[run.scenarioIndex]
        var record = RunRecord(scenario: scenario.name, profile: Self.profileName, transport: run.transport,
                               index: max(run.index, 0), status: .ok)
        if run.index < 0 { record.warmup = true }
        record.client = run.client
        record.startedAt = BenchmarkRunner.utcTimestamp()
        var rttMs: Double?
        do {
            rttMs = try RemoteRTTProbe.measure(endpoint).inMilliseconds
            let page = PageRun(scenario: scenario, scenarioName: scenario.name, transport: run.transport,
                               serverEndpoints: ServerHost.Endpoints(tcp: address, udp: address), credentials: credentials,
                               clientNamespace: nil, clientAddress: nil, timeout: run.timeout ?? .seconds(60),
                               keyLogFile: nil, tlsVersion: tlsVersion, quic: quic)
            let outcome = try page.execute(register: register)
            record.requests = outcome.requests
            record.connections = outcome.connections
            record.metrics = outcome.metrics
            if let f = outcome.failure { record.status = .failed; record.error = f }
            if record.status == .ok, let bad = Self.mismatch(scenario, record.requests) {
                record.status = .failed; record.error = "\(bad)"
            }
        } catch {
            record.status = .failed; record.error = "\(error)"
        }
        record.metrics.rttMs = rttMs
        if let rttMs {
            let ideal = IdealPageLoad(rttMs: rttMs, downlinkBitsPerSecond: nil, transport: run.transport)
            record.metrics.idealTtfbMs = ideal.ttfbMs(scenario)
            if let missing = ideal.missingBound(scenario) { record.metrics.idealNote = missing } else { record.metrics.idealPltMs = ideal.pltMs(scenario) }
        } else {
            record.metrics.idealNote = "RTT unknown: the TCP connects to \(endpoint) failed"
        }
        return record
    }

    /// The first resource whose response is missing, not 200, or not exactly its scenario size.
    static func mismatch(_ scenario: Scenario, _ requests: [RequestRecord]) -> RemoteResponseCheck.Mismatch? {
        for r in scenario.resources {
            guard let got = requests.first(where: { $0.id == r.id }) else {
                return RemoteResponseCheck.Mismatch(resourceID: r.id, url: r.path, what: "never loaded")
            }
            if let m = RemoteResponseCheck.check(r, in: scenario, status: got.status ?? 0, bodyBytes: got.bytes) { return m }
        }
        return nil
    }

    public func close() {}
}

/// `run --server`: one `RemoteExecutor` for the plan's single "network" profile; certificates are
/// verified once, before the first run (a failure is a run failure, exit 2, naming the name and why).
public final class RemoteExecutorFactory: PageExecutorFactory {
    let executor: RemoteExecutor

    public init(endpoint: RemoteEndpoint, request: RunRequest, trustedRootsPEM: String) throws {
        executor = try RemoteExecutor(endpoint: endpoint, scenarios: request.scenarios.map(\.scenario),
                                      trustedRootsPEM: trustedRootsPEM, tlsVersion: request.tlsVersion)
        do { try executor.verifyCertificates() } catch { throw BenchError.run("\(error)") }
    }

    public static let profile = Profile(name: RemoteExecutor.profileName, description: "the real network to --server (RTT: minimum of TCP connects before each run)",
                                        source: "--server", emulated: false)

    public func makeExecutor(profile: Profile, profileIndex: Int) throws -> PageExecutor { executor }

    public func idealPltMs(profile: Profile, scenarioIndex: Int, transport: TransportKind) -> Double? { nil }
}
