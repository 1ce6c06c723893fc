internal import COpenSSL
import Synchronization

/// A throw-away certificate authority: one per benchmark run, so clients trust exactly the
/// servers of that run. Keys are ECDSA P-256, generated at runtime; certificates are signed
/// with SHA-256 and backdated by an hour to tolerate clock skew between namespaces/hosts.
public final class CertificateAuthority: @unchecked Sendable {
    private let key: PrivateKey
    private let certificate: Certificate
    /// Serialises signing (OpenSSL objects are shared; issuing is rare and cheap).
    private let signing = Mutex(())
    /// The CA certificate, to be given to clients as their only trusted root.
    public let certificatePEM: String

    public init(commonName: String = "netbench run CA", validDays: Int = 7) throws {
        guard validDays > 0 else {
            throw TLSError(.configuration, operation: "creating the CA", message: "validDays must be positive")
        }
        key = try PrivateKey.generateP256()
        let builder = try CertificateBuilder(commonName: commonName, publicKey: key)
        try builder.setValidity(notBeforeOffset: -3600, notAfterOffset: validDays * 86_400)
        try builder.setIssuer(nil)
        try builder.add(NID_basic_constraints, "critical,CA:TRUE,pathlen:0", issuer: nil)
        try builder.add(NID_key_usage, "critical,keyCertSign,cRLSign", issuer: nil)
        try builder.add(NID_subject_key_identifier, "hash", issuer: nil)
        certificate = try builder.sign(with: key)
        certificatePEM = try certificate.pem
    }

    /// A leaf for `hostNames`: SAN DNS entries for names, IP entries for IPv4/IPv6 literals,
    /// CN = the first name, serverAuth EKU, a fresh P-256 key; valid until the CA expires.
    public func issue(hostNames: [String]) throws -> PEMIdentity {
        guard let first = hostNames.first else {
            throw TLSError(.configuration, operation: "issuing a certificate", message: "no host names given")
        }
        let san = try hostNames.map(Self.subjectAltNameEntry).joined(separator: ",")
        return try signing.withLock { _ in
            let leafKey = try PrivateKey.generateP256()
            let builder = try CertificateBuilder(commonName: first, publicKey: leafKey)
            try builder.setValidity(notBeforeOffset: -3600, notAfter: certificate)
            try builder.setIssuer(certificate)
            try builder.add(NID_basic_constraints, "critical,CA:FALSE", issuer: certificate)
            try builder.add(NID_key_usage, "critical,digitalSignature", issuer: certificate)
            try builder.add(NID_ext_key_usage, "serverAuth", issuer: certificate)
            try builder.add(NID_subject_alt_name, san, issuer: certificate)
            try builder.add(NID_subject_key_identifier, "hash", issuer: certificate)
            try builder.add(NID_authority_key_identifier, "keyid:always", issuer: certificate)
            let leaf = try builder.sign(with: key)
            return PEMIdentity(certificateChainPEM: try leaf.pem, privateKeyPEM: try leafKey.pem)
        }
    }

    /// "DNS:name" or "IP:address" in OpenSSL's extension syntax; rejects names that could
    /// inject further entries into that syntax.
    private static func subjectAltNameEntry(_ name: String) throws -> String {
        if let address = a2i_IPADDRESS(name) {
            ASN1_OCTET_STRING_free(address)
            return "IP:\(name)"
        }
        ERR_clear_error()
        let allowed = name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "*"), UInt8(ascii: "_"):
                return true
            default:
                return false
            }
        }
        guard allowed, !name.isEmpty else {
            throw TLSError(
                .configuration, operation: "issuing a certificate",
                message: "\"\(name)\" is neither a host name nor an IP address")
        }
        return "DNS:\(name)"
    }
}

/// An `X509*` under construction; consumed by `sign`.
private final class CertificateBuilder {
    private var x509: OpaquePointer?

    init(commonName: String, publicKey: PrivateKey) throws {
        let operation = "building a certificate for \(commonName)"
        guard let x509 = X509_new() else { throw TLSError.fromQueue(.configuration, operation: operation) }
        self.x509 = x509
        try check(X509_set_version(x509, 2) == 1, .configuration, operation)  // 2 means v3
        try Self.setRandomSerial(x509)
        let name = X509_get_subject_name(x509)
        try check(
            X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, commonName, -1, -1, 0) == 1,
            .configuration, operation)
        try check(X509_set_pubkey(x509, publicKey.pointer) == 1, .configuration, operation)
    }

    deinit { if let x509 { X509_free(x509) } }

    private static func setRandomSerial(_ x509: OpaquePointer) throws {
        guard let serial = BN_new() else { throw TLSError.fromQueue(.configuration, operation: "allocating a serial") }
        defer { BN_free(serial) }
        // 159 random bits: positive and at most 20 octets, as RFC 5280 requires.
        try check(BN_rand(serial, 159, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1, .configuration, "drawing a serial")
        try check(BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(x509)) != nil, .configuration, "setting a serial")
    }

    func setValidity(notBeforeOffset: Int, notAfterOffset: Int) throws {
        try check(
            X509_gmtime_adj(X509_getm_notBefore(x509), notBeforeOffset) != nil
                && X509_gmtime_adj(X509_getm_notAfter(x509), notAfterOffset) != nil,
            .configuration, "setting the validity period")
    }

    func setValidity(notBeforeOffset: Int, notAfter issuer: Certificate) throws {
        try check(
            X509_gmtime_adj(X509_getm_notBefore(x509), notBeforeOffset) != nil
                && X509_set1_notAfter(x509, X509_get0_notAfter(issuer.pointer)) == 1,
            .configuration, "setting the validity period")
    }

    /// Issuer name from `issuer`; nil: self-signed.
    func setIssuer(_ issuer: Certificate?) throws {
        let name = issuer.map { X509_get_subject_name($0.pointer) } ?? X509_get_subject_name(x509)
        try check(X509_set_issuer_name(x509, name) == 1, .configuration, "setting the issuer")
    }

    /// Adds an extension written in OpenSSL's configuration syntax (e.g. "critical,CA:TRUE").
    func add(_ nid: Int32, _ value: String, issuer: Certificate?) throws {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.pointer ?? x509, x509, nil, nil, 0)
        guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
            throw TLSError.fromQueue(.configuration, operation: "adding certificate extension \(value)")
        }
        defer { X509_EXTENSION_free(ext) }
        try check(X509_add_ext(x509, ext, -1) == 1, .configuration, "adding certificate extension \(value)")
    }

    func sign(with key: PrivateKey) throws -> Certificate {
        guard let x509 else { preconditionFailure("certificate already signed") }
        try check(X509_sign(x509, key.pointer, EVP_sha256()) > 0, .configuration, "signing a certificate")
        self.x509 = nil
        return Certificate(owning: x509)
    }
}
