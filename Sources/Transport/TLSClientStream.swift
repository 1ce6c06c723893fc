import BenchCore
import SystemIO
import TLS

/// What the HTTP/1.1 and HTTP/2 client connections share: a non-blocking TCP connect with TLS on
/// top, the connection facts recorded as they happen, and the phone-like abort on a network change.
extension SecureStream {
    /// Connects to `remote` (from `local` when given) and starts TLS for `serverName`; fills in the
    /// connection's local address and the congestion control in effect.
    static func connectClient(
        loop: EventLoop, remote: Endpoint, local: Endpoint?, serverName: String,
        tls: TLSClientContext, tcp: Socket.TCPOptions, info: inout ConnectionInfo
    ) throws -> SecureStream {
        let fd = try Socket.connectTCP(to: remote, from: local, options: tcp)
        info.local = try? Socket.localEndpoint(fd)
        info.congestionControl = Socket.congestionControl(of: fd)
        let conn: TLSConnection
        do { conn = try TLSConnection(client: tls, serverName: serverName) } catch { Socket.close(fd); throw error }
        return try SecureStream(fd: fd, loop: loop, tls: conn, connecting: true)
    }
}

extension ConnectionInfo {
    /// Records the end of the TLS handshake and what it negotiated.
    mutating func recordHandshake(of stream: SecureStream, at t: Instant) {
        handshakeEnd = t
        alpn = stream.tls.negotiatedALPN
        tlsVersion = stream.tls.negotiatedVersion?.rawValue
        resumed = stream.tls.sessionResumed
    }

    /// A TCP connection aborted because the client's network changed (the OS drops the sockets of
    /// a lost interface): the reason, recorded once.
    mutating func abortReason(_ change: NetworkChange) -> String {
        let reason = "aborted: network changed (\(change.kind.rawValue))"
        if error == nil { error = reason }
        return reason
    }
}
