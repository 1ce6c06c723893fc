#if canImport(Glibc)
    import Glibc
#endif
import Synchronization

/// The first failed write to a diagnostics file (a TLS or QUIC key log, a qlog). Those files are
/// written from inside the protocol engines' callbacks, which cannot throw and must not stop a
/// connection mid-handshake, so the failure is kept here and the run loop stops on it once the
/// run in flight has ended (`netbench run` exits 2 with this message) instead of leaving a key
/// log or qlog silently cut short.
public enum DiagnosticWriteFailure {
    private static let first = Mutex<String?>(nil)

    /// Records a failed write to `file` (e.g. `key log file /tmp/keys`), keeping only the first.
    public static func record(_ file: String, errno code: Int32) {
        let text = "\(file): cannot write: \(String(cString: strerror(code))) (errno \(code))"
        first.withLock { if $0 == nil { $0 = text } }
    }

    /// The first failure's one-line message, nil while every write has succeeded.
    public static var message: String? { first.withLock { $0 } }

    /// Forgets the failure (tests).
    public static func reset() { first.withLock { $0 = nil } }
}
