import BenchCore
import SystemIO

extension Calibration {
    /// The server namespace's end of the bare veth pair (`measureVethGoodput`), 198.18.255.1/30; the
    /// client namespace's end is .2. Outside every client path's /24 (paths use 198.18.1–254.x).
    static let vethServerAddress: UInt32 = 0xC612_FF01
    static let vethClientAddress: UInt32 = 0xC612_FF02

    /// The physical limit of this machine for the same measurement: `measureGoodput`'s senders and
    /// receivers in the same two namespaces, joined for the measurement by a veth pair (MTU 1500, the
    /// kernel's default offloads) instead of the emulator's TUNs and packet loop. The pair is
    /// removed afterwards, also on failure. The emulator need not run meanwhile (better not: its
    /// loop would compete for the same CPUs).
    public static func measureVethGoodput(
        on network: EmulatedNetwork, duration: Nanoseconds = 10_000_000_000, warmup: Nanoseconds = 2_000_000_000,
        congestionControl: String? = nil, flows: Int = 1
    ) throws -> GoodputMeasurement {
        let (server, client) = ("nbveths", "nbvethc")
        let dotted = NetworkAddressing.dotted
        try HostCommand.run(
            "ip",
            [
                "link", "add", server, "netns", network.serverNamespace, "mtu", "1500", "type", "veth", "peer", "name",
                client, "netns", network.clientNamespace, "mtu", "1500",
            ])
        defer { _ = try? HostCommand.run("ip", ["-n", network.serverNamespace, "link", "del", server]) }
        try Topology.runBatch(
            ["addr add \(dotted(vethServerAddress))/30 dev \(server)", "link set dev \(server) up"],
            namespace: network.serverNamespace)
        try Topology.runBatch(
            ["addr add \(dotted(vethClientAddress))/30 dev \(client)", "link set dev \(client) up"],
            namespace: network.clientNamespace)
        return try measureGoodput(
            on: network, receiverAddress: vethClientAddress, senderAddress: vethServerAddress, duration: duration,
            warmup: warmup, congestionControl: congestionControl, flows: flows)
    }
}
