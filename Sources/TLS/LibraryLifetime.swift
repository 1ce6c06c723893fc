internal import COpenSSL

/// OpenSSL's process-wide state (its locks, providers and error tables).
public enum OpenSSLLibrary {
    /// Initializes OpenSSL without the clean-up it otherwise registers with `atexit`: a thread that
    /// is still encrypting while the process exits (a QUIC endpoint answering a last packet, a
    /// connection closing) would otherwise take a lock that clean-up has just freed and crash the
    /// exit (signal 11 after the work was written, seen once in a CI run of `load -t h3,quic-perf`).
    /// The operating system reclaims the memory. Takes effect only as the process's first OpenSSL
    /// call; later calls change nothing.
    public static func keepUntilExit() {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }
}
