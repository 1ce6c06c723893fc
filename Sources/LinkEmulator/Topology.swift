import Foundation
import LinkModel
import SystemIO

/// The commands that build and remove an emulated network's namespaces, addresses, routes and
/// kernel settings. Text in, `ip`/`sysctl` runs out; nothing here touches packets.
enum Topology {
    /// Kernel settings applied in both namespaces before any device exists (so `default.*` covers
    /// the TUNs), then read back and recorded.
    /// `tcpECN`: TCP asks for ECN on the connections it opens (net.ipv4.tcp_ecn=1; the kernel's
    /// default 2 only accepts it when the peer asks, so both namespaces get 1).
    static func sysctls(socketBufferMax: Int, tcpECN: Bool = false) -> [(String, String)] {
        (tcpECN ? [("net.ipv4.tcp_ecn", "1")] : []) + [
            // IPv6 off: router solicitations would otherwise leak into the emulator.
            ("net.ipv6.conf.all.disable_ipv6", "1"),
            ("net.ipv6.conf.default.disable_ipv6", "1"),
            // Loose/no reverse-path filtering: replies arrive on whichever path the packet used.
            ("net.ipv4.conf.all.rp_filter", "0"),
            ("net.ipv4.conf.default.rp_filter", "0"),
            // Room for high bandwidth-delay products (500 Mbit/s × 200 ms = 12.5 MB in flight).
            ("net.ipv4.tcp_rmem", "4096 131072 \(socketBufferMax)"),
            ("net.ipv4.tcp_wmem", "4096 16384 \(socketBufferMax)"),
            // Each connection starts from scratch, not from metrics cached by the previous run.
            ("net.ipv4.tcp_no_metrics_save", "1"),
        ]
    }

    /// Settings tried but allowed to fail: kernels since 6.x keep net.core.{r,w}mem_max per
    /// namespace but refuse writes from a child namespace (EINVAL), so the namespace keeps the
    /// host's value (recorded). They only cap explicit SO_RCVBUF/SO_SNDBUF (UDP/QUIC sockets); TCP
    /// autotuning follows tcp_rmem/tcp_wmem above.
    ///
    /// The namespace's default congestion control is set explicitly (the host default may be
    /// BBR; cubic is what most users expect), but a child namespace may only pick an algorithm
    /// in the host's tcp_allowed_congestion_control (EPERM otherwise): then netbench's sockets
    /// set TCP_CONGESTION themselves, which CAP_NET_ADMIN allows for any available algorithm.
    static func optionalSysctls(congestionControl: String, socketBufferMax: Int) -> [(String, String)] {
        [
            ("net.ipv4.tcp_congestion_control", congestionControl),
            ("net.core.rmem_max", "\(socketBufferMax)"), ("net.core.wmem_max", "\(socketBufferMax)"),
        ]
    }

    /// Applies `settings` (all must take) and `optional` (each may fail) in `namespace`, and
    /// returns the values of both read back.
    static func applySysctls(_ settings: [(String, String)], optional: [(String, String)], namespace: String) throws
        -> [String: String]
    {
        try HostCommand.run(
            "ip", ["netns", "exec", namespace, "sysctl", "-q", "-w"] + settings.map { "\($0.0)=\($0.1)" })
        for (key, value) in optional {
            _ = try? HostCommand.run("ip", ["netns", "exec", namespace, "sysctl", "-q", "-w", "\(key)=\(value)"])
        }
        let all = settings + optional
        let out = try HostCommand.run("ip", ["netns", "exec", namespace, "sysctl", "-n"] + all.map(\.0))
        let values = out.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
        }
        var result: [String: String] = [:]
        for (i, s) in all.enumerated() where i < values.count { result[s.0] = values[i] }
        return result
    }

    static func availableCongestionControls() -> [String] {
        (try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_available_congestion_control", encoding: .utf8))?
            .split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init) ?? []
    }

    /// `ip -batch` lines for the server namespace: its TUN holds 198.18.0.1 and routes every
    /// client path's /24 to the emulator.
    static func serverCommands(device: String, pathCount: Int, txQueueLength: Int) -> [String] {
        var lines = [
            "link set lo up",
            "link set dev \(device) mtu 1500 txqueuelen \(txQueueLength) up",
            "addr add \(NetworkAddressing.dotted(NetworkAddressing.serverAddress))/32 dev \(device)",
        ]
        for i in 0..<pathCount {
            let net = NetworkAddressing.clientAddress(pathIndex: i) & 0xFFFF_FF00
            lines.append(
                "route add \(NetworkAddressing.dotted(net))/24 dev \(device) src "
                    + "\(NetworkAddressing.dotted(NetworkAddressing.serverAddress))"
            )
        }
        return lines
    }

    /// `ip -batch` lines for the client namespace: one TUN and address per path, one routing table
    /// per path selected by source address (a socket bound to a path's address leaves by that
    /// path), and a default route via the active path for unbound sockets.
    static func clientCommands(devices: [String], activePath: Int, txQueueLength: Int) -> [String] {
        var lines = ["link set lo up"]
        for (i, device) in devices.enumerated() {
            let address = NetworkAddressing.dotted(NetworkAddressing.clientAddress(pathIndex: i))
            let table = NetworkAddressing.routingTable(pathIndex: i)
            lines += [
                "link set dev \(device) mtu 1500 txqueuelen \(txQueueLength) up",
                "addr add \(address)/24 dev \(device)",
                "route add default dev \(device) src \(address) table \(table)",
                "rule add from \(address) lookup \(table) priority \(NetworkAddressing.rulePriority(pathIndex: i))",
            ]
        }
        lines.append(defaultRoute(device: devices[activePath], pathIndex: activePath))
        return lines
    }

    static func defaultRoute(device: String, pathIndex i: Int) -> String {
        "route replace default dev \(device) src "
            + "\(NetworkAddressing.dotted(NetworkAddressing.clientAddress(pathIndex: i)))"
    }

    static func runBatch(_ lines: [String], namespace: String) throws {
        try HostCommand.run("ip", ["-n", namespace, "-batch", "-"], input: lines.joined(separator: "\n") + "\n")
    }

    /// Interface names live inside netbench's own namespace, so they only need to be unique per
    /// network: `nb<index><name>`, at most 15 bytes (IFNAMSIZ − 1), letters, digits, - and _.
    static func deviceName(pathIndex i: Int, name: String) -> String {
        let clean = name.unicodeScalars.filter {
            ($0.isASCII && (CharacterSet.alphanumerics.contains($0))) || $0 == "-" || $0 == "_"
        }
        return String("nb\(i)" + String(String.UnicodeScalarView(clean)).prefix(10))
    }

    static func namespaceNames() -> [String] {
        guard let out = try? HostCommand.run("ip", ["netns", "list"]) else { return [] }
        // Lines look like `name` or `name (id: 3)`.
        return out.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// SIGKILL to every process inside namespace `name` (`ip netns pids`): a namespace with
    /// processes in it outlives `ip netns delete`, and so would a veth pair inside it.
    static func killProcesses(in name: String) {
        guard let out = try? HostCommand.run("ip", ["netns", "pids", name]) else { return }
        for pid in out.split(separator: "\n").compactMap({ Int32($0) }) where pid != getpid() {
            ProcessControl.signal(pid: pid, SIGKILL)
        }
    }

    static func deleteNamespace(_ name: String) throws {
        try HostCommand.run("ip", ["netns", "delete", name])
    }
}
