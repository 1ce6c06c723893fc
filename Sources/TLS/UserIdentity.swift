internal import COpenSSL

/// A certificate and key the user brings (`netbench serve --cert FILE --key FILE`), checked before
/// any listener opens so that every problem names the file and what is wrong with it.
extension PEMIdentity {
    public struct FileProblem: Error, CustomStringConvertible, Equatable {
        public var file: String
        public var problem: String
        public var description: String { "\(file): \(problem)" }
    }

    /// The identity from a certificate chain file (leaf first, then intermediates) and its private
    /// key file, both PEM; throws `FileProblem` for a missing certificate, an unreadable or encrypted
    /// key, or a key that is not the certificate's.
    public static func checked(
        certificateChainPEM: String, certificateFile: String,
        privateKeyPEM: String, keyFile: String
    ) throws -> PEMIdentity {
        let certificates: [Certificate]
        do { certificates = try Certificate.all(fromPEM: certificateChainPEM, what: "the certificate") } catch {
            throw FileProblem(file: certificateFile, problem: "no PEM certificate could be read (\(reason(error)))")
        }
        if privateKeyPEM.contains("ENCRYPTED") {
            throw FileProblem(
                file: keyFile,
                problem:
                    "the private key is encrypted; give an unencrypted one (openssl pkey -in \(keyFile) -out key.pem)")
        }
        guard privateKeyPEM.contains("PRIVATE KEY-----") else {
            throw FileProblem(
                file: keyFile, problem: "no PEM private key (expected a -----BEGIN PRIVATE KEY----- block)")
        }
        let key: PrivateKey
        do { key = try PrivateKey(pem: privateKeyPEM, what: "the private key") } catch {
            throw FileProblem(file: keyFile, problem: "the private key could not be read (\(reason(error)))")
        }
        guard X509_check_private_key(certificates[0].pointer, key.pointer) == 1 else {
            _ = drainErrorQueue()
            let subject = certificates[0].commonName.map { " (CN=\($0))" } ?? ""
            throw FileProblem(
                file: keyFile, problem: "the private key does not match the certificate\(subject) in \(certificateFile)"
            )
        }
        return PEMIdentity(certificateChainPEM: certificateChainPEM, privateKeyPEM: privateKeyPEM)
    }

    /// The names of `hosts` that the leaf certificate does not cover (SAN, or CN without SAN).
    public func hostNamesNotCovered(_ hosts: [String]) -> [String] {
        guard let leaf = try? Certificate.all(fromPEM: certificateChainPEM, what: "the certificate").first else {
            return hosts
        }
        return hosts.filter { !leaf.matches(host: $0) }
    }

    private static func reason(_ error: Error) -> String {
        (error as? TLSError)?.message ?? "\(error)"
    }
}
