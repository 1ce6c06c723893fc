import Foundation
import Synchronization
import BenchCore
import LinkModel
import SystemIO

/// An emulated network: a server namespace and a client namespace joined only through this
/// process's packet loop, one client path (TUN device, address, routing table) per
/// `PathConfiguration`.
///
/// Use: `create` → bind the server's sockets with `inServerNamespace`, the client's with
/// `inClientNamespace` (a socket stays in the namespace it was made in) → `start` → run the load
/// → `stop` (returns the report) → `start`/`stop` again for the next run if wanted → `teardown`.
public final class EmulatedNetwork: @unchecked Sendable {
    public struct Options: Sendable {
        /// TCP congestion control set in both namespaces (and read back).
        public var congestionControl: String
        /// Seeds the loss processes (each direction of each path gets its own stream).
        public var seed: UInt64
        /// The path that holds the client's default route at first; nil: the first path.
        public var activePath: String?
        public var namespacePrefix: String
        /// tcp_rmem/tcp_wmem maximum in the namespaces; net.core.rmem_max/wmem_max are tried too
        /// (a child namespace may not be allowed to raise them: see `kernelSettings`).
        public var socketBufferMax: Int
        /// Transmit queue of each TUN: room for bursts the loop has not read yet.
        public var txQueueLength: Int
        /// Packet buffers (2 KiB each, committed as touched): the most packets in flight at once.
        public var packetPoolCapacity: Int
        /// Packets read per TUN per pass of the loop.
        public var readBatch: Int
        /// Nice value of the packet loop's thread (nil: inherit).
        public var loopNice: Int32?
        /// SCHED_FIFO priority for the packet loop's thread (nil: the normal scheduler). On by
        /// default: the sleeping loop uses a few % of a core at the rates of the usual profiles,
        /// and under the normal scheduler it waited for a CPU for 10% of a run on a busy 2-core
        /// VM (measured here, Cable: release lateness p99 1.4–2.2 ms under SCHED_OTHER nice -10,
        /// 0.09 ms under SCHED_FIFO, the same load). The kernel's RT throttling (95% of each
        /// second by default) keeps a saturated loop from starving everything else; the C
        /// prototype found FIFO worse near saturation (~700 Mbit/s), where `calibrate` shows it.
        public var loopRealtimePriority: Int32?
        /// Precise mode: the loop stops sleeping this long before a release and polls (epoll with
        /// a zero timeout) until it is due, buying punctuality below the timer floor with CPU.
        /// nil: the default mode, which sleeps until each release.
        public var preciseSpinMargin: Nanoseconds?
        /// How long after the last packet the loop keeps its sleeps short (`LoopSleep.warmHop`) so
        /// that its wake-ups stay punctual; 0: it sleeps until each release or I/O (see `LoopSleep`).
        public var warmWindow: Nanoseconds = LoopSleep.warmWindow
        /// How long before each release the loop polls instead of sleeping, within 2% of a core
        /// (`LoopSleep.spinWindow`, `SpinBudget`); 0: releases are left to the timer.
        public var releaseSpinWindow: Nanoseconds = LoopSleep.spinWindow
        /// How long past its release a packet of a streaming link of 500 Mbit/s or more may wait for
        /// those due after it, to leave in one pass and one GSO write with them (`ReleaseWindow`; the
        /// wait counts in the release lateness); 0: every release is a pass of its own. 100 µs by
        /// default (`ReleaseWindow.defaultWindow`): at 1 Gbit/s it cut the loop's CPU from 92–95% of
        /// a core to 61–65% and raised goodput from 82–92% to 95–97% (idle VM, 2026-11-29). A run's
        /// lateness bound takes the lateness of the packets it did not hold (`unheldLatenessP50`).
        public var releaseWindow: Nanoseconds = ReleaseWindow.defaultWindow
        /// TCP negotiates ECN in both namespaces (net.ipv4.tcp_ecn=1). The congestion control must
        /// react to CE for it to matter: cubic and reno do; BBR v1 ignores CE.
        public var tcpECN = false
        /// Open the TUN devices with a virtio-net header and TCP offloads (checksum, TSO4/6, TSO with
        /// ECN): TCP super-packets cross each device whole and the loop segments them before the
        /// links (see `OffloadIO`). Falls back to plain TUNs when the kernel refuses
        /// (`offloadFallback` says why).
        public var tunOffload = true
        /// With `tunOffload`: the TUNs are opened with IFF_NAPI and their NAPI made threaded, so what
        /// the loop writes into a device is received (GRO, IP and TCP input, the ACK-clocked sends
        /// that follow) by a kernel thread of that device, `napi/<device>-<id>`, as a NIC's receive
        /// work runs in its own softirq or thread, instead of inside the loop's write. Those
        /// threads run under SCHED_FIFO at the loop's priority when the loop has one. Falls back to
        /// receiving inside the write when the kernel refuses (`napiFallback` says why). Only for
        /// networks with a link of 500 Mbit/s or more (`needsNAPIThreads`): below, the extra
        /// wake-up per packet costs latency and the loop has CPU to spare. Off by default
        /// (`calibrate --tun-napi`): on an idle 2-vCPU VM, 1 Gbit/s calibrate runs reached 63.7–73.5%
        /// goodput with the threads against 90.4–93.0% without (same session); they helped only
        /// when other processes kept both vCPUs busy.
        public var tunNAPIThreads = false
        /// Stamp each packet's arrival with the kernel's time of sending it into its TUN (a
        /// `PacketTap` per TUN, matched by `ArrivalStamps`) instead of the time the loop read it, so
        /// that the loop's own wake-up and read take nothing from the link's delay. Only below
        /// `EmulatedNetwork.napiThreadRate` on every link (a second copy of every packet's headers
        /// costs a few % of a core per 10,000 packets a second); above it, or when a tap cannot be
        /// opened (`arrivalStampsFallback` says why), arrivals are stamped when read.
        public var kernelArrivalStamps = true

