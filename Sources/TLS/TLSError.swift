internal import COpenSSL

/// A TLS failure: what netbench was doing and what OpenSSL said about it.
///
/// `message` is built from OpenSSL's own texts: the error queue (drained, oldest first) and,
/// for certificate problems, the X.509 verification result.
public struct TLSError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        /// Bad PEM, an unusable option, a file that cannot be opened.
        case configuration
        /// The peer's certificate chain or name was rejected (client side), or the peer
        /// rejected ours (its alert arrives as `handshake`).
        case certificateVerification
        /// Any other handshake failure: no common version, cipher or ALPN protocol, an alert.
        case handshake
        /// A failure after the handshake: a bad record, an unexpected alert.
        case connection
    }

    public var kind: Kind
    /// What netbench was doing, e.g. "TLS handshake with example.test".
    public var operation: String
    public var message: String

    public init(_ kind: Kind, operation: String, message: String) {
        self.kind = kind
        self.operation = operation
        self.message = message
    }

    public var description: String { "\(operation): \(message)" }

    /// An error whose message is OpenSSL's error queue (which this drains), or `fallback`
    /// when the queue is empty.
    static func fromQueue(
        _ kind: Kind, operation: String,
        fallback: String = "unknown OpenSSL error"
    ) -> TLSError {
        let queue = drainErrorQueue()
        return TLSError(kind, operation: operation, message: queue.isEmpty ? fallback : queue)
    }
}

/// Every entry of this thread's OpenSSL error queue, oldest first, as OpenSSL words it
/// (ERR_error_string_n plus the entry's extra data); the queue is left empty.
func drainErrorQueue() -> String {
    var entries: [String] = []
    var text = [CChar](repeating: 0, count: 256)
    while true {
        var data: UnsafePointer<CChar>? = nil
        var flags: Int32 = 0
        let code = ERR_get_error_all(nil, nil, nil, &data, &flags)
        if code == 0 { break }
        ERR_error_string_n(code, &text, text.count)
        var entry = String(
            decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) },
            as: UTF8.self)
        if let data, flags & ERR_TXT_STRING != 0, data.pointee != 0 {
            entry += " (\(String(cString: data)))"
        }
        entries.append(entry)
    }
    return entries.joined(separator: "; ")
}

/// Throws `TLSError.fromQueue` unless `ok`; for OpenSSL calls that return 1 on success.
func check(_ ok: Bool, _ kind: TLSError.Kind = .configuration, _ operation: @autoclosure () -> String) throws {
    if !ok { throw TLSError.fromQueue(kind, operation: operation()) }
}
