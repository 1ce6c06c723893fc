internal import COpenSSL

/// Message digests from the OpenSSL the project links (no hash code of its own for these).
public enum Digest {
    /// SHA-1 of `bytes` (20 bytes). Only for protocols that name it, such as the WebSocket
    /// handshake's Sec-WebSocket-Accept (RFC 6455 §4.2.2); never for anything secret.
    public static func sha1(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // EVP_Digest only fails when out of memory; an empty result then fails any comparison.
        guard EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha1(), nil) == 1 else { return [] }
        return Array(digest[0..<Int(length)])
    }
}
