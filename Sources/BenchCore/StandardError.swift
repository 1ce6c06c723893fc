import Foundation

/// netbench's diagnostics and progress on standard error, and the command output on standard
/// output. A stream whose reader went away (`netbench run … 2>&1 | head`) takes nothing more and
/// the command goes on, so its results are still written and its clean-up still runs: SIGPIPE is
/// ignored (`NetworkNamespace.ignoreBrokenPipes`), and the non-throwing `FileHandle.write` would
/// trap on the EPIPE that comes instead.
public enum StandardError {
    public static func write(_ data: Data) { try? FileHandle.standardError.write(contentsOf: data) }
    public static func write(_ text: String) { write(Data(text.utf8)) }
}

public enum StandardOutput {
    public static func write(_ data: Data) { try? FileHandle.standardOutput.write(contentsOf: data) }
    public static func write(_ text: String) { write(Data(text.utf8)) }
}
