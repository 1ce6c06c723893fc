import Foundation
import BenchCore
import LinkEmulator
import SystemIO
import Runner

struct DoctorCommand: Command {
    static let name = "doctor"
    static let summary = "check privileges, libraries, peers and stale namespaces"
    static let help = """
    usage: netbench doctor [--cleanup]

    Reports what netbench can do on this machine: privileges for emulated profiles (network
    namespaces, TUN devices), the C libraries it was built against, the kernel's congestion
    controls, test peers (aioquic), a headless Chromium for --client chromium, and network
    namespaces left by a killed run. Exits 77 when emulated profiles cannot run here.

    options:
      --cleanup   delete namespaces left by runs whose process is gone (nb-<pid>-…)
    example:
      netbench doctor --cleanup
    """

    static func run(_ args: inout Arguments) throws -> ExitCode {
        let cleanup = args.flag("--cleanup")
        _ = try args.positionals()
        var rows: [[String]] = [["check", "status", "detail"]]
        func add(_ what: String, _ ok: Bool?, _ detail: String) {
            rows.append([what, ok == nil ? "info" : ok! ? "ok" : "MISSING", detail])
        }
        let p = EmulationPrivileges.check()
        add("emulation privileges", p.isSufficient, p.reason)
        add("running as", nil, ProcessControl.isRoot ? "root" : "uid \(getuid())")
        for (lib, pkg) in [("openssl", "libssl-dev"), ("libnghttp2", "libnghttp2-dev"), ("libngtcp2", "libngtcp2-dev"),
                           ("libngtcp2_crypto_gnutls", "libngtcp2-crypto-gnutls-dev"), ("libnghttp3", "libnghttp3-dev"), ("gnutls", "libgnutls28-dev")] {
            let v = shell("pkg-config", ["--modversion", lib])
            add(lib, v != nil, v.map { "version \($0)" } ?? "not found: apt-get install \(pkg) (or scripts/bootstrap.sh)")
        }
        let ccs = ProcessControl.readSmallFile("/proc/sys/net/ipv4/tcp_available_congestion_control")?.trimmingCharacters(in: .whitespacesAndNewlines)
        add("TCP congestion controls", ccs?.contains("cubic") ?? false, ccs ?? "unknown")
        let kernel = ProcessControl.readSmallFile("/proc/sys/kernel/osrelease")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        add("kernel", nil, "Linux \(kernel) (epoll_pwait2 needs ≥ 5.11; netem is not used)")
        // The same lookup runs use ($NETBENCH_CHROMIUM, then Debian's and the usual places).
        if let chromium = RunClient.chromiumPath {
            add("chromium", true, (shell(chromium, ["--version"]) ?? "") + " (\(chromium))")
        } else {
            add("chromium", false, "not installed (only for --client chromium): " + RunClient.chromiumInstallHint)
        }
        let venv = Library.locate().root + "/../.build-venv"
        let hasAioquic = FileManager.default.fileExists(atPath: venv + "/aioquic-examples/http3_client.py")
        add("aioquic (tests)", hasAioquic, hasAioquic ? URL(fileURLWithPath: venv).standardizedFileURL.path : "not installed (tests only): scripts/bootstrap.sh --test")
        let stale = ((try? FileManager.default.contentsOfDirectory(atPath: NetworkNamespace.directory)) ?? []).filter { $0.hasPrefix("nb-") }.sorted()
        if cleanup {
            let removed = EmulatedNetwork.cleanupStale()
            let kept = stale.filter { !removed.contains($0) }
            add("stale namespaces", true, removed.isEmpty ? "none removed" : "removed \(removed.joined(separator: ", "))")
            if !kept.isEmpty { add("live namespaces", nil, "kept (their process still runs): \(kept.joined(separator: ", "))") }
        } else {
            add("namespaces nb-*", stale.isEmpty ? true : nil, stale.isEmpty ? "none" : "\(stale.joined(separator: ", ")) — `netbench doctor --cleanup` removes those of dead runs")
        }
        print(Table.render(rows))
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
