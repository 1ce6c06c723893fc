internal import COpenSSL

/// A server-side `SSL_CTX`: identities chosen by SNI, ALPN by server preference, tickets, key log.
///
/// Create one per server and make a `TLSConnection(server:)` per accepted socket. Immutable
/// after `init`; OpenSSL allows making connections from one context on several threads.
public final class TLSServerContext: @unchecked Sendable {
    let ctx: OpaquePointer
    public let configuration: TLSServerConfiguration
    /// Read by the SNI and ALPN callbacks through their `arg` pointer; lives as long as `ctx`.
    private let policy: ServerHandshakePolicy
    private let keyLog: KeyLogWriter?

    public init(_ configuration: TLSServerConfiguration) throws {
        guard !configuration.identities.isEmpty else {
            throw TLSError(
                .configuration, operation: "configuring the TLS server context",
                message: "at least one identity (certificate chain and key) is required")
        }
        let identities = try configuration.identities.enumerated().map { try LoadedIdentity($1, index: $0) }
        policy = ServerHandshakePolicy(
            identities: identities,
            alpn: try configuration.alpn.map { try alpnWireFormat([$0]) })
        keyLog = try configuration.keyLogFile.map { try KeyLogWriter(path: $0) }
        ctx = try makeContext(
            ContextSettings(
                isServer: true, minVersion: configuration.minVersion,
                maxVersion: configuration.maxVersion,
                tls12Ciphers: configuration.tls12Ciphers,
                tls13CipherSuites: configuration.tls13CipherSuites))
        self.configuration = configuration
        // From here on deinit frees ctx, also when a step below throws.
        let first = identities[0]
        try check(
            SSL_CTX_use_cert_and_key(ctx, first.leaf.pointer, first.key.pointer, first.chain.pointer, 1) == 1,
            .configuration, "installing the default server identity")
        let arg = Unmanaged.passUnretained(policy).toOpaque()
        // Installed for one identity too: a matched name is acknowledged and kept in the session.
        _ = netbench_SSL_CTX_set_tlsext_servername_callback(ctx, selectIdentityBySNI)
        _ = netbench_SSL_CTX_set_tlsext_servername_arg(ctx, arg)
        if !configuration.alpn.isEmpty {
            SSL_CTX_set_alpn_select_cb(ctx, selectALPN, arg)
        }
        try configureResumption(enabled: configuration.sessionTickets)
        try keyLog?.install(on: ctx)
    }

    deinit { SSL_CTX_free(ctx) }

    private func configureResumption(enabled: Bool) throws {
        let idContext = Array("netbench".utf8)
        try check(
            SSL_CTX_set_session_id_context(ctx, idContext, UInt32(idContext.count)) == 1,
            .configuration, "setting the session id context")
        if !enabled {
            _ = SSL_CTX_set_options(ctx, netbench_SSL_OP_NO_TICKET())
            _ = netbench_SSL_CTX_set_session_cache_mode(ctx, Int(SSL_SESS_CACHE_OFF))
            try check(SSL_CTX_set_num_tickets(ctx, 0) == 1, .configuration, "turning TLS 1.3 tickets off")
        }
    }
}

/// What the handshake callbacks of a server context consult.
final class ServerHandshakePolicy: @unchecked Sendable {
    let identities: [LoadedIdentity]
    /// Server preference order; each entry in wire format (length byte + name).
    let alpn: [[UInt8]]

    init(identities: [LoadedIdentity], alpn: [[UInt8]]) {
        self.identities = identities
        self.alpn = alpn
    }
}

/// SNI callback: installs the first identity whose leaf matches the requested name. The default
/// (first) identity stays in place when nothing matches; the client's name check then fails.
private func selectIdentityBySNI(
    _ ssl: OpaquePointer?, _ alert: UnsafeMutablePointer<Int32>?,
    _ arg: UnsafeMutableRawPointer?
) -> Int32 {
    guard let ssl, let arg, let name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) else {
        return SSL_TLSEXT_ERR_NOACK
    }
    let policy = Unmanaged<ServerHandshakePolicy>.fromOpaque(arg).takeUnretainedValue()
    let host = String(cString: name)
    guard let index = policy.identities.firstIndex(where: { $0.leaf.matches(host: host) }) else {
        return SSL_TLSEXT_ERR_NOACK
    }
    if index > 0 {
        let identity = policy.identities[index]
        guard
            SSL_use_cert_and_key(
                ssl, identity.leaf.pointer, identity.key.pointer,
                identity.chain.pointer, 1) == 1
        else {
            alert?.pointee = SSL_AD_INTERNAL_ERROR
            return SSL_TLSEXT_ERR_ALERT_FATAL
        }
    }
    return SSL_TLSEXT_ERR_OK
}

/// ALPN callback: the server's most preferred protocol that the client also offers. `out`
/// points into the client's list, which OpenSSL keeps until it has copied the choice.
private func selectALPN(
    _ ssl: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    _ outLength: UnsafeMutablePointer<UInt8>?, _ offered: UnsafePointer<UInt8>?,
    _ offeredLength: UInt32, _ arg: UnsafeMutableRawPointer?
) -> Int32 {
    guard let out, let outLength, let offered, let arg else { return SSL_TLSEXT_ERR_ALERT_FATAL }
    let policy = Unmanaged<ServerHandshakePolicy>.fromOpaque(arg).takeUnretainedValue()
    let client = UnsafeBufferPointer(start: offered, count: Int(offeredLength))
    for wanted in policy.alpn {
        var i = 0
        while i < client.count {
            let length = Int(client[i])
            let end = i + 1 + length
            guard end <= client.count else { break }
            if length + 1 == wanted.count && client[i...].starts(with: wanted) {
                out.pointee = offered + i + 1
                outLength.pointee = UInt8(length)
                return SSL_TLSEXT_ERR_OK
            }
            i = end
        }
    }
    return SSL_TLSEXT_ERR_ALERT_FATAL  // no_application_protocol
}
