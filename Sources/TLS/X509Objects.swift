internal import COpenSSL

// Owners of the OpenSSL objects that certificates and keys are made of. Each is immutable once
// built (OpenSSL reference-counts them and reads them from any thread), hence @unchecked Sendable.

/// An `X509*`, freed on deinit.
final class Certificate: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of `pointer` (one reference).
    init(owning pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_free(pointer) }

    /// Every certificate in `pem`, in order; throws if there is none or one is malformed.
    static func all(fromPEM pem: String, what: String) throws -> [Certificate] {
        try withReadOnlyBIO(pem) { bio in
            var certificates: [Certificate] = []
            while let x509 = PEM_read_bio_X509(bio, nil, nil, nil) {
                certificates.append(Certificate(owning: x509))
            }
            // The loop ends on "no start line" at the end of input: expected, not an error,
            // unless nothing at all was read.
            let leftover = drainErrorQueue()
            guard !certificates.isEmpty else {
                throw TLSError(
                    .configuration, operation: "reading \(what)",
                    message: "no PEM certificate found" + (leftover.isEmpty ? "" : " (\(leftover))"))
            }
            return certificates
        }
    }

    var pem: String {
        get throws { try pemText(operation: "writing a certificate as PEM") { PEM_write_bio_X509($0, pointer) } }
    }

    /// Whether this certificate's SAN (or CN when it has no SAN) matches the DNS name `host`.
    func matches(host: String) -> Bool {
        X509_check_host(pointer, host, 0, 0, nil) == 1
    }

    /// The subject's first common name.
    var commonName: String? {
        guard let name = X509_get_subject_name(pointer) else { return nil }
        let index = X509_NAME_get_index_by_NID(name, NID_commonName, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index),
            let data = X509_NAME_ENTRY_get_data(entry),
            let bytes = ASN1_STRING_get0_data(data)
        else { return nil }
        return String(
            decoding: UnsafeBufferPointer(start: bytes, count: Int(ASN1_STRING_length(data))),
            as: UTF8.self)
    }
}

/// An `EVP_PKEY*`, freed on deinit.
final class PrivateKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    /// A fresh ECDSA P-256 key (EVP_PKEY_Q_keygen is variadic, so through an EVP_PKEY_CTX).
    static func generateP256() throws -> PrivateKey {
        let operation = "generating a P-256 key"
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw TLSError.fromQueue(.configuration, operation: operation)
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        try check(EVP_PKEY_keygen_init(ctx) == 1, .configuration, operation)
        try check(EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1, .configuration, operation)
        var key: OpaquePointer? = nil
        try check(EVP_PKEY_generate(ctx, &key) == 1 && key != nil, .configuration, operation)
        return PrivateKey(owning: key!)
    }

    init(pem: String, what: String) throws {
        let key = try withReadOnlyBIO(pem) { PEM_read_bio_PrivateKey($0, nil, nil, nil) }
        guard let key else { throw TLSError.fromQueue(.configuration, operation: "reading \(what)") }
        pointer = key
    }

    /// Unencrypted PKCS#8 PEM.
    var pem: String {
        get throws {
            try pemText(operation: "writing a private key as PEM") {
                PEM_write_bio_PrivateKey($0, pointer, nil, nil, 0, nil, nil)
            }
        }
    }
}

/// A `STACK_OF(X509)` holding its own reference to each certificate, freed on deinit.
final class CertificateStack: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ certificates: ArraySlice<Certificate>) throws {
        guard let stack = OPENSSL_sk_new_null() else {
            throw TLSError.fromQueue(.configuration, operation: "allocating a certificate chain")
        }
        pointer = stack
        for certificate in certificates {
            X509_up_ref(certificate.pointer)
            guard OPENSSL_sk_push(stack, UnsafeRawPointer(certificate.pointer)) > 0 else {
                X509_free(certificate.pointer)
                throw TLSError.fromQueue(.configuration, operation: "building a certificate chain")
            }
        }
    }

    deinit {
        OPENSSL_sk_pop_free(pointer) { X509_free(OpaquePointer($0)) }
    }
}

/// A leaf certificate, its key and the intermediates sent after it: one server identity.
final class LoadedIdentity: @unchecked Sendable {
    let leaf: Certificate
    let key: PrivateKey
    let chain: CertificateStack

    init(_ identity: PEMIdentity, index: Int) throws {
        let certificates = try Certificate.all(
            fromPEM: identity.certificateChainPEM,
            what: "the certificate chain of identity \(index)")
        leaf = certificates[0]
        key = try PrivateKey(pem: identity.privateKeyPEM, what: "the private key of identity \(index)")
        chain = try CertificateStack(certificates.dropFirst())
        guard X509_check_private_key(leaf.pointer, key.pointer) == 1 else {
            throw TLSError.fromQueue(
                .configuration, operation: "loading identity \(index)",
                fallback: "the private key does not match the certificate")
        }
    }
}

/// Runs `body` with a read-only memory BIO over the UTF-8 bytes of `text`.
func withReadOnlyBIO<R>(_ text: String, _ body: (OpaquePointer) throws -> R) throws -> R {
    var text = text
    return try text.withUTF8 { bytes in
        guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else {
            throw TLSError.fromQueue(.configuration, operation: "allocating a memory BIO")
        }
        defer { BIO_free(bio) }
        return try body(bio)
    }
}

/// The text that `write` puts into a fresh memory BIO (`write` returns OpenSSL's 1 on success).
func pemText(operation: String, _ write: (OpaquePointer) -> Int32) throws -> String {
    guard let bio = BIO_new(BIO_s_mem()) else { throw TLSError.fromQueue(.configuration, operation: operation) }
    defer { BIO_free(bio) }
    try check(write(bio) == 1, .configuration, operation)
    var data: UnsafeMutablePointer<CChar>? = nil
    let length = netbench_BIO_get_mem_data(bio, &data)
    guard let data, length > 0 else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
}
