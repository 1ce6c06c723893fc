internal import COpenSSL
import Synchronization

/// A client-side `SSL_CTX`: trusts only the configured roots, verifies peers (unless
/// `verifiesPeer` is off), offers ALPN and keeps one resumable session per server name when
/// resumption is on.
///
/// Immutable after `init` apart from the session cache, which is locked; connections to the
/// same names may be made from several threads.
public final class TLSClientContext: @unchecked Sendable {
    let ctx: OpaquePointer
    public let configuration: TLSClientConfiguration
    let sessions: ClientSessionCache?
    private let keyLog: KeyLogWriter?

    public init(_ configuration: TLSClientConfiguration) throws {
        let roots =
            configuration.systemRoots && configuration.trustedRootsPEM.isEmpty
            ? []
            : try Certificate.all(fromPEM: configuration.trustedRootsPEM, what: "the trusted roots")
        let alpn = try alpnWireFormat(configuration.alpn)
        keyLog = try configuration.keyLogFile.map { try KeyLogWriter(path: $0) }
        sessions = configuration.resumption ? ClientSessionCache() : nil
        ctx = try makeContext(
            ContextSettings(
                isServer: false, minVersion: configuration.minVersion,
                maxVersion: configuration.maxVersion,
                tls12Ciphers: configuration.tls12Ciphers,
                tls13CipherSuites: configuration.tls13CipherSuites))
        self.configuration = configuration
        // From here on deinit frees ctx, also when a step below throws.
        guard let store = SSL_CTX_get_cert_store(ctx) else {
            throw TLSError.fromQueue(.configuration, operation: "opening the client's trust store")
        }
        for root in roots {
            try check(X509_STORE_add_cert(store, root.pointer) == 1, .configuration, "adding a trusted root")
        }
        if configuration.systemRoots {
            try check(
                SSL_CTX_set_default_verify_paths(ctx) == 1, .configuration, "loading OpenSSL's default verify paths")
        }
        SSL_CTX_set_verify(ctx, configuration.verifiesPeer ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nil)
        if !alpn.isEmpty {
            // Inverted convention: 0 is success.
            try check(
                SSL_CTX_set_alpn_protos(ctx, alpn, UInt32(alpn.count)) == 0, .configuration,
                "setting ALPN protocols \(configuration.alpn)")
        }
        if sessions != nil {
            // OpenSSL hands each new session to the callback; the cache, not OpenSSL, keeps it.
            _ = netbench_SSL_CTX_set_session_cache_mode(ctx, netbench_SSL_SESS_CACHE_CLIENT_EXTERNAL())
            SSL_CTX_sess_set_new_cb(ctx, storeNewSession)
        } else {
            _ = SSL_CTX_set_options(ctx, netbench_SSL_OP_NO_TICKET())
            _ = netbench_SSL_CTX_set_session_cache_mode(ctx, Int(SSL_SESS_CACHE_OFF))
        }
        try keyLog?.install(on: ctx)
        if configuration.clientHelloPadding > 0 {
            try check(
                netbench_SSL_CTX_add_client_hello_padding(
                    ctx, UInt32(ClientHelloPadding.extensionType), configuration.clientHelloPadding) == 1,
                .configuration, "padding the ClientHello by \(configuration.clientHelloPadding) bytes")
        }
    }

    deinit { SSL_CTX_free(ctx) }

    /// Forgets every stored session (the next connection to each name is a full handshake).
    public func forgetSessions() { sessions?.removeAll() }
}

/// An `SSL_SESSION*` reference, freed on deinit. Sessions are reference-counted and may be
/// offered from any thread.
final class SessionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    init(owning pointer: OpaquePointer) { self.pointer = pointer }
    deinit { SSL_SESSION_free(pointer) }
}

/// The newest resumable session per server name.
final class ClientSessionCache: Sendable {
    private let sessions = Mutex<[String: SessionHandle]>([:])

    func store(_ session: SessionHandle, for serverName: String) {
        sessions.withLock { $0[serverName] = session }
    }

    func session(for serverName: String) -> SessionHandle? {
        sessions.withLock { $0[serverName] }.flatMap { SSL_SESSION_is_resumable($0.pointer) == 1 ? $0 : nil }
    }

    func removeAll() { sessions.withLock { $0.removeAll() } }
}

/// The `SSL` ex_data slot holding the unretained `TLSConnection` that owns the `SSL`.
let connectionExDataIndex: Int32 = CRYPTO_get_ex_new_index(CRYPTO_EX_INDEX_SSL, 0, nil, nil, nil, nil)

/// New-session callback (TLS 1.2: at the end of the handshake; TLS 1.3: per NewSessionTicket,
/// read after the handshake). Returning 1 keeps OpenSSL's reference, which the cache now owns.
private func storeNewSession(_ ssl: OpaquePointer?, _ session: OpaquePointer?) -> Int32 {
    guard let ssl, let session, let slot = SSL_get_ex_data(ssl, connectionExDataIndex) else { return 0 }
    let connection = Unmanaged<TLSConnection>.fromOpaque(slot).takeUnretainedValue()
    guard let cache = connection.clientContext?.sessions, let name = connection.peerName else { return 0 }
    cache.store(SessionHandle(owning: session), for: name)
    return 1
}
