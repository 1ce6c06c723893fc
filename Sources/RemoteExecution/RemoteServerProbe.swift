import BenchCore
import BenchModel
import Runner
import Testbed
import Transport
import TLS
import QUIC

/// One GET over a fresh connection of any transport, for what `run --server` checks before its
/// first run: the QUIC handshake's certificate verdict (h3), and the server's description
/// (`ServerDescription`). Only the response head is kept (the client counts body bytes).
enum RemoteServerProbe {
    struct Head { var status: Int; var headers: [(String, String)] }
    struct Failure: Error, CustomStringConvertible { var reason: String; var description: String { reason } }

    static func get(
        _ path: String, over transport: TransportKind, at address: Endpoint, serverName: String,
        credentials: RunCredentials, tlsVersion: TLSVersion?, quic: QUICConfiguration,
        timeout: Nanoseconds = .seconds(10)
    ) throws -> Head {
        var tls: TLSClientContext?
        if transport != .h3 {
            tls = try TLSClientContext(
                tlsConfiguration(for: transport, credentials: credentials, tlsVersion: tlsVersion))
        }
        let settings = ClientSettings(tls: tls, quic: quic, trustedRootsPEM: credentials.caPEM)
        return try get(path, over: transport, at: address, serverName: serverName, settings: settings, timeout: timeout)
    }

    /// The probes' TCP+TLS client: the run's roots (or the system store), one ALPN, no resumption.
    static func tlsConfiguration(for transport: TransportKind, credentials: RunCredentials, tlsVersion: TLSVersion?)
        -> TLSClientConfiguration
    {
        var cfg = TLSClientConfiguration(
            trustedRootsPEM: credentials.systemRoots ? "" : credentials.caPEM, alpn: [transport.alpn])
        cfg.systemRoots = credentials.systemRoots
        cfg.resumption = false
        if let v = tlsVersion { cfg.force(v) }
        return cfg
    }

    static func get(
        _ path: String, over transport: TransportKind, at address: Endpoint, serverName: String,
        settings: ClientSettings, timeout: Nanoseconds
    ) throws -> Head {
        let loop = try EventLoop()
        let connection = try ClientConnector.open(
            transport, loop: loop, remote: address, local: nil, serverName: serverName, settings: settings)
        var head: Head?
        var outcome: Result<Head, Failure>?
        connection.send(ClientRequest(authority: serverName, path: path)) { event in
            switch event {
            case .head(let status, let headers, _): head = Head(status: status, headers: headers)
            case .end:
                outcome = head.map { .success($0) } ?? .failure(Failure(reason: "the response ended without a head"))
            case .failed(let why, _): outcome = .failure(Failure(reason: why))
            default: break
            }
        }
        try loop.run(until: Instant.now() + timeout) { outcome != nil }
        connection.close()
        switch outcome {
        case .success(let h): return h
        case .failure(let f): throw f
        case nil:
            throw Failure(
                reason: "no \(transport.rawValue) response to GET \(path) within \(timeout / 1_000_000_000) s")
        }
    }
}

/// Who answers at `--server`, as recorded with every run (`runs[].server.identity`).
public enum RemoteServerIdentity: Sendable, Equatable, CustomStringConvertible {
    /// netbench serve, serving every scenario of the plan (same content digests).
    case netbench(version: String)
    /// Not netbench serve (nginx, a CDN, ...): the description path answered with this status.
    case unidentified(status: Int)

    public var description: String {
        switch self {
        case .netbench(let v): return "netbench serve \(v), scenario digests checked"
        case .unidentified(let s):
            return
                "not identified: \(ServerDescription.path) answered \(s), so the server was not checked to serve these "
                    + "scenarios (not netbench serve)"
        }
    }

    /// Compares the served description (nil: none in the head) with the plan's scenario files;
    /// throws `ScenarioDigest.Mismatch` (exit 65) for a scenario the server does not serve.
    static func judge(
        status: Int, description: ServerDescription?, scenarios: [(file: String, name: String, bytes: [UInt8])],
        server: String
    ) throws -> RemoteServerIdentity {
        guard status == 200, let description else { return .unidentified(status: status) }
        for s in scenarios {
            let expected = ScenarioDigest.of(fileBytes: s.bytes)
            if !description.scenarios.contains(where: { $0.sha256 == expected }) {
                throw ScenarioDigest.Mismatch(
                    scenarioFile: s.file, server: server, expectedName: s.name, expected: expected,
                    served: description.scenarios.map { "'\($0.name)' (sha256 \($0.sha256))" }.joined(separator: ", "))
            }
        }
        return .netbench(version: description.netbenchVersion)
    }
}
