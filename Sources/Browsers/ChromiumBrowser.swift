import Foundation
import BenchCore
import BenchModel
import Testbed
import Runner
import SystemIO

/// One headless Chromium for one run: a fresh profile in a temporary directory, DevTools over
/// `--remote-debugging-pipe` (the browser reads commands on fd 3 and writes answers on fd 4), and
/// a stop that ends exactly the processes this launch created, by PID.
///
/// The browser starts in the calling thread's network namespace (a child inherits the namespace of
/// the thread that spawns it), so launching inside `NetworkNamespace.with(client)` puts it on the
/// emulated client's side. It gets the parent-death signal (setpriv), so it cannot outlive netbench,
/// and a process group of its own, so a Ctrl-C reaches netbench, which then stops it.
final class ChromiumBrowser {
    /// Where Chromium is looked for: `$NETBENCH_CHROMIUM`, then Debian's and the usual places.
    static let candidates = [
        "/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome", "/opt/google/chrome/chrome",
    ]

    /// The Chromium binary to run, or nil when none is installed.
    static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let p = environment["NETBENCH_CHROMIUM"], !p.isEmpty {
            return FileManager.default.isExecutableFile(atPath: p) ? p : nil
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// How to get Chromium when `locate()` finds none.
    static let installHint =
        "install it with `apt-get install -y chromium` (or `scripts/bootstrap.sh --chromium`), or point "
            + "NETBENCH_CHROMIUM at a Chromium binary"

    let pid: Int32
    /// DevToolsPipe: commands to the browser (its fd 3), answers and events from it (its fd 4).
    let commands: FileDescriptor
    let answers: FileDescriptor
    let directory: String
    private let process: BackgroundProcess
    private var stopped = false

    /// Starts `executable` with `arguments` plus a fresh `--user-data-dir` and the pipe.
    init(executable: String, arguments: [String], namespace: String?) throws {
        Self.removeStaleProfiles()
        let directory =
            NSTemporaryDirectory() + "netbench-chromium-\(getpid())-" + UUID().uuidString.prefix(8).lowercased()
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory + "/profile", withIntermediateDirectories: true)
        let toBrowser = try BackgroundProcess.pipe()
        let fromBrowser: (read: FileDescriptor, write: FileDescriptor)
        do { fromBrowser = try BackgroundProcess.pipe() } catch {
            Socket.close(toBrowser.read); Socket.close(toBrowser.write)
            throw error
        }
        // setpriv gives the browser the parent-death signal and then becomes it (exec keeps the PID).
        let setpriv = "/usr/bin/setpriv"
        let wrap = FileManager.default.isExecutableFile(atPath: setpriv) ? [setpriv, "--pdeathsig", "KILL", "--"] : []
        let argv =
            wrap + [executable] + arguments + [
                "--user-data-dir=\(directory)/profile", "--remote-debugging-pipe", "about:blank",
            ]
        ProcessControl.ignoreBrokenPipes()
        let child: BackgroundProcess
        do {
            child = try NetworkNamespace.with(namespace) {
                try BackgroundProcess(
                    executable: argv[0], arguments: argv, descriptors: [3: toBrowser.read, 4: fromBrowser.write],
                    stderrPath: directory + "/stderr.log")
            }
        } catch {
            for fd in [toBrowser.read, toBrowser.write, fromBrowser.read, fromBrowser.write] { Socket.close(fd) }
            try? FileManager.default.removeItem(atPath: directory)
            throw BenchError.run("cannot start Chromium (\(executable)): \(error)")
        }
        // The browser's ends are its own now.
        Socket.close(toBrowser.read)
        Socket.close(fromBrowser.write)
        process = child
        pid = child.pid
        commands = toBrowser.write
        answers = fromBrowser.read
    }

    deinit { stop(grace: 0) }

    /// Profiles left behind by a netbench that was killed (its PID is in the name and gone).
    static func removeStaleProfiles() {
        BrowserProcesses.removeStaleProfiles(prefix: "netbench-chromium-", before: removeSocketDirectory(ofProfile:))
    }

    /// Chromium keeps its profile's singleton socket in a directory of its own in the temporary
    /// directory (`org.chromium.Chromium.XXXXXX`, linked from the profile's `SingletonSocket`) and
    /// removes it only when it exits normally: a browser that is killed leaves it behind. Removes
    /// that directory of the profile under `directory`, and nothing that does not look like it.
    static func removeSocketDirectory(ofProfile directory: String) {
        guard
            let target = try? FileManager.default.destinationOfSymbolicLink(
                atPath: directory + "/profile/SingletonSocket")
        else { return }
        let parent = (target as NSString).deletingLastPathComponent
        let tmp = (NSTemporaryDirectory() as NSString).standardizingPath
        guard (parent as NSString).deletingLastPathComponent == tmp,
            (parent as NSString).lastPathComponent.hasPrefix("org.chromium.Chromium.")
        else { return }
        try? FileManager.default.removeItem(atPath: parent)
    }

    var isRunning: Bool { !process.hasExited }

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
        BrowserProcesses.stop(process, pid: pid, grace: grace)
        Socket.close(commands)
        Socket.close(answers)
        Self.removeSocketDirectory(ofProfile: directory)
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// What both browsers do with their processes and profiles.
enum BrowserProcesses {
    /// Profile directories `<prefix><owner pid>-<n>` in the temporary directory whose netbench is gone.
    static func removeStaleProfiles(prefix: String, before remove: (String) -> Void = { _ in }) {
        let tmp = NSTemporaryDirectory()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? [] where name.hasPrefix(prefix) {
            let fields = name.split(separator: "-")
            guard fields.count == 4, let owner = Int32(fields[2]), owner != getpid(),
                !ProcessControl.signal(pid: owner, 0)
            else { continue }
            remove(tmp + name)
            try? FileManager.default.removeItem(atPath: tmp + name)
        }
    }

    /// Waits up to `grace` for the browser to exit, then kills what is left of the processes it
    /// started (found before it goes: once it exits they are re-parented) and the browser itself.
    static func stop(_ process: BackgroundProcess, pid: Int32, grace: Nanoseconds) {
        let tree = ProcessTree.descendants(of: pid)
        process.wait(timeout: grace)
        for p in tree.reversed() where ProcessTree.startTime(p.pid) == p.startTime {
            ProcessControl.signal(pid: p.pid, SIGKILL)
        }
        if !process.hasExited { ProcessControl.signal(pid: pid, SIGKILL) }
        process.wait()
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
        guard let text = ProcessControl.readSmallFile("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else {
            return nil
        }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the name: state(3) ppid(4) … starttime(22).
        guard fields.count > 19, let ppid = Int32(fields[1]), let start = UInt64(fields[19]) else { return nil }
        return (ppid, start)
    }
}
