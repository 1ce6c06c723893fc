/// Why a QUIC connection or an engine call failed. Library codes keep the C library's own
/// message (`ngtcp2_strerror`, `nghttp3_strerror`, `gnutls_strerror`).
public enum QUICError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No packet within the negotiated idle timeout (`NGTCP2_ERR_IDLE_CLOSE`).
    case idleTimeout
    /// The handshake did not complete within `QUICConfiguration.handshakeTimeout`.
    case handshakeTimeout
    /// The peer sent CONNECTION_CLOSE.
    case closedByPeer(QUICCloseReason)
    /// This side closed the connection (`close(now:emit:)`) or failed and sent CONNECTION_CLOSE.
    case closedLocally(QUICCloseReason)
    /// The server certificate did not verify against the trusted roots and the server name.
    case certificate(String)
    /// A GnuTLS call failed.
    case tls(code: Int32, message: String)
    /// An ngtcp2 call failed.
    case transport(code: Int32, message: String)
    /// An nghttp3 call failed.
    case http3(code: Int32, message: String)
    /// The call is not valid in the connection's current state.
    case invalidState(String)
    /// The configuration or credentials cannot be used.
    case configuration(String)

    public var description: String {
        switch self {
        case .idleTimeout: return "QUIC idle timeout"
        case .handshakeTimeout: return "QUIC handshake timeout"
        case .closedByPeer(let r): return "connection closed by peer: \(r)"
        case .closedLocally(let r): return "connection closed locally: \(r)"
        case .certificate(let m): return "server certificate rejected: \(m)"
        case .tls(let c, let m): return "TLS error \(c): \(m)"
        case .transport(let c, let m): return "QUIC error \(c): \(m)"
        case .http3(let c, let m): return "HTTP/3 error \(c): \(m)"
        case .invalidState(let m): return "invalid state: \(m)"
        case .configuration(let m): return "bad QUIC configuration: \(m)"
        }
    }
}

/// The content of a CONNECTION_CLOSE frame.
public struct QUICCloseReason: Sendable, Equatable, CustomStringConvertible {
    /// True for an application (HTTP/3) error code, false for a QUIC transport error code.
    public var isApplicationError: Bool
    public var code: UInt64
    public var reason: String

    public init(isApplicationError: Bool, code: UInt64, reason: String = "") {
        self.isApplicationError = isApplicationError
        self.code = code
        self.reason = reason
    }

    /// NO_ERROR (transport 0x0) or H3_NO_ERROR (application 0x100): a normal close.
    public var isNoError: Bool { isApplicationError ? code == 0x100 : code == 0 }

    public var description: String {
        let kind = isApplicationError ? "application" : "transport"
        let hex = String(code, radix: 16)
        return reason.isEmpty ? "\(kind) error 0x\(hex)" : "\(kind) error 0x\(hex) (\(reason))"
    }
}