        public init(
            congestionControl: String = "cubic", seed: UInt64 = 1, activePath: String? = nil,
            namespacePrefix: String = "nb-", socketBufferMax: Int = 64 << 20, txQueueLength: Int = 10_000,
            packetPoolCapacity: Int = 65_536, readBatch: Int = 16, loopNice: Int32? = -10,
            loopRealtimePriority: Int32? = 10
        ) {
            self.congestionControl = congestionControl
            self.seed = seed
            self.activePath = activePath
            self.namespacePrefix = namespacePrefix
            self.socketBufferMax = socketBufferMax
            self.txQueueLength = txQueueLength
            self.packetPoolCapacity = packetPoolCapacity
            self.readBatch = readBatch
            self.loopNice = loopNice
            self.loopRealtimePriority = loopRealtimePriority
        }
    }

    /// A client path as built: where a client socket binds to leave by it.
    public struct ClientPath: Sendable {
        public var name: String
        public var index: Int
        /// 198.18.(index+1).2, host byte order.
        public var address: UInt32
        /// The TUN device in the client namespace.
        public var device: String
        public var configuration: PathConfiguration
    }

    public let id: String
    public let serverNamespace: String
    public let clientNamespace: String
    /// The emulator's TUN in the server namespace.
    public let serverDevice: String
    /// 198.18.0.1, host byte order: where the replay server binds.
    public let serverAddress: UInt32
    public let paths: [ClientPath]
    public let options: Options
    /// The kernel settings applied in both namespaces, as read back from the client namespace.
    public let kernelSettings: [String: String]
    /// The TCP congestion control of this network (`Options.congestionControl`). TCP sockets
    /// made for it set TCP_CONGESTION to this (on a listener it is inherited by accepted
    /// sockets), because the namespaces' default may differ: see
    /// `namespaceDefaultCongestionControl`.
    public var congestionControl: String { options.congestionControl }

    /// The namespaces' default congestion control as read back: equal to `congestionControl`
    /// when the host allows a child namespace to choose it (its tcp_allowed_congestion_control),
    /// else the host's default, which unconfigured sockets would get.
    public var namespaceDefaultCongestionControl: String { kernelSettings["net.ipv4.tcp_congestion_control"] ?? "" }

    let serverFD: FileDescriptor
    let clientFDs: [FileDescriptor]
    let lock = NSLock()
    var forwarder: PacketForwarder?
    var activators: [PathActivator] = []
    var dropsAtStart: [EmulatorReport.DeviceDrops] = []
    var stealAtStart: Nanoseconds?
    var captureFailureAtStart: String?
    var linkLogFailureAtStart: String?
    /// Why the current `start()` stamps arrivals when read although `kernelArrivalStamps` asked otherwise.
    var arrivalStampsFallback: String?
    var activeIndex: Int
    var isTornDown = false
    /// The host access of `netbench shell` (`openHostAccess`), removed by `teardown`.
    var hostGateway: HostGateway?
    /// Whether the TUN devices were opened with offloads (`Options.tunOffload` and the kernel agreed).
    public internal(set) var tunOffload = false
    /// Why offloads were asked for and not used (the error of `TUNDevice.openWithOffload`); nil otherwise.
    public internal(set) var offloadFallback: String?
    /// The TUNs' NAPI kernel threads (`Options.tunNAPIThreads`); empty when not used.
    public internal(set) var napiThreads: [Int32] = []
    /// Why threaded NAPI was asked for and not used; nil otherwise.
    public internal(set) var napiFallback: String?

