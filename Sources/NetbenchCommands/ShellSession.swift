import Foundation
import Synchronization
import BenchCore
import BenchModel
import LinkEmulator
import Reporters
import SystemIO
import Testbed

/// One `netbench shell` session: the server program and COMMAND started in their namespaces, the
/// emulator running from COMMAND's start, signals forwarded, `--duration` enforced, and when
/// COMMAND ends: its group killed, the server stopped, the summary and log written, the network
/// removed. Never throws: a failure after the network exists is reported and still cleans up.
final class ShellSession {
    struct Options {
        var duration: Nanoseconds?
        var loop: Bool
        var pcap: String?
        var log: String?
        /// `--pcap-full stop`: a capture that fails (a full disk) stops COMMAND; else it goes on.
        var stopOnCaptureFailure = false
    }

    /// Signals netbench passes on to COMMAND's process group instead of dying of them.
    static let forwarded = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    /// How long a stopped program may take to exit before SIGKILL.
    static let grace: Nanoseconds = .seconds(2)

    let testbed: ShellTestbed
    let command: (executable: String, argv: [String])
    let serverShell: String?
    let environment: [String: String]
    let options: Options
    let signals: ShellSignals
    private let timedOut = Atomic(false)
    /// COMMAND's process group once it runs (0 before), for the capture's failure handler.
    private let running = RunningGroup()

    init(
        testbed: ShellTestbed, command: (String, [String]), serverShell: String?, environment: [String: String],
        options: Options, signals: ShellSignals
    ) {
        self.signals = signals
        self.testbed = testbed
        self.command = command
        self.serverShell = serverShell
        self.environment = environment.merging(testbed.environment) { $1 }
        self.options = options
    }

    /// Runs the session; returns netbench's exit status (COMMAND's, 124 after `--duration`, or
    /// `runFailed` when COMMAND could not be started).
    func run() -> Int32 {
        defer { testbed.close() }
        let label = "shell-" + Self.timestamp()
        printBanner()
        var server: UserCommand?
        let client: UserCommand
        do {
            if let serverShell {
                server = try testbed.network.inServerNamespace {
                    try UserCommand(
                        executable: Self.deathSignalWrapper ?? "/bin/sh",
                        arguments: Self.wrapped("/bin/sh", ["/bin/sh", "-c", serverShell]), environment: environment,
                        input: .null)
                }
            }
            let stopOnFull = options.stopOnCaptureFailure, running = self.running
            let capture = options.pcap.map {
                CaptureRequest(directory: $0, label: label) { message in
                    shellMessage(
                        "netbench: shell: --pcap: \(message)"
                            + (stopOnFull ? "; stopping COMMAND (--pcap-full stop)" : "; COMMAND goes on"))
                    if stopOnFull { running.terminate() }
                }
            }
            let linkLog = options.log.map { CaptureRequest(directory: $0, label: label) }
            try testbed.start(loop: options.loop, capture: capture, linkLog: linkLog)
            if let sig = signals.received { throw ShellSignals.Interrupted(signal: sig) }
            client = try testbed.network.inClientNamespace {
                try UserCommand(
                    executable: Self.deathSignalWrapper ?? command.executable,
                    arguments: Self.wrapped(command.executable, command.argv), environment: environment,
                    input: .terminal)
            }
        } catch {
            shellMessage("netbench: shell: \(error)")
            stop(server)
            if testbed.network.isRunning { _ = try? testbed.stop() }
            if let interrupted = error as? ShellSignals.Interrupted { return 128 + interrupted.signal }
            return (error as? BenchError)?.exitCode.rawValue ?? ExitCode.runFailed.rawValue
        }
        let started = Instant.now()
        running.set(client.pid)
        signals.forward(to: client)
        let deadline = options.duration.map { scheduleDeadline($0, client) }
        var status = client.wait()
        running.set(0)
        deadline?.cancel()
        client.takeTerminalBack()
        client.signalGroup(SIGKILL)  // whatever COMMAND left running in its group
        signals.cancel()
        let elapsed = Instant.now().since(started)
        let serverStatus = server?.poll()
        stop(server)
        if timedOut.load(ordering: .relaxed) { status = 124 }
        finish(
            ShellOutcome(
                status: status, timedOut: timedOut.load(ordering: .relaxed), elapsed: elapsed,
                serverStatus: serverStatus, command: command.argv, serverShell: serverShell),
            label: label)
        return status
    }

