import Foundation
import BenchCore
import LinkModel
import SystemIO

extension EmulatedNetwork {
    /// Builds the namespaces, kernel settings, TUN devices, addresses and routes. On any failure
    /// whatever was created is removed again before the error is thrown.
    ///
    /// Throws `BenchError` with exit class `.noPermission` when the process lacks the privileges,
    /// `.usage` for a bad configuration, `.runFailed` when the system refuses.
    public static func create(paths configurations: [PathConfiguration], options: Options = Options()) throws
        -> EmulatedNetwork
    {
        let privileges = EmulationPrivileges.check()
        guard privileges.isSufficient else { throw BenchError.privilege(privileges.reason) }
        try validate(configurations, options)
        let napiWanted = options.tunNAPIThreads && Self.needsNAPIThreads(configurations)
        let activeIndex = options.activePath.flatMap { name in configurations.firstIndex { $0.name == name } } ?? 0

        let id = "\(getpid())-\(String(UInt32.random(in: 0...0xFFFF_FFFF), radix: 16))"
        let serverNamespace = "\(options.namespacePrefix)\(id)-srv"
        let clientNamespace = "\(options.namespacePrefix)\(id)-cli"
        let serverDevice = "nbsrv"
        // The marker this process holds while the namespaces live (a later run removes them once
        // the lock is free, whatever became of the PID).
        EmulatedNetwork.holdLock(id)
        let devices = configurations.indices.map { Topology.deviceName(pathIndex: $0, name: configurations[$0].name) }
        var created: [String] = []
        var fds: [FileDescriptor] = []
        do {
            for ns in [serverNamespace, clientNamespace] {
                try HostCommand.run("ip", ["netns", "add", ns])
                created.append(ns)
            }
            let settings = Topology.sysctls(socketBufferMax: options.socketBufferMax, tcpECN: options.tcpECN)
            let optional = Topology.optionalSysctls(
                congestionControl: options.congestionControl, socketBufferMax: options.socketBufferMax)
            _ = try Topology.applySysctls(settings, optional: optional, namespace: serverNamespace)
            let readBack = try Topology.applySysctls(settings, optional: optional, namespace: clientNamespace)
            let (server, offloadFallback, napiRefused) = try openServerTUN(
                serverDevice, serverNamespace, options.tunOffload, napi: napiWanted)
            fds.append(server)
            let offload = options.tunOffload && offloadFallback == nil
            let napi = offload && napiWanted && napiRefused == nil
            for device in devices {
                fds.append(
                    try NetworkNamespace.with(clientNamespace) {
                        offload
                            ? try TUNDevice.openWithOffload(name: device, napi: napi) : try TUNDevice.open(name: device)
                    })
            }
            try Topology.runBatch(
                Topology.serverCommands(
                    device: serverDevice, pathCount: devices.count,
                    txQueueLength: options.txQueueLength), namespace: serverNamespace)
            try Topology.runBatch(
                Topology.clientCommands(
                    devices: devices, activePath: activeIndex,
                    txQueueLength: options.txQueueLength), namespace: clientNamespace)
            let paths = configurations.enumerated().map { i, c in
                ClientPath(
                    name: c.name, index: i, address: NetworkAddressing.clientAddress(pathIndex: i), device: devices[i],
                    configuration: c)
            }
            let network = EmulatedNetwork(
                id: id, serverNamespace: serverNamespace, clientNamespace: clientNamespace,
                serverDevice: serverDevice, paths: paths, options: options, kernelSettings: readBack,
                serverFD: fds[0], clientFDs: Array(fds.dropFirst()), activeIndex: activeIndex)
            network.tunOffload = offload
            network.offloadFallback = offloadFallback
            network.napiFallback =
                napiRefused
                ?? (options.tunOffload && options.tunNAPIThreads && !napiWanted
                    ? "not needed: no link reaches \(Int(napiThreadRate / 1e6)) Mbit/s" : nil)
            if napi {
                do {
                    network.napiThreads = try threadNAPI(
                        [(serverNamespace, serverDevice)] + devices.map { (clientNamespace, $0) },
                        priority: options.loopRealtimePriority)
                } catch {
                    network.napiFallback = "\(error)"
                }
            }
            return network
        } catch {
            for fd in fds { Socket.close(fd) }
            for ns in created { try? Topology.deleteNamespace(ns) }
            EmulatedNetwork.releaseLock(id)
            if let e = error as? BenchError { throw e }
            throw BenchError.run("creating the emulated network: \(error)")
        }
    }

