/// A certificate that does not verify before the first run of `run --server` (exit 2 at the
/// caller): the origin name, the endpoint and why (`RemoteExecutor.verifyCertificates`).
public enum RemoteCertificateCheck {
    public struct Failure: Error, CustomStringConvertible {
        public var hostName: String
        public var endpoint: String
        public var reason: String
        public var description: String {
            // A refused connection or a timeout is no verdict on the certificate: said as such.
            let verdict = reason.lowercased().contains("certificate") ? "does not verify" : "could not be checked"
            return "certificate for '\(hostName)' at \(endpoint) \(verdict): \(reason)"
        }
    }
}
