#if canImport(Glibc)
    import Glibc
#endif
import BenchCore

/// A process netbench starts and keeps running alongside (a browser): spawned with exactly the
/// descriptors it is given, in a process group of its own (a Ctrl-C at the terminal reaches
/// netbench, which then stops it), in the calling thread's network namespace, and reaped by
/// netbench (`hasExited`, `wait()`). `ChildProcess` runs helpers to completion instead.
///
/// Foundation's `Process` is not used: its exit monitoring runs on a thread of its own (see
/// `ChildProcess` for how it failed in user namespaces).
public final class BackgroundProcess {
    public let pid: Int32
    /// The raw wait status once reaped.
    public private(set) var status: Int32?

    /// Starts `executable` with `arguments` (argv[0] included); `descriptors` maps child fd
    /// numbers (3, 4, …) to the parent's descriptors they get. stdin and stdout are /dev/null;
    /// stderr is appended to `stderrPath`.
    public init(executable: String, arguments: [String], descriptors: [Int32: FileDescriptor], stderrPath: String?)
        throws
    {
        pid = try Sys.posixSpawn(
            executable, arguments, dup2: descriptors.map { ($0.value.rawValue, $0.key) },
            open: [
                (0, "/dev/null", O_RDONLY), (1, "/dev/null", O_WRONLY),
                (2, stderrPath ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND),
            ],
            newProcessGroup: true)
    }

    /// Whether the child has exited (reaping it if so).
    public var hasExited: Bool {
        if status != nil { return true }
        status = (try? Sys.waitpid(pid, block: false)) ?? nil
        return status != nil
    }

    /// Waits up to `timeout` for the child to exit (polling every 5 ms); whether it did.
    @discardableResult
    public func wait(timeout: Nanoseconds) -> Bool {
        let deadline = Instant.now() + timeout
        while !hasExited {
            if Instant.now() >= deadline { return false }
            usleep(5_000)
        }
        return true
    }

    /// Waits for the child to exit and reaps it.
    public func wait() {
        guard status == nil else { return }
        status = (try? Sys.waitpid(pid, block: true)) ?? 0
    }

    /// A pipe for a child: both ends close-on-exec and numbered 10 or above (so no dup2 onto 3
    /// or 4 meets them); hand one end over through `descriptors`.
    public static func pipe() throws -> (read: FileDescriptor, write: FileDescriptor) {
        let (r, w) = try Sys.pipe()
        let high: FileDescriptor
        do { high = try Sys.moveAbove(r, minimum: 10) } catch { Sys.close(w); throw error }
        do { return (high, try Sys.moveAbove(w, minimum: 10)) } catch { Sys.close(high); throw error }
    }
}
