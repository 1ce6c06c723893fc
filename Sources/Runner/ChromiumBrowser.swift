import Foundation
import BenchCore
import BenchModel
import SystemIO

/// One headless Chromium for one run: a fresh profile in a temporary directory, DevTools over
/// `--remote-debugging-pipe` (the browser reads commands on fd 3 and writes answers on fd 4), and
/// a stop that ends exactly the processes this launch created, by PID.
///
/// The browser starts in the calling thread's network namespace (a child inherits the namespace of
/// the thread that spawns it), so launching inside `NetworkNamespace.with(client)` puts it on the
/// emulated client's side. It gets the parent-death signal (setpriv), so it cannot outlive netbench.
final class ChromiumBrowser {
    /// Where Chromium is looked for: `$NETBENCH_CHROMIUM`, then Debian's and the usual places.
    static let candidates = ["/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser",
                             "/usr/bin/google-chrome", "/opt/google/chrome/chrome"]

    /// The Chromium binary to run, or nil when none is installed.
    static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let p = environment["NETBENCH_CHROMIUM"], !p.isEmpty {
            return FileManager.default.isExecutableFile(atPath: p) ? p : nil
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// How to get Chromium when `locate()` finds none.
    static let installHint = "install it with `apt-get install -y chromium` (or `scripts/bootstrap.sh --chromium`), or point NETBENCH_CHROMIUM at a Chromium binary"

    let pid: Int32
    /// DevTools: commands to the browser (its fd 3), answers and events from it (its fd 4).
    let commands: FileHandle
    let answers: FileHandle
    let directory: String
    private let process: Process
    private var stopped = false

    /// Starts `executable` with `arguments` plus a fresh `--user-data-dir` and the pipe.
    init(executable: String, arguments: [String], namespace: String?) throws {
        directory = NSTemporaryDirectory() + "netbench-chromium-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory + "/profile", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: directory + "/stderr.log", contents: nil)
        let toBrowser = Pipe(), fromBrowser = Pipe()
        let p = Process()
        // Foundation's Process hands a child only fds 0-2: a shell moves the pipes to 3 and 4 and
        // then becomes Chromium (exec keeps the PID).
        p.executableURL = URL(fileURLWithPath: FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") ? "/usr/bin/setpriv" : "/bin/sh")
        let shell = ["/bin/sh", "-c", "exec 3<&0 4>&1 </dev/null >/dev/null; exec \"$@\"", "chromium", executable]
        let args = arguments + ["--user-data-dir=\(directory)/profile", "--remote-debugging-pipe", "about:blank"]
        p.arguments = (p.executableURL!.path == "/usr/bin/setpriv" ? ["--pdeathsig", "KILL"] + shell : Array(shell.dropFirst())) + args
        p.standardInput = toBrowser
        p.standardOutput = fromBrowser
        p.standardError = FileHandle(forWritingAtPath: directory + "/stderr.log") ?? FileHandle.nullDevice
        ProcessControl.ignoreBrokenPipes()
        do {
            try NetworkNamespace.with(namespace) { try p.run() }
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw BenchError.run("cannot start Chromium (\(executable)): \(error)")
        }
        process = p
        pid = p.processIdentifier
        commands = toBrowser.fileHandleForWriting
        answers = fromBrowser.fileHandleForReading
        try? toBrowser.fileHandleForReading.close()
        try? fromBrowser.fileHandleForWriting.close()
    }

    deinit { stop(grace: 0) }

    var isRunning: Bool { process.isRunning }

    /// The last lines of the browser's stderr that look like errors (for failure messages).
    var errorTail: String {
        let text = (try? String(contentsOfFile: directory + "/stderr.log", encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n").filter { $0.contains("ERROR") || $0.contains("FATAL") }
            .filter { !$0.contains("dbus") && !$0.contains("DBus") }
        return lines.suffix(3).joined(separator: " | ")
    }

    /// Waits up to `grace` for the browser to exit (after `Browser.close`), then kills what is left
    /// of the processes it started, and removes the profile.
    func stop(grace: Nanoseconds) {
        guard !stopped else { return }
        stopped = true
        // Children are found before the browser goes: once it exits they are re-parented.
        let tree = ProcessTree.descendants(of: pid)
        let deadline = Instant.now() + grace
        while process.isRunning && Instant.now() < deadline { usleep(5_000) }
        for p in tree.reversed() where ProcessTree.startTime(p.pid) == p.startTime { ProcessControl.signal(pid: p.pid, SIGKILL) }
        if process.isRunning { ProcessControl.signal(pid: pid, SIGKILL) }
        process.waitUntilExit()
        try? commands.close()
        try? answers.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// The processes under a PID, read from /proc (with their start times, so a PID reused meanwhile
/// is never signalled).
enum ProcessTree {
    struct Member { var pid: Int32; var startTime: UInt64 }

    /// Every descendant of `root`, parents before children.
    static func descendants(of root: Int32) -> [Member] {
        var children: [Int32: [Member]] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for name in entries {
            guard let pid = Int32(name), let (ppid, start) = stat(pid) else { continue }
            children[ppid, default: []].append(Member(pid: pid, startTime: start))
        }
        var out: [Member] = []
        var queue = [root]
        while let p = queue.first {
            queue.removeFirst()
            for c in children[p] ?? [] where !out.contains(where: { $0.pid == c.pid }) {
                out.append(c)
                queue.append(c.pid)
            }
        }
        return out
    }

    static func startTime(_ pid: Int32) -> UInt64? { stat(pid)?.1 }

    /// (ppid, starttime) from /proc/PID/stat; the command name may hold spaces and parentheses,
    /// so fields are counted after its last ')'.
    static func stat(_ pid: Int32) -> (Int32, UInt64)? {
        guard let text = ProcessControl.readSmallFile("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the name: state(3) ppid(4) … starttime(22).
        guard fields.count > 19, let ppid = Int32(fields[1]), let start = UInt64(fields[19]) else { return nil }
        return (ppid, start)
    }
}