    /// Stops the emulator and writes the summary (and the log); a failed stop is reported.
    private func finish(_ outcome: ShellOutcome, label: String) {
        do {
            let report = try testbed.stop()
            let summary = ShellSummary.text(report, outcome: outcome, testbed: testbed)
            shellMessage(summary)
            if let dir = options.log {
                let path = "\(dir)/\(label).json", page = "\(dir)/\(label).html"
                do {
                    try AtomicFile.write(ShellSummary.log(report, outcome: outcome, testbed: testbed), to: path)
                    let html = LinkSessionHTML.render(
                        title: outcome.command.joined(separator: " "),
                        facts: summary.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) },
                        emulator: ShellSummary.record(report, testbed: testbed))
                    try AtomicFile.write(Data(html.utf8), to: page)
                    shellMessage("log: \(path), \(page)")
                    for file in report.linkLogFiles { shellMessage("link log: \(file)") }
                } catch { shellMessage("netbench: shell: --log: cannot write into \(dir): \(error)") }
            }
        } catch { shellMessage("netbench: shell: stopping the emulator: \(error)") }
    }

    private func printBanner() {
        let env = testbed.environment
        let cc = testbed.network.namespaceDefaultCongestionControl
        shellMessage(
            "netbench shell: \(testbed.profile.name) (\(testbed.profile.summary)); TCP congestion control "
                + "\(cc.isEmpty ? "unknown" : cc); timer floor p99 "
                + "\(Units.format(Double(testbed.timerFloor.p99) / 1000, 0)) µs")
        for key in env.keys.sorted() { shellMessage("  \(key)=\(env[key]!)") }
    }

    /// SIGTERM to the server's group, SIGKILL after the grace period.
    private func stop(_ server: UserCommand?) {
        guard let server, server.poll() == nil else { return }
        server.signalGroup(SIGTERM)
        let deadline = Instant.now() + Self.grace
        while server.poll() == nil, Instant.now() < deadline { usleep(10_000) }
        server.signalGroup(SIGKILL)
        _ = server.wait()
    }

    private func scheduleDeadline(_ duration: Nanoseconds, _ client: UserCommand) -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + .nanoseconds(Int(duration)), repeating: .nanoseconds(Int(Self.grace)))
        nonisolated(unsafe) var fired = 0
        timer.setEventHandler { [self] in
            timedOut.store(true, ordering: .relaxed)
            client.signalGroup(fired == 0 ? SIGTERM : SIGKILL)
            fired += 1
        }
        timer.resume()
        return timer
    }

    /// `setpriv --pdeathsig KILL` (util-linux), so that COMMAND and the server program die with
    /// netbench even after a kill -9 (what they started is killed by the next command's cleanup).
    static let deathSignalWrapper = ChildProcess.locate("setpriv")

    static func wrapped(_ executable: String, _ argv: [String]) -> [String] {
        guard let wrapper = deathSignalWrapper else { return argv }
        return [wrapper, "--pdeathsig", "KILL", "--", executable] + argv.dropFirst()
    }

    static func timestamp() -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return f.string(from: Date())
    }
}

/// SIGINT, SIGTERM, SIGHUP and SIGQUIT from the start of `netbench shell`: before COMMAND runs
/// they stop the setup (which then removes what it built), afterwards they go to COMMAND's
/// process group (a terminal's Ctrl-C reaches it directly when it holds the terminal).
final class ShellSignals: @unchecked Sendable {
    struct Interrupted: Error, CustomStringConvertible {
        var signal: Int32
        var description: String { "interrupted by signal \(signal) before COMMAND started" }
    }

    private let lock = NSLock()
    private var target: UserCommand?
    private var first: Int32?
    private var sources: [DispatchSourceSignal] = []

    init() {
        sources = ShellSession.forwarded.map { sig in
            ProcessControl.setIgnored(sig, true)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [self] in
                let t = lock.withLock { () -> UserCommand? in
                    if first == nil { first = sig }
                    return target
                }
                t?.signalGroup(sig)
            }
            source.resume()
            return source
        }
    }

    /// The first signal received, if any.
    var received: Int32? { lock.withLock { first } }

    /// From now on signals go to `client`'s group (one that came since the last check goes now).
    func forward(to client: UserCommand) {
        let pending = lock.withLock { () -> Int32? in
            target = client
            return first
        }
        if let pending { client.signalGroup(pending) }
    }

    func cancel() { for s in sources { s.cancel() } }
}

/// How a session ended, for the summary and the log.
struct ShellOutcome {
    var status: Int32
    var timedOut: Bool
    var elapsed: Nanoseconds
    /// The server program's status if it had ended by itself before COMMAND did.
    var serverStatus: Int32?
    var command: [String]
    var serverShell: String?
}

/// A line on stderr that never stops the session: with stderr a closed pipe (`| head`) the write
/// fails quietly (writeError's FileHandle.write would trap, leaving the network behind).
func shellMessage(_ text: String) {
    StandardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
}

/// COMMAND's process group as a value another thread may signal (the packet loop's capture
/// failure handler): 0 while no COMMAND runs.
final class RunningGroup: Sendable {
    private let pid = Atomic<Int32>(0)
    func set(_ value: Int32) { pid.store(value, ordering: .releasing) }
    /// SIGTERM to the group, as --duration sends it.
    func terminate() {
        let p = pid.load(ordering: .acquiring)
        if p > 0 { _ = ProcessControl.signal(pid: -p, SIGTERM) }
    }
}
