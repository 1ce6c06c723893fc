import Foundation
import BenchCore
import LinkEmulator
import SystemIO
import Runner
import Testbed

/// Emulated profiles need network namespaces and TUN devices. As root that just works; without
/// root netbench re-executes itself once inside a user + network + mount namespace (`unshare`,
/// with a private /run for `ip netns`) when the kernel allows; where neither works it stops with
/// exit 77 and a line saying exactly what is missing.
enum PrivilegeGate {
    static let marker = "NETBENCH_IN_USER_NAMESPACE"

    static func requireEmulation() throws {
        let p = EmulationPrivileges.check()
        if p.isSufficient { return }
        let env = ProcessInfo.processInfo.environment
        if !ProcessControl.isRoot, env[marker] == nil, let unshare = ChildProcess.locate("unshare") {
            let code = reexec(unshare: unshare)
            if code != ExitCode.noPermission.rawValue { exit(code) }
        }
        throw BenchError.privilege(
            p.reason + (ProcessControl.isRoot ? "" : "; user namespaces did not help either")
                + " (loopback runs need no privilege: --profile loopback)")
    }

    /// Every TCP socket of a benchmark run gets the run's congestion control; a process without
    /// CAP_NET_ADMIN may only set those in `net.ipv4.tcp_allowed_congestion_control`. Checked before
    /// the first run, so that the error says which setting and how to get past it (exit 77); not
    /// checked for a plan that opens no TCP socket (h3 only, netbench's own client, no TCP cross
    /// traffic), which runs whatever that sysctl allows.
    static func requireCongestionControl(for request: RunRequest) throws {
        guard request.opensTCPSockets else { return }
        let name = request.server.tcpCongestionControl
        guard let name, let refusal = CongestionControlProbe.refusal(name) else { return }
        let allowed = CongestionControlProbe.allowed()
        let pick = allowed.contains("bbr") ? "bbr" : allowed.last ?? "reno"
        throw BenchError.privilege(
            "TCP congestion control '\(name)' is refused for this user (\(refusal); "
                + "\(CongestionControlProbe.allowedPath) is '\(allowed.joined(separator: " "))'): "
                + "run with --tcp-cc \(pick), run as root, or add \(name) to that sysctl")
    }

    /// Runs this command again under `unshare -r -n -m`; returns its exit status.
    private static func reexec(unshare: String) -> Int32 {
        var env = ProcessInfo.processInfo.environment
        env[marker] = "1"
        // A private tmpfs on /run so `ip netns` can keep its files, then netbench again.
        let args =
            [
                "--user", "--map-root-user", "--net", "--mount", "/bin/sh", "-c",
                "mount -t tmpfs netbench /run 2>/dev/null; exec \"$0\" \"$@\"",
                executablePath(),
            ] + CommandLine.arguments.dropFirst()
        return (try? ChildProcess.runInheritingIO(unshare, args, environment: env)) ?? ExitCode.noPermission.rawValue
    }

    /// This executable (argv[0] may be relative or a bare name found on PATH).
    private static func executablePath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
