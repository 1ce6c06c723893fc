/// Where a protocol engine's diagnostics go (qlog bytes, NSS key-log lines). The engines hand them
/// over and do no file I/O; the caller chooses the destination (`SystemIO.DiagnosticFiles` writes
/// files; tests may keep them in memory).
public protocol DiagnosticsSink: AnyObject, Sendable {
    /// A stream for one connection's qlog, named like `client-<scid hex>`; nil: no qlog wanted.
    func qlogStream(name: String) -> (any ByteStream)?
    /// Whether key-log lines are wanted (the engine only formats them then).
    var wantsKeyLog: Bool { get }
    /// One NSS key-log line, without its newline (`LABEL <client random hex> <secret hex>`).
    func keyLogLine(_ line: String)
}

/// A destination for bytes, closed once.
public protocol ByteStream: AnyObject {
    func write(_ bytes: UnsafeRawBufferPointer)
    func close()
}
