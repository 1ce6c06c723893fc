import BenchCore
import SystemIO
import TLS
import QUIC

/// Settings the client side of a run shares across its connections.
public struct ClientSettings {
    /// Trust and ALPN for TCP+TLS connections (a fresh context per run means cold TLS, as a first view).
    public var tls: TLSClientContext?
    public var tcp: Socket.TCPOptions
    /// QUIC settings and the roots the server's certificate must chain to (h3).
    public var quic: QUICConfiguration
    public var trustedRootsPEM: String
    /// The network namespace client sockets are created in (an emulated network's client side).
    public var namespace: String?
    /// Repeat views: QUIC session tickets and transport parameters from earlier connections, by
    /// server name; a connection that finds one sends its requests as 0-RTT early data.
    public var quicResumption: QUICResumptionCache?
    /// HTTP/2 late binding on the client (TCP_NOTSENT_LOWAT): at most this many bytes wait unsent
    /// in the kernel, the rest of an upload stays in nghttp2, so a request sent later is not queued
    /// behind the upload's backlog in the socket (what the responsiveness draft asks of its test
    /// clients). nil: the client writes what flow control allows.
    public var h2UnsentLimit: Int?
    /// false: HTTP/2 responses are handed over with their status and no header fields (the
    /// client skips decoding them; `netbench load` reads only the status and counts the body).
    public var responseFields = true
    public init(
        tls: TLSClientContext?, tcp: Socket.TCPOptions = .init(), quic: QUICConfiguration = QUICConfiguration(),
        trustedRootsPEM: String = ""
    ) {
        self.tls = tls
        self.tcp = tcp
        self.quic = quic
        self.trustedRootsPEM = trustedRootsPEM
    }
}

/// Opens client connections of the requested HTTP version on an event loop.
public enum ClientConnector {
    /// A new connection to `remote` presenting `serverName` (SNI, Host/:authority, certificate check).
    /// `local` binds the client side first (a path of an emulated network).
    public static func open(
        _ kind: TransportKind, loop: EventLoop, remote: Endpoint, local: Endpoint?, serverName: String,
        settings: ClientSettings
    ) throws -> ClientConnection {
        switch kind {
        case .h1, .h2:
            guard let tls = settings.tls else { throw BenchError.run("no TLS client context for \(kind.alpn)") }
            if kind == .h1 {
                return try H1ClientConnection(
                    loop: loop, remote: remote, local: local, serverName: serverName, tls: tls, tcp: settings.tcp)
            }
            return try H2ClientConnection(
                loop: loop, remote: remote, local: local, serverName: serverName, tls: tls, tcp: settings.tcp,
                unsentLimit: settings.h2UnsentLimit, responseFields: settings.responseFields)
        case .h3:
            return try H3ClientConnection(
                loop: loop, remote: remote, local: local, serverName: serverName,
                trustedRootsPEM: settings.trustedRootsPEM, config: settings.quic,
                resumptionCache: settings.quicResumption, namespace: settings.namespace)
        }
    }
}

/// QUIC resumption states kept between the connections of a block of runs (repeat views).
public final class QUICResumptionCache: @unchecked Sendable {
    /// By origin, as a browser keeps them: the server name and the server's address and port. Two
    /// servers under one name (a suite serves each page from its own listener, with its own ticket
    /// key) do not get each other's tickets, which they could resume at best without 0-RTT.
    private var states: [String: QUICResumptionState] = [:]
    public init() {}
    public func state(for serverName: String, at server: Endpoint) -> QUICResumptionState? {
        states[Self.key(serverName, server)]
    }
    public func store(_ state: QUICResumptionState, for serverName: String, at server: Endpoint) {
        states[Self.key(serverName, server)] = state
    }
    private static func key(_ name: String, _ server: Endpoint) -> String { "\(name) \(server.address):\(server.port)" }
}