    init(
        id: String, serverNamespace: String, clientNamespace: String, serverDevice: String, paths: [ClientPath],
        options: Options, kernelSettings: [String: String], serverFD: FileDescriptor, clientFDs: [FileDescriptor],
        activeIndex: Int
    ) {
        self.id = id
        self.serverNamespace = serverNamespace
        self.clientNamespace = clientNamespace
        self.serverDevice = serverDevice
        self.serverAddress = NetworkAddressing.serverAddress
        self.paths = paths
        self.options = options
        self.kernelSettings = kernelSettings
        self.serverFD = serverFD
        self.clientFDs = clientFDs
        self.activeIndex = activeIndex
    }

    deinit { teardown() }

    public func path(named name: String) -> ClientPath? { paths.first { $0.name == name } }

    /// The path holding the client's default route.
    public var activePath: String { lock.withLock { paths[activeIndex].name } }

    public var isRunning: Bool { lock.withLock { forwarder != nil } }

    /// Runs `body` on this thread inside the server namespace (bind the replay server here).
    public func inServerNamespace<T>(_ body: () throws -> T) throws -> T {
        try NetworkNamespace.with(serverNamespace, body)
    }

    /// Runs `body` on this thread inside the client namespace (bind client sockets here, to a
    /// path's `address` to use that path, or unbound to follow the default route).
    public func inClientNamespace<T>(_ body: () throws -> T) throws -> T {
        try NetworkNamespace.with(clientNamespace, body)
    }

    /// Removes the namespaces and devices; stops the loop first if it runs. Idempotent; never throws.
    public func teardown() {
        let (f, activated, fds): (PacketForwarder?, [PathActivator], [FileDescriptor]) = lock.withLock {
            guard !isTornDown else { return (nil, [], []) }
            isTornDown = true
            defer { forwarder = nil; activators = [] }
            return (forwarder, activators, [serverFD] + clientFDs)
        }
        for a in activated { a.cancelAndJoin() }
        f?.stopAndJoin()
        closeHostAccess()
        for fd in fds { Socket.close(fd) }  // the TUN devices vanish with their last fd
        for ns in [serverNamespace, clientNamespace] where fds.count > 0 {
            Topology.killProcesses(in: ns)
            try? Topology.deleteNamespace(ns)
        }
        EmulatedNetwork.releaseLock(id)
    }

    private static let locks = Mutex<[String: RunLock]>([:])
    static func holdLock(_ id: String) { if let l = RunLock.acquire(id) { locks.withLock { $0[id] = l } } }
    static func releaseLock(_ id: String) { locks.withLock { $0.removeValue(forKey: id) }?.release() }

    /// Deletes namespaces left behind by netbench runs that died (`netbench doctor --cleanup`):
    /// every namespace named `<prefix><pid>-…` whose process is gone, and, with `includeLive`,
    /// those of running processes too, after killing the processes still inside them (the
    /// programs of a `netbench shell` that was killed); then the root namespace's nftables
    /// tables of such networks (`HostGateway`). Returns the names deleted.
    @discardableResult
    public static func cleanupStale(prefix: String = "nb-", includeLive: Bool = false) -> [String] {
        var deleted: [String] = []
        for name in Topology.namespaceNames() where name.hasPrefix(prefix) {
            // Names end in `<pid>-<random hex>-srv|cli`, whatever the prefix.
            let parts = name.split(separator: "-")
            let pid = parts.count >= 3 ? Int32(parts[parts.count - 3]) : nil
            let id = parts.count >= 3 ? parts[(parts.count - 3)...(parts.count - 2)].joined(separator: "-") : ""
            if !includeLive {
                // The lock decides where there is one; without (older runs), whether the PID lives.
                if let alive = RunLock.ownerAlive(id) {
                    if alive { continue }
                } else if let pid, ProcessControl.signal(pid: pid, 0) {
                    continue
                }
            }
            Topology.killProcesses(in: name)
            if (try? Topology.deleteNamespace(name)) != nil {
                deleted.append(name)
                if name.hasSuffix("-cli") { RunLock.removeStale(id) }
            }
        }
        return deleted + cleanupStaleHostAccess(includeLive: includeLive)
    }
}
