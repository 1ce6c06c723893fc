import Foundation
import SystemIO

/// Runs the system tools that configure namespaces (`ip`, `sysctl`), waits, and turns a non-zero
/// exit into an error carrying the command line and its stderr.
///
/// A child process inherits the network namespace of the thread that forks it, so these are never
/// run from inside `NetworkNamespace.with`.
enum HostCommand {
    struct Failure: Error, CustomStringConvertible {
        var command: String
        var status: Int32
        var stderr: String
        var description: String {
            "`\(command)` exited with \(status)"
                + (stderr.isEmpty ? "" : ": \(stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }

    /// The first executable among the usual locations, or nil.
    static func locate(_ tool: String) -> String? { ChildProcess.locate(tool) }

    /// Runs `tool args…`, feeding `input` on stdin; returns stdout.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], input: String? = nil) throws -> String {
        guard let path = locate(tool) else {
            throw Failure(
                command: tool, status: 127,
                stderr: "\(tool) not found in /usr/sbin, /sbin, /usr/bin or /bin (install iproute2 / procps)")
        }
        // posix_spawn + waitpid (SystemIO): Foundation's Process hangs inside a user namespace.
        let result = try ChildProcess.run(path, arguments, input: input)
        guard result.status == 0 else {
            throw Failure(
                command: ([tool] + arguments).joined(separator: " "), status: result.status, stderr: result.stderr)
        }
        return result.stdout
    }
}