    /// The server namespace's TUN, with offloads when asked for and the kernel agrees; else plain,
    /// with the reason offloads were refused.
    /// With `napi`, IFF_NAPI is asked for first; the third value says why it was refused.
    private static func openServerTUN(_ device: String, _ namespace: String, _ offload: Bool, napi: Bool) throws
        -> (FileDescriptor, String?, String?)
    {
        try NetworkNamespace.with(namespace) { () throws -> (FileDescriptor, String?, String?) in
            guard offload else { return (try TUNDevice.open(name: device), nil, nil) }
            var napiRefused: String?
            if napi {
                do { return (try TUNDevice.openWithOffload(name: device, napi: true), nil, nil) } catch {
                    napiRefused = "\(error)"
                }
            }
            do { return (try TUNDevice.openWithOffload(name: device), nil, napiRefused) } catch {
                return (try TUNDevice.open(name: device), "\(error)", napiRefused)
            }
        }
    }

    /// Makes each device's NAPI threaded (`/sys/class/net/<device>/threaded`, written from inside
    /// its namespace, whose /sys `ip netns exec` mounts) and returns the kernel threads that
    /// appeared for them, `napi/<device>-<id>`; with `priority`, puts them under SCHED_FIFO one below
    /// it, so that the loop preempts them and they preempt the endpoints (best effort).
    static func threadNAPI(_ devices: [(namespace: String, device: String)], priority: Int32?) throws -> [Int32] {
        let before = Set(ProcessControl.threads(namedWithPrefix: "napi/"))
        for (namespace, device) in devices {
            try HostCommand.run(
                "ip", ["netns", "exec", namespace, "sh", "-c", "echo 1 > /sys/class/net/\(device)/threaded"])
        }
        let names = Set(devices.map { "napi/\($0.device)-" })
        let threads = ProcessControl.threads(namedWithPrefix: "napi/").filter { pid in
            !before.contains(pid)
                && names.contains { ProcessControl.readSmallFile("/proc/\(pid)/comm")?.hasPrefix($0) ?? false }
        }
        // Another emulator threading its devices at the same moment would add threads of the same names.
        guard threads.count == devices.count else {
            throw BenchError.run(
                "threaded NAPI: \(threads.count) kernel threads appeared for \(devices.count) devices (the devices "
                    + "are threaded; their CPU is not measured)")
        }
        if let priority { for t in threads { try? ProcessControl.setRealtime(pid: t, priority: max(1, priority - 1)) } }
        return threads
    }

    static func validate(_ paths: [PathConfiguration], _ options: Options) throws {
        guard !paths.isEmpty else { throw BenchError.usage("an emulated network needs at least one client path") }
        guard paths.count <= NetworkAddressing.maximumPaths else {
            throw BenchError.usage("at most \(NetworkAddressing.maximumPaths) client paths (got \(paths.count))")
        }
        var seen = Set<String>()
        for p in paths {
            guard !p.name.isEmpty, seen.insert(p.name).inserted else {
                throw BenchError.usage("client path names must be unique and non-empty (\"\(p.name)\")")
            }
            for (direction, link) in [("uplink", p.uplink), ("downlink", p.downlink)] {
                guard link.delay >= 0 else { throw BenchError.usage("path \(p.name) \(direction): negative delay") }
                if case .constant(let bps) = link.rate, !(bps > 0) {
                    throw BenchError.usage("path \(p.name) \(direction): rate must be > 0 bit/s (got \(bps))")
                }
            }
        }
        if let active = options.activePath, !paths.contains(where: { $0.name == active }) {
            throw BenchError.usage("active path \"\(active)\" is not one of \(paths.map(\.name))")
        }
        let available = Topology.availableCongestionControls()
        guard available.isEmpty || available.contains(options.congestionControl) else {
            throw BenchError.usage(
                "congestion control \"\(options.congestionControl)\" is not available (kernel offers "
                    + "\(available.joined(separator: ", ")))"
            )
        }
        guard options.readBatch >= 1, options.packetPoolCapacity >= 64 else {
            throw BenchError.usage("readBatch must be ≥ 1 and packetPoolCapacity ≥ 64")
        }
    }

    /// Whether the receive work is worth its own kernel threads: only when a link may run at
    /// `napiThreadRate` or faster (or has no rate limit). A NAPI thread is one more wake-up for
    /// every packet written: measured here, it added 0.09 ms to a ping's round trip through a
    /// 10 Mbit/s, 25 ms profile (RTT mean 50.40 against 50.31 ms, same session), while at
    /// 1 Gbit/s it takes the receiving TCP's work (16% of the loop's samples) out of the loop.
    static func needsNAPIThreads(_ paths: [PathConfiguration]) -> Bool {
        paths.contains { p in
            [p.uplink.rate, p.downlink.rate].contains { rate in
                switch rate {
                case .unlimited: return true
                case .constant(let bps): return bps >= napiThreadRate
                case .trace(let t): return t.meanBitsPerSecond >= napiThreadRate
                }
            }
        }
    }

    /// The link rate from which the TUNs get threaded NAPI (`needsNAPIThreads`).
    static let napiThreadRate: Double = 500e6
}
