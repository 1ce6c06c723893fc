import Foundation
internal import COpenSSL

/// The system's trusted roots as OpenSSL finds them by default: `SSL_CERT_FILE`, else the default
/// CA file compiled into OpenSSL (Debian: /usr/lib/ssl/cert.pem → /etc/ssl/certs/ca-certificates.crt).
/// TCP contexts load them with `SSL_CTX_set_default_verify_paths` (`TLSClientConfiguration.systemRoots`);
/// the QUIC stack (GnuTLS) is handed this file's certificates, so h3 trusts the same roots.
public enum SystemTrustStore {
    /// The CA file OpenSSL's default verify paths read.
    public static var defaultFile: String {
        let env = String(cString: X509_get_default_cert_file_env())
        if let v = ProcessInfo.processInfo.environment[env], !v.isEmpty { return v }
        return String(cString: X509_get_default_cert_file())
    }

    /// The default CA file's PEM text; throws naming the file when it cannot be read or holds no certificate.
    public static func defaultFilePEM() throws -> String {
        let path = defaultFile
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TLSError(
                .configuration, operation: "reading the system trust store",
                message: "\(path) does not exist or cannot be read")
        }
        let pem = String(decoding: data, as: UTF8.self)
        guard pem.contains("-----BEGIN CERTIFICATE-----") else {
            throw TLSError(
                .configuration, operation: "reading the system trust store", message: "\(path) holds no PEM certificate"
            )
        }
        return pem
    }
}
