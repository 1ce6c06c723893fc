import Foundation
import BenchCore
import SystemIO

/// How the client namespace reaches services on the host's own loopback (`netbench shell`'s
/// NETBENCH_HOST) through the emulator: a veth pair joins the server namespace to the root
/// namespace on a /30 of 198.19.0.0/16 of this network's own; the server namespace forwards and
/// masquerades what the client sends there (so the root namespace needs no route to the client),
/// and the root namespace rewrites its destination to 127.0.0.1 (nftables DNAT, with
/// `route_localnet` on its end of the pair, which lets 127.0.0.0/8 cross an interface). Replies
/// go back the same way, so both directions cross the link model. Everything of it in the root
/// namespace carries this network's id and goes with `teardown`, or with `cleanupStale` after a
/// kill -9.
public struct HostGateway: Sendable, Equatable {
    /// NETBENCH_HOST: the root namespace's end of the pair, host byte order.
    public var address: UInt32
    /// The server namespace's end (what the host sees as the peer), host byte order.
    public var serverSideAddress: UInt32
    /// The root namespace's end of the pair.
    public var rootDevice: String
    /// The root namespace's nftables table (`ip` family).
    public var table: String

    /// The gateway of network `id` (`<pid>-<hex>`): the /30 is taken from the id's random part.
    static func plan(id: String) -> HostGateway {
        let hex = id.split(separator: "-").last.map(String.init) ?? "0"
        let random = UInt32(hex, radix: 16) ?? 0
        let base: UInt32 = 0xC613_0000 | (random & 0xFFFC)  // 198.19.x.y/30
        return HostGateway(
            address: base + 2, serverSideAddress: base + 1, rootDevice: "nbh" + String(hex.suffix(8)),
            table: tablePrefix + id.replacingOccurrences(of: "-", with: "_"))
    }

    static let serverDevice = "nbhost"
    static let tablePrefix = "nb_"

    /// The network id (`<pid>-<hex>`) a root-namespace table of netbench's belongs to, or nil.
    static func networkID(ofTable name: String) -> String? {
        guard name.hasPrefix(tablePrefix) else { return nil }
        let parts = name.dropFirst(tablePrefix.count).split(separator: "_")
        guard parts.count == 2, Int32(parts[0]) != nil, UInt32(parts[1], radix: 16) != nil else { return nil }
        return parts.joined(separator: "-")
    }

    /// nftables script of the server namespace: masquerade what leaves for the host.
    var serverRules: String {
        """
        table ip netbench_host {
          chain postrouting {
            type nat hook postrouting priority srcnat
            oifname "\(Self.serverDevice)" masquerade
          }
        }

        """
    }

    /// nftables script of the root namespace: what arrives from the pair for `address` goes to 127.0.0.1.
    var rootRules: String {
        """
        table ip \(table) {
          chain prerouting {
            type nat hook prerouting priority dstnat
            iifname "\(rootDevice)" ip daddr \(NetworkAddressing.dotted(address)) dnat to 127.0.0.1
          }
        }

        """
    }
}

extension EmulatedNetwork {
    /// Joins the server namespace to the root namespace (see `HostGateway`) and returns the
    /// address the client reaches the host's loopback at. Needs `nft` (Debian: nftables). On
    /// failure whatever was made is removed again.
    public func openHostAccess() throws -> HostGateway {
        guard HostCommand.locate("nft") != nil else {
            throw BenchError.run("reaching the host's services needs nft (Debian: apt-get install nftables)")
        }
        let g = HostGateway.plan(id: id)
        lock.withLock { hostGateway = g }
        let root = NetworkAddressing.dotted(g.address), server = NetworkAddressing.dotted(g.serverSideAddress)
        do {
            try HostCommand.run(
                "ip", ["link", "add", g.rootDevice, "type", "veth", "peer", "name", HostGateway.serverDevice,
                       "netns", serverNamespace])
            try HostCommand.run(
                "ip", ["-batch", "-"], input: "addr add \(root)/30 dev \(g.rootDevice)\nlink set \(g.rootDevice) up\n")
            try HostCommand.run("sysctl", ["-q", "-w", "net.ipv4.conf.\(g.rootDevice).route_localnet=1"])
            try Topology.runBatch(
                ["addr add \(server)/30 dev \(HostGateway.serverDevice)", "link set \(HostGateway.serverDevice) up"],
                namespace: serverNamespace)
            try HostCommand.run("ip", ["netns", "exec", serverNamespace, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1"])
            try HostCommand.run("ip", ["netns", "exec", serverNamespace, "nft", "-f", "-"], input: g.serverRules)
            try HostCommand.run("nft", ["-f", "-"], input: g.rootRules)
        } catch {
            closeHostAccess()
            throw BenchError.run("joining the emulated network to the host: \(error)")
        }
        return g
    }

    /// Removes the root namespace's part of the host access (the table and the pair, whose other
    /// end is in the server namespace). Idempotent; never throws.
    func closeHostAccess() {
        guard let g = lock.withLock({ () -> HostGateway? in defer { hostGateway = nil }; return hostGateway }) else {
            return
        }
        _ = try? HostCommand.run("nft", ["delete", "table", "ip", g.table])
        _ = try? HostCommand.run("ip", ["link", "delete", g.rootDevice])
    }

    /// Deletes the root namespace's nftables tables of networks whose owner died (or all, with
    /// `includeLive`); the veth pairs went with their server namespaces. Returns the names.
    static func cleanupStaleHostAccess(includeLive: Bool) -> [String] {
        guard HostCommand.locate("nft") != nil, let out = try? HostCommand.run("nft", ["list", "tables", "ip"]) else {
            return []
        }
        var deleted: [String] = []
        for line in out.split(separator: "\n") {
            let name = String(line.split(separator: " ").last ?? "")
            guard let id = HostGateway.networkID(ofTable: name) else { continue }
            let pid = Int32(id.prefix { $0 != "-" }) ?? 0
            if !includeLive, RunLock.ownerAlive(id) ?? ProcessControl.signal(pid: pid, 0) { continue }
            if (try? HostCommand.run("nft", ["delete", "table", "ip", name])) != nil { deleted.append(name) }
        }
        return deleted
    }
}
