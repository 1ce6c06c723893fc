#if canImport(Glibc)
    import Glibc
#endif
import BenchCore

/// A user's program that netbench runs and waits for (`netbench shell`): in the calling thread's
/// network namespace, in a process group of its own (so that netbench can signal it and all it
/// started by the group's id), with netbench's standard streams. Given the terminal, the group is
/// made its foreground group: Ctrl-C and an interactive shell's job control reach the program,
/// not netbench; `takeTerminalBack` returns it afterwards.
public final class UserCommand {
    public let pid: Int32
    /// Whether the program's group was made the terminal's foreground group.
    public let ownsTerminal: Bool
    /// The raw wait status once reaped.
    public private(set) var rawStatus: Int32?

    /// How the program's standard input is connected.
    public enum Input: Sendable {
        /// netbench's own; a terminal there is handed to the program (its group in the foreground).
        case terminal
        /// netbench's own, never given the terminal.
        case inherited
        /// /dev/null (a server beside an interactive program must not read the keyboard).
        case null
    }

    /// Starts `executable` (argv[0] included in `arguments`) with exactly `environment`.
    public init(executable: String, arguments: [String], environment: [String: String], input: Input) throws {
        let tty = input == .terminal && Sys.isatty(0)
        pid = try Sys.posixSpawn(
            executable, arguments, environment: environment.map { "\($0.key)=\($0.value)" },
            open: input == .null ? [(0, "/dev/null", O_RDONLY)] : [],
            newProcessGroup: true, foregroundOf: tty ? 0 : nil)
        ownsTerminal = tty
    }

    /// kill(2) of the whole process group (the program and what it started, unless they left it).
    public func signalGroup(_ signal: Int32) {
        guard rawStatus == nil || signal == SIGKILL else { return }
        _ = Sys.kill(-pid, signal)
    }

    /// Waits for the program (waitpid, EINTR retried); its exit status, 128 + the signal that ended it.
    public func wait() -> Int32 {
        if rawStatus == nil { rawStatus = (try? Sys.waitpid(pid, block: true)) ?? 0 }
        return Sys.exitStatus(rawStatus ?? 0)
    }

    /// The exit status if the program has ended (reaping it), else nil.
    public func poll() -> Int32? {
        if rawStatus == nil { rawStatus = (try? Sys.waitpid(pid, block: false)) ?? nil }
        return rawStatus.map(Sys.exitStatus)
    }

    /// Makes netbench's own process group the terminal's foreground group again.
    public func takeTerminalBack() {
        if ownsTerminal { Sys.tcsetpgrp(0, Sys.getpgrp()) }
    }

    /// The program a command name means: a name with a `/` as it is, else the first executable
    /// of that name in `searchPath` (PATH's syntax); nil when there is none.
    public static func resolve(_ name: String, searchPath: String?) -> String? {
        if name.contains("/") { return Sys.isExecutable(name) ? name : nil }
        for dir in (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = (dir.isEmpty ? "." : String(dir)) + "/" + name
            if Sys.isExecutable(candidate) { return candidate }
        }
        return nil
    }
}
