internal import COpenSSL

/// Settings shared by server and client contexts, applied to a fresh `SSL_CTX`.
struct ContextSettings {
    var isServer: Bool
    var minVersion: TLSVersion
    var maxVersion: TLSVersion
    var tls12Ciphers: String?
    var tls13CipherSuites: String?
}

/// A new `SSL_CTX` (owned by the caller) with versions, ciphers and the record-layer modes
/// netbench needs; freed again if any step fails.
func makeContext(_ settings: ContextSettings) throws -> OpaquePointer {
    let role = settings.isServer ? "server" : "client"
    guard settings.minVersion <= settings.maxVersion else {
        throw TLSError(
            .configuration, operation: "configuring the TLS \(role) context",
            message: "minVersion \(settings.minVersion.rawValue) is above maxVersion \(settings.maxVersion.rawValue)")
    }
    guard let ctx = SSL_CTX_new(settings.isServer ? TLS_server_method() : TLS_client_method()) else {
        throw TLSError.fromQueue(.configuration, operation: "creating the TLS \(role) context")
    }
    do {
        try check(
            netbench_SSL_CTX_set_min_proto_version(ctx, settings.minVersion.protocolConstant) == 1,
            .configuration, "setting the minimum TLS version")
        try check(
            netbench_SSL_CTX_set_max_proto_version(ctx, settings.maxVersion.protocolConstant) == 1,
            .configuration, "setting the maximum TLS version")
        if let list = settings.tls12Ciphers {
            try check(SSL_CTX_set_cipher_list(ctx, list) == 1, .configuration, "setting TLS 1.2 ciphers \"\(list)\"")
        }
        if let list = settings.tls13CipherSuites {
            try check(SSL_CTX_set_ciphersuites(ctx, list) == 1, .configuration, "setting TLS 1.3 suites \"\(list)\"")
        }
        // Callers may hand a different buffer (or a moved Array) when retrying a write, and a
        // write may complete one record at a time.
        _ = netbench_SSL_CTX_set_mode(ctx, Int(SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_ENABLE_PARTIAL_WRITE))
        // Fewer BIO reads per record: take whatever ciphertext is buffered at once.
        _ = netbench_SSL_CTX_set_read_ahead(ctx, 1)
        _ = SSL_CTX_set_options(ctx, netbench_SSL_OP_NO_COMPRESSION() | netbench_SSL_OP_NO_RENEGOTIATION())
        return ctx
    } catch {
        SSL_CTX_free(ctx)
        throw error
    }
}

extension TLSVersion {
    var protocolConstant: Int32 {
        switch self {
        case .tls12: return TLS1_2_VERSION
        case .tls13: return TLS1_3_VERSION
        }
    }

    init?(protocolConstant: Int32) {
        switch protocolConstant {
        case TLS1_2_VERSION: self = .tls12
        case TLS1_3_VERSION: self = .tls13
        default: return nil
        }
    }
}
