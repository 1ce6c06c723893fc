import BenchCore
import Transport

/// Opens the connections of a load: HTTP through `ClientConnector`, quic-perf as a perf client
/// (`QUICPerfClientConnection`: a request's path `/N` asks for N bytes, see `LoadTarget.perf`).
enum LoadConnector {
    static func open(
        _ transport: LoadTransport, loop: EventLoop, remote: Endpoint, local: Endpoint?, serverName: String,
        settings: ClientSettings
    ) throws -> ClientConnection {
        guard let http = transport.http else {
            return try QUICPerfClientConnection(
                loop: loop, remote: remote, local: local, serverName: serverName,
                trustedRootsPEM: settings.trustedRootsPEM, config: settings.quic)
        }
        return try ClientConnector.open(
            http, loop: loop, remote: remote, local: local, serverName: serverName, settings: settings)
    }
}

extension LoadTarget {
    /// The same request over the perf protocol: a stream asking for the target's size (`/N`), under
    /// the same server name; nil when the size is not known (a URL's).
    public var perf: LoadTarget? {
        expectedBytes.map { LoadTarget(serverName: serverName, path: "/\($0)", expectedBytes: $0) }
    }
}
