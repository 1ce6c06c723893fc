import Foundation

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
            "`\(command)` exited with \(status)" + (stderr.isEmpty ? "" : ": \(stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }

    /// The first executable among the usual locations, or nil.
    static func locate(_ tool: String) -> String? {
        for dir in ["/usr/sbin", "/sbin", "/usr/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: "\(dir)/\(tool)") {
            return "\(dir)/\(tool)"
        }
        return nil
    }

    /// Runs `tool args…`, feeding `input` on stdin; returns stdout.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], input: String? = nil) throws -> String {
        guard let path = locate(tool) else {
            throw Failure(command: tool, status: 127, stderr: "\(tool) not found in /usr/sbin, /sbin, /usr/bin or /bin (install iproute2 / procps)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = input.map { _ in Pipe() }
        process.standardInput = stdin ?? FileHandle.nullDevice
        try process.run()
        if let stdin, let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        // Read both pipes before waiting so a chatty child cannot block on a full pipe.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let command = ([tool] + arguments).joined(separator: " ")
        guard process.terminationStatus == 0 else {
            throw Failure(command: command, status: process.terminationStatus, stderr: String(decoding: errData, as: UTF8.self))
        }
        return String(decoding: outData, as: UTF8.self)
    }
}
