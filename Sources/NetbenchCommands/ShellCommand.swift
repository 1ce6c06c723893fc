import Foundation
import BenchCore
import BenchModel
import CommandLineKit
import LinkEmulator
import Runner
import SystemIO
import Testbed

struct ShellCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "shell",
            abstract: "run any program through a profile's emulated network",
            discussion: """
                Builds PROFILE's emulated network as 'run' does (the same link model, packet loop and timer floor) \
                and runs COMMAND (default $SHELL, else /bin/sh; interactive when standard input is a terminal) in \
                its client namespace: everything COMMAND sends crosses the emulator. COMMAND gets these variables, \
                which are also printed on stderr:
                  NETBENCH_HOST     the host: reaches services listening on 127.0.0.1 of the root namespace, through \
                the emulator (the server namespace forwards to a veth pair, the root namespace DNATs to 127.0.0.1 \
                with route_localnet on its end; needs nft, Debian's nftables)
                  NETBENCH_SERVER   the server namespace (198.18.0.1), where --server-shell runs
                  NETBENCH_CLIENT   COMMAND's own address on the first path
                  NETBENCH_PROFILE  the profile's name
                Your own shell would expand them before netbench runs: quote them for COMMAND's shell (sh -c '…').

                Every profile works: rates, loss, queues, Mahimahi traces (which wrap, as in Mahimahi), several \
                paths with switches, outages and NAT rebinding. Timed events and outages count from the moment \
                COMMAND starts and play once; with --loop they repeat, one cycle being the end of the last one \
                plus the offset of the first (events at 5 s and 10 s repeat at 20 s and 25 s), each cycle starting \
                again on the first path with every path up. A path switch moves the default route and takes the old \
                path down; what the program's sockets do about it is up to the program. The namespaces' TCP \
                congestion control is cubic where the host allows a namespace to choose (the banner says which).

                --server-shell 'CMD' runs CMD with /bin/sh in the server namespace (stdin /dev/null) before COMMAND \
                starts, so both ends can be your programs; it is stopped (SIGTERM to its process group, SIGKILL \
                2 s later) when COMMAND ends. Let COMMAND retry or wait until the server listens.

                Exit status: COMMAND's (128 + N when signal N ended it); 124 when --duration ended it, as \
                timeout(1); 127 when COMMAND (or the --server-shell's /bin/sh) is not found. Ctrl-C goes to \
                COMMAND (it holds the terminal, or netbench forwards SIGINT, SIGTERM and SIGHUP to its process \
                group). When COMMAND ends, what is left of its process group is killed, the emulator stops and a \
                summary goes to stderr: packets and bytes each way and per path, drops by cause, release lateness \
                against the timer floor measured before, and whether the emulator's timing can be trusted. \
                For a second after each packet the emulator's loop sleeps in hops of at most 200 µs, so that a \
                lone packet (a ping every 50 ms) is read and released as punctually as a busy link's (about 5% of \
                a core while it lasts; nothing when no packet flows). A packet's arrival is when COMMAND's \
                kernel sent it into the emulator, stamped by the kernel (a packet tap on each TUN), not when the \
                loop woke to read it; the summary prints how long after that the loop read packets (at 500 Mbit/s \
                or more only while the TUNs carry super-packets, else arrivals are stamped when read). \
                Namespaces, devices and the host's NAT table go with netbench; after a kill -9 the next \
                netbench command that emulates (run, shell, doctor --cleanup) removes them and kills the programs \
                left inside. Without root netbench runs itself again in a user namespace where the kernel allows \
                (there NETBENCH_HOST reaches that namespace's loopback, not the host's), else exits 77.

                --log DIR writes what a run records of its link: DIR/shell-<time>.json (the emulator's record: \
                counters per path and direction, queueing delay p50/p90/p99/max, CE marks, lateness, flag, path \
                events, the link's time series), DIR/shell-<time>.html (the same, with throughput against offered \
                load and capacity and queueing delay over time, as report.html draws a run's link) and a link log \
                per path and direction in Mahimahi's format (DIR/shell-<time>-<path>-<up|down>.log: + arrival, \
                - departure with its queueing delay, # delivery opportunity, d drop; see 'run --link-log'). \
                --pcap DIR writes the packets entering and leaving the emulator's links, as 'run --pcap' does. \
                Both directories must exist.
                """,
            examples: [
                "netbench shell 4G",
                "netbench shell 4G -- sh -c 'iperf3 -c $NETBENCH_HOST -R -C cubic -t 20'",
                "netbench shell Cable --duration 30s -- sh -c 'curl -o /dev/null http://$NETBENCH_HOST:8080/'",
                "netbench shell 4G --server-shell 'iperf3 -s -1' -- sh -c 'sleep 0.5; iperf3 -c $NETBENCH_SERVER'",
                "netbench shell wifi-to-lte --loop --duration 60s --log /tmp/shell -- sh -c 'ping $NETBENCH_HOST'",
            ],
            exitCodes: [
                ExitCodeDoc(.success, "COMMAND exited with 0"),
                ExitCodeDoc(.runFailed, "the network could not be built or the emulator failed (COMMAND did not run)"),
                Netbench.usageExit,
                ExitCodeDoc(.dataError, "bad profile or trace: the message names the file, key and value"),
                ExitCodeDoc(.noPermission, "no privilege for network namespaces and TUN devices"),
                ExitCodeDoc(124, "--duration ended COMMAND"),
                ExitCodeDoc(127, "COMMAND not found"),
                ExitCodeDoc(128, "128 + N: COMMAND was ended by signal N; any other status is COMMAND's own"),
            ])
    }

    @Argument(
        "PROFILE", help: "an emulated profile by name (see 'netbench profiles') or file",
        completion: .file(extensions: ["json"])) var profileName: String
    @Argument(
        "COMMAND", help: "the program and its arguments, after -- (default: $SHELL)") var command: [String]
    @Option(
        "--server-shell", value: "CMD", help: "run CMD with /bin/sh in the server namespace (at $NETBENCH_SERVER)",
        parse: .nonEmpty) var serverShell: String?
    @Option(
        "--duration", value: "D", help: "stop COMMAND after D (SIGTERM to its group, SIGKILL 2 s later; exit 124)",
        parse: .duration(atLeast: 1_000_000)) var duration: Nanoseconds?
    @Flag("--loop", help: "repeat the profile's events and outages cycle after cycle (traces always wrap)")
    var loop: Bool
    @Option(
        "--log", value: "DIR", help: "write the session's record (JSON), page (HTML) and Mahimahi link logs into DIR",
        parse: .directory)
    var log: String?
    @Option(
        "--pcap", value: "DIR",
        help: "write pcap files of the packets entering and leaving the emulator's links into DIR",
        parse: .directory) var pcap: String?
    @Option(
        "--pcap-full", value: "WHAT", default: .continue, defaultText: "continue",
        help: "when the capture cannot be written (a full disk): continue (one line on stderr, COMMAND goes on) "
            + "or stop (the line, then SIGTERM to COMMAND's group)",
        parse: .choice(PcapFull.self)) var pcapFull: PcapFull
    @Option("--seed", value: "N", default: 1, help: "seed of the loss processes", parse: .uint64) var seed: UInt64
    @Flag(
        "--emulator-precise",
        help: "the emulator's precise mode, as 'run --emulator-precise': release lateness below the timer floor, "
            + "at the cost of CPU (the summary shows the loop's share)"
    ) var emulatorPrecise: Bool

    func validate() throws {
        for (option, dir) in [("--log", log), ("--pcap", pcap)] {
            guard let dir else { continue }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue,
                FileManager.default.isWritableFile(atPath: dir)
            else { throw BenchError.usage("\(option) \(dir): not a writable directory") }
        }
    }

    func run() throws -> ExitCode {
        let profile = try Library.locate().profile(profileName)
        if loop, try ShellTestbed.loopPeriod(of: profile, library: Library.locate()) == nil {
            throw BenchError.usage("--loop: profile '\(profile.name)' has no events or outages to repeat")
        }
        let env = ProcessInfo.processInfo.environment
        let argv = command.isEmpty ? [env["SHELL"].flatMap { $0.isEmpty ? nil : $0 } ?? "/bin/sh"] : command
        guard let executable = UserCommand.resolve(argv[0], searchPath: env["PATH"]) else {
            shellMessage("netbench: shell: \(argv[0]): command not found")
            exit(127)
        }
        if serverShell != nil, UserCommand.resolve("/bin/sh", searchPath: nil) == nil {
            shellMessage("netbench: shell: /bin/sh: command not found (needed by --server-shell)")
            exit(127)
        }
        try PrivilegeGate.requireEmulation()
        if getuid() == 0 {
            let removed = EmulatedNetwork.cleanupStale()
            if !removed.isEmpty {
                shellMessage(
                    "netbench: removed leftovers of netbench runs that died: " + removed.joined(separator: ", "))
            }
        }
        let signals = ShellSignals()
        let testbed = try ShellTestbed(
            profile: profile, library: Library.locate(), settings: EmulatorSettings(precise: emulatorPrecise),
            seed: seed)
        if let sig = signals.received {
            testbed.close()
            shellMessage("netbench: shell: \(ShellSignals.Interrupted(signal: sig))")
            exit(128 + sig)
        }
        let session = ShellSession(
            testbed: testbed, command: (executable, argv), serverShell: serverShell,
            environment: env,
            options: .init(
                duration: duration, loop: loop, pcap: pcap, log: log, stopOnCaptureFailure: pcapFull == .stop),
            signals: signals)
        let status = session.run()
        // The status is COMMAND's, which ExitCode cannot carry; everything is torn down by now
        // (exit flushes stdio).
        exit(status)
    }
}

/// `shell --pcap-full`: what a capture that cannot be written does to the session.
enum PcapFull: String, CaseIterable, Sendable {
    case `continue`, stop
}
