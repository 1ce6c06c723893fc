import Foundation
import BenchCore
import LinkEmulator
import SystemIO
import Runner
import Testbed
import Browsers
import Workloads
import RemoteExecution
import CommandLineKit

struct DoctorCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "doctor",
            abstract: "check privileges, libraries, peers and stale namespaces",
            discussion: """
                Reports what netbench can do on this machine: where its scenario library (pages, profiles, traces, \
                suites) was found, privileges for emulated profiles (network namespaces, TUN devices), the C \
                libraries it was built against, the kernel's congestion controls, the timer floor (how late a thread \
                sleeping until absolute deadlines with timer slack 1 ns wakes: median, p99, p99.9 over 2 s; the \
                emulator cannot be more punctual in its default mode), test peers (aioquic), a headless \
                Chromium for --client chromium, Firefox for --client firefox, and network namespaces left by a \
                killed run.
                """,
            examples: [
                "netbench doctor", "netbench doctor --cleanup", "netbench doctor --quiet || echo 'cannot emulate here'",
            ],
            exitCodes: [
                ExitCodeDoc(.success, "emulated profiles can run here"), Netbench.usageExit,
                ExitCodeDoc(.noPermission, "emulated profiles cannot run here (missing privilege)"),
            ])
    }

    @Flag("--cleanup", help: "delete namespaces left by runs whose process is gone (nb-<pid>-…)") var cleanup: Bool
    @Flag("--json", help: "print the checks as JSON (check, status, detail)") var json: Bool
    @Flag("--quiet", "-q", help: "print only what is missing") var quiet: Bool

    func validate() throws { _ = try OutputMode.from(json: json, quiet: quiet) }

    func run() throws -> ExitCode {
        let cleanup = self.cleanup
        var rows: [[String]] = [["check", "status", "detail"]]
        func add(_ what: String, _ ok: Bool?, _ detail: String) {
            rows.append([what, ok == nil ? "info" : ok! ? "ok" : "MISSING", detail])
        }
        let library = Library.locate()
        add("scenario library", library.source != .missing, library.root + " (" + library.source.description + ")")
        let p = EmulationPrivileges.check()
        add("emulation privileges", p.isSufficient, p.reason)
        add("running as", nil, ProcessControl.isRoot ? "root" : "uid \(getuid())")
        for (lib, pkg) in [
            ("openssl", "libssl-dev"), ("libnghttp2", "libnghttp2-dev"), ("libngtcp2", "libngtcp2-dev"),
            ("libngtcp2_crypto_gnutls", "libngtcp2-crypto-gnutls-dev"), ("libnghttp3", "libnghttp3-dev"),
            ("gnutls", "libgnutls28-dev"),
        ] {
            let v = Self.shell("pkg-config", ["--modversion", lib])
            add(
                lib, v != nil,
                v.map { "version \($0)" } ?? "not found: apt-get install \(pkg) (or scripts/bootstrap.sh)")
        }
        let ccs = ProcessControl.readSmallFile("/proc/sys/net/ipv4/tcp_available_congestion_control")?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        add("TCP congestion controls", ccs?.contains("cubic") ?? false, ccs ?? "unknown")
        let kernel =
            ProcessControl.readSmallFile("/proc/sys/kernel/osrelease")?.trimmingCharacters(in: .whitespacesAndNewlines)
            ?? "?"
        add("kernel", nil, "Linux \(kernel) (epoll_pwait2 needs ≥ 5.11; netem is not used)")
        // The bound on any sleeping emulator's punctuality here (see `netbench calibrate`).
        let floor = TimerFloor.measure(duration: .seconds(2))
        add("timer floor", nil, floor.summary + (floor.advice.map { "; " + $0 } ?? ""))
        // The same lookup runs use ($NETBENCH_CHROMIUM, then Debian's and the usual places).
        if let chromium = RunClient.chromiumPath {
            add("chromium", true, (Self.shell(chromium, ["--version"]) ?? "") + " (\(chromium))")
        } else {
            add("chromium", false, "not installed (only for --client chromium): " + RunClient.chromiumInstallHint)
        }
        if let firefox = RunClient.firefoxPath {
            add("firefox", true, (Self.shell(firefox, ["--version"]) ?? "") + " (\(firefox))")
        } else {
            add("firefox", false, "not installed (only for --client firefox): " + RunClient.firefoxInstallHint)
        }
        let venv = library.root + "/../.build-venv"
        let hasAioquic = FileManager.default.fileExists(atPath: venv + "/aioquic-examples/http3_client.py")
        add(
            "aioquic (tests)", hasAioquic,
            hasAioquic
                ? URL(fileURLWithPath: venv).standardizedFileURL.path
                : "not installed (tests only): scripts/bootstrap.sh --test")
        let stale = ((try? FileManager.default.contentsOfDirectory(atPath: NetworkNamespace.directory)) ?? []).filter {
            $0.hasPrefix("nb-")
        }.sorted()
        if cleanup {
            let removed = EmulatedNetwork.cleanupStale()
            let kept = stale.filter { !removed.contains($0) }
            add(
                "stale namespaces", true,
                removed.isEmpty ? "none removed" : "removed \(removed.joined(separator: ", "))")
            if !kept.isEmpty {
                add("live namespaces", nil, "kept (their process still runs): \(kept.joined(separator: ", "))")
            }
        } else {
            add(
                "namespaces nb-*", stale.isEmpty ? true : nil,
                stale.isEmpty
                    ? "none"
                    : "\(stale.joined(separator: ", ")) — `netbench doctor --cleanup` removes those of dead runs")
        }
        switch try OutputMode.from(json: json, quiet: quiet) {
        case .table: print(Table.render(rows))
        case .json:
            try OutputMode.printJSON(rows.dropFirst().map { ["check": $0[0], "status": $0[1], "detail": $0[2]] })
        case .quiet: for r in rows.dropFirst() where r[1] == "MISSING" { print("\(r[0]): \(r[2])") }
        }
        return p.isSufficient ? .success : .noPermission
    }

    /// Output of a helper tool (trimmed), or nil when it fails.
    static func shell(_ tool: String, _ args: [String]) -> String? {
        let path = tool.hasPrefix("/") ? tool : ChildProcess.locate(tool) ?? "/usr/bin/\(tool)"
        guard FileManager.default.isExecutableFile(atPath: path) else { return nil }
        guard let r = try? ChildProcess.run(path, args), r.status == 0 else { return nil }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
