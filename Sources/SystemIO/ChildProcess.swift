import BenchCore

/// A process netbench starts (a browser): spawned with exactly the descriptors it is given, in
/// a process group of its own (a Ctrl-C at the terminal reaches netbench, which stops it), in
/// the calling thread's network namespace. netbench reaps it itself: `hasExited`, `wait()`.
///
/// Foundation's `Process` is not used for this: its child-exit handling runs on a thread of its
/// own and was seen closing a descriptor another thread had just opened.
public final class ChildProcess {
    public let pid: Int32
    /// The raw wait status once reaped.
    public private(set) var status: Int32?

    /// Starts `executable` with `arguments` (argv[0] included); `descriptors` maps child fd
    /// numbers (3, 4, …) to the parent's descriptors they get. stdin and stdout are /dev/null;
    /// stderr goes to `stderrPath`.
    public init(executable: String, arguments: [String], descriptors: [Int32: FileDescriptor], stderrPath: String?) throws {
        pid = try Sys.posixSpawn(executable, arguments, dup2: descriptors.map { ($0.value.rawValue, $0.key) }, stderrPath: stderrPath)
    }

    /// Whether the child has exited (reaping it if so).
    public var hasExited: Bool {
        if status != nil { return true }
        status = (try? Sys.waitpid(pid, block: false)) ?? nil
        return status != nil
    }

    /// Waits for the child to exit and reaps it.
    public func wait() {
        guard status == nil else { return }
        status = (try? Sys.waitpid(pid, block: true)) ?? 0
    }

    /// A pipe, both ends close-on-exec: hand one end to a child through `descriptors`.
    public static func pipe() throws -> (read: FileDescriptor, write: FileDescriptor) { try Sys.pipe() }
}
