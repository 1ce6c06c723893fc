internal import COpenSSL

extension PEMIdentity {
    /// base64(SHA-256(DER SubjectPublicKeyInfo)) of the leaf certificate: the pin form Chromium's
    /// `--ignore-certificate-errors-spki-list` takes (and HPKP used), the same value as
    /// `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`.
    public func leafPublicKeySHA256Base64() throws -> String {
        try PublicKeyPins.pin(try Certificate.all(fromPEM: certificateChainPEM, what: "a certificate to pin")[0])
    }
}

/// Pins of certificates given as PEM (`run --server --ca FILE --client chromium`: Chromium trusts
/// the certificates of the --ca file by their public keys).
public enum PublicKeyPins {
    /// base64(SHA-256(DER SubjectPublicKeyInfo)) of every certificate in `pem`, in order.
    public static func sha256Base64(everyCertificateIn pem: String) throws -> [String] {
        try Certificate.all(fromPEM: pem, what: "certificates to pin").map(pin)
    }

    static func pin(_ leaf: Certificate) throws -> String {
        let operation = "hashing a certificate's public key"
        guard let spki = X509_get_X509_PUBKEY(leaf.pointer) else {
            throw TLSError.fromQueue(.configuration, operation: operation)
        }
        // Asked once for the length, then to write into our buffer (i2d advances the pointer it gets).
        let length = i2d_X509_PUBKEY(spki, nil)
        guard length > 0 else { throw TLSError.fromQueue(.configuration, operation: operation) }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_X509_PUBKEY(spki, &cursor)
        }
        try check(written == length, .configuration, operation)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var digestLength: UInt32 = 0
        try check(EVP_Digest(der, der.count, &digest, &digestLength, EVP_sha256(), nil) == 1, .configuration, operation)
        var text = [UInt8](repeating: 0, count: 4 * ((Int(digestLength) + 2) / 3) + 1)
        let n = EVP_EncodeBlock(&text, digest, Int32(digestLength))
        return String(decoding: text[0..<Int(n)], as: UTF8.self)
    }
}
