/// A certificate chain (leaf first, then intermediates) and the leaf's private key, both PEM.
public struct PEMIdentity: Sendable, Hashable {
    public var certificateChainPEM: String
    public var privateKeyPEM: String

    public init(certificateChainPEM: String, privateKeyPEM: String) {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
    }
}

/// The TLS versions netbench speaks; the raw value is how profiles and results spell them.
public enum TLSVersion: String, Sendable, Codable, CaseIterable, Comparable {
    case tls12 = "1.2"
    case tls13 = "1.3"

    public static func < (a: TLSVersion, b: TLSVersion) -> Bool { a.order < b.order }
    private var order: Int { self == .tls12 ? 0 : 1 }
}

/// What both ends configure alike: the versions allowed, ALPN, the key log and the cipher lists.
public struct TLSProtocolOptions: Sendable {
    public var minVersion: TLSVersion = .tls12
    public var maxVersion: TLSVersion = .tls13
    /// Client: offered in this order, e.g. `["h2", "http/1.1"]`; empty: no ALPN extension.
    /// Server: its preference order; when the client offers ALPN and shares none of these, the
    /// handshake fails with `no_application_protocol`; empty: ALPN is ignored.
    public var alpn: [String] = []
    /// Appends NSS key-log lines (the `SSLKEYLOGFILE` format) to this file.
    public var keyLogFile: String?
    /// OpenSSL cipher string for TLS 1.2 (`SSL_CTX_set_cipher_list`); nil: OpenSSL's default.
    public var tls12Ciphers: String?
    /// OpenSSL TLS 1.3 suite list (`SSL_CTX_set_ciphersuites`); nil: OpenSSL's default.
    public var tls13CipherSuites: String?

    public init(
        minVersion: TLSVersion = .tls12, maxVersion: TLSVersion = .tls13, alpn: [String] = [],
        keyLogFile: String? = nil,
        tls12Ciphers: String? = nil, tls13CipherSuites: String? = nil
    ) {
        self.minVersion = minVersion; self.maxVersion = maxVersion; self.alpn = alpn; self.keyLogFile = keyLogFile
        self.tls12Ciphers = tls12Ciphers; self.tls13CipherSuites = tls13CipherSuites
    }

    /// Allows only `version` (e.g. `.tls12` to benchmark TLS 1.2).
    public mutating func force(_ version: TLSVersion) {
        minVersion = version
        maxVersion = version
    }
}

/// A configuration with shared `TLSProtocolOptions`, read and written as if they were its own
/// (`config.alpn`, `config.force(.tls12)`).
@dynamicMemberLookup
public protocol TLSEndpointConfiguration {
    var options: TLSProtocolOptions { get set }
}

extension TLSEndpointConfiguration {
    public subscript<T>(dynamicMember key: WritableKeyPath<TLSProtocolOptions, T>) -> T {
        get { options[keyPath: key] }
        set { options[keyPath: key] = newValue }
    }

    /// Allows only `version` (e.g. `.tls12` to benchmark TLS 1.2).
    public mutating func force(_ version: TLSVersion) { options.force(version) }
}

/// What a server context offers. Defaults: TLS 1.2 to 1.3, no ALPN, session tickets on.
public struct TLSServerConfiguration: TLSEndpointConfiguration, Sendable {
    /// Chosen by the client's SNI against each leaf's names (SAN, wildcards included);
    /// the first is used when no SNI is sent or none matches.
    public var identities: [PEMIdentity]
    public var options: TLSProtocolOptions
    /// `false` turns resumption off entirely: no tickets (1.3 and 1.2) and no session cache.
    public var sessionTickets: Bool

    public init(
        identities: [PEMIdentity], minVersion: TLSVersion = .tls12, maxVersion: TLSVersion = .tls13,
        alpn: [String] = [], keyLogFile: String? = nil, sessionTickets: Bool = true,
        tls12Ciphers: String? = nil, tls13CipherSuites: String? = nil
    ) {
        self.identities = identities
        self.options = TLSProtocolOptions(
            minVersion: minVersion, maxVersion: maxVersion, alpn: alpn, keyLogFile: keyLogFile,
            tls12Ciphers: tls12Ciphers, tls13CipherSuites: tls13CipherSuites)
        self.sessionTickets = sessionTickets
    }
}

/// What a client context offers and trusts. Defaults: TLS 1.2 to 1.3, no ALPN, resumption on.
public struct TLSClientConfiguration: TLSEndpointConfiguration, Sendable {
    /// The only roots the client trusts (one or more PEM certificates): the run's CA.
    public var trustedRootsPEM: String
    public var options: TLSProtocolOptions
    /// Keep the newest session per server name and offer it on the next connection to that name.
    public var resumption: Bool
    /// Also trust the system store: OpenSSL's default verify paths (its default CA file and
    /// directory, or `SSL_CERT_FILE` / `SSL_CERT_DIR`). `trustedRootsPEM` may then be empty.
    public var systemRoots = false
    /// `false`: the handshake completes whatever certificate the peer presents (neither its chain
    /// nor its names are checked, `SSL_VERIFY_NONE`). Only for reading what a server says about
    /// itself after its certificate failed verification, to name the failure better; nothing read
    /// over such a connection may be trusted or measured.
    public var verifiesPeer = true
    /// Bytes of zeros in an extension of a GREASE type (RFC 8701: servers ignore it) added to every
    /// ClientHello, so that it is as long on the wire as a browser's (`ClientHelloPadding`); 0: none.
    public var clientHelloPadding = 0

    public init(
        trustedRootsPEM: String, minVersion: TLSVersion = .tls12, maxVersion: TLSVersion = .tls13,
        alpn: [String] = [], keyLogFile: String? = nil, resumption: Bool = true,
        tls12Ciphers: String? = nil, tls13CipherSuites: String? = nil
    ) {
        self.trustedRootsPEM = trustedRootsPEM
        self.options = TLSProtocolOptions(
            minVersion: minVersion, maxVersion: maxVersion, alpn: alpn, keyLogFile: keyLogFile,
            tls12Ciphers: tls12Ciphers, tls13CipherSuites: tls13CipherSuites)
        self.resumption = resumption
    }
}

/// ALPN protocol names in wire format: each name prefixed by its one-byte length.
func alpnWireFormat(_ protocols: [String]) throws -> [UInt8] {
    var wire: [UInt8] = []
    for name in protocols {
        let bytes = Array(name.utf8)
        guard (1...255).contains(bytes.count) else {
            throw TLSError(
                .configuration, operation: "configuring ALPN",
                message: "protocol name \"\(name)\" must be 1 to 255 bytes long")
        }
        wire.append(UInt8(bytes.count))
        wire += bytes
    }
    return wire
}
