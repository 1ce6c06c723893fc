import Foundation
import BenchCore
import LinkModel
import SystemIO

extension EmulatedNetwork {
    /// Starts the packet loop with fresh links (empty queues, traces and outages counted from now,
    /// zeroed counters). `schedule` offsets count from this call: `.down`/`.up` are applied by the
    /// loop at the scheduled instant, `.activate` (a route change, which needs `ip`) by a helper
    /// thread as close to it as it can. With `capture`, the packets entering and leaving each
    /// link are written to pcap files (see `PacketCapture`); a capture whose files cannot be
    /// created is reported by `stop` (`captureFailure`), and the run goes on without it. With
    /// `linkLog`, each link direction writes a Mahimahi-format log (`MahimahiLinkLog`),
    /// `<directory>/<label>-<path>-<up|down>.log`; a failure is reported by `stop` (`linkLogFailure`).
    public func start(schedule: [PathEvent] = [], capture: CaptureRequest? = nil, linkLog: CaptureRequest? = nil)
        throws
    {
        for e in schedule where path(named: e.path) == nil {
            throw BenchError.usage("path event for unknown path \"\(e.path)\" (paths: \(paths.map(\.name)))")
        }
        try lock.withLock {
            guard !isTornDown else { throw BenchError.run("the emulated network \(id) was torn down") }
            guard forwarder == nil else { throw BenchError.run("the emulator of \(id) is already running") }
        }
        let before = try readDrops()
        let f = try PacketForwarder(
            serverFD: serverFD, clientFDs: clientFDs, paths: paths.map(\.configuration),
            seed: options.seed, start: Instant.now(), schedule: schedule,
            poolCapacity: options.packetPoolCapacity, batch: options.readBatch,
            nice: options.loopNice, realtimePriority: options.loopRealtimePriority,
            spinMargin: options.preciseSpinMargin, warmWindow: options.warmWindow,
            spinWindow: options.releaseSpinWindow, releaseWindow: options.releaseWindow)
        if tunOffload { f.offloadIO = OffloadIO(devices: [serverFD] + clientFDs, napiThreads: napiThreads) }
        let (taps, tapFallback) = openTaps()
        f.useTaps(taps)
        var captureFailure: String?
        if let capture {
            do {
                let c = try PacketCapture(capture, pathNames: paths.map(\.name))
                c.onFailure = capture.onFailure
                f.capture = c
            } catch {
                captureFailure = "packet capture not started: \(error)"
            }
        }
        var linkLogFailure: String?
        if let linkLog {
            do { try f.monitorWithLogs(linkLog) } catch { linkLogFailure = "link log not started: \(error)" }
        }
        let steal = StealTime.total()
        let activations = schedule.filter { $0.action == .activate }
        let a = activations.isEmpty ? nil : PathActivator(events: activations, start: f.start, network: self)
        lock.withLock {
            dropsAtStart = before
            stealAtStart = steal
            captureFailureAtStart = captureFailure
            arrivalStampsFallback = tapFallback
            linkLogFailureAtStart = linkLogFailure
            forwarder = f
            activators = a.map { [$0] } ?? []
        }
        f.startThread()
        a?.startThread()
    }

    /// A packet tap on every TUN (the server's first, as the loop numbers them) when
    /// `kernelArrivalStamps` asks for them; else none, and why not when they were asked for. Where a
    /// link reaches `napiThreadRate` (or has no rate limit), only when the TUNs carry super-packets
    /// and no NAPI thread receives: then the tap copies one skb per super-packet (measured at 1 Gbit/s,
    /// 2026-11-29: the same loop CPU with and without, 61–64% of a core with a 100 µs window), while
    /// one copy per segment would cost a few % of a core per 10,000 packets a second, and a NAPI
    /// thread's wake-up is already part of each arrival. A tap that cannot be opened closes the
    /// others: stamps come from every TUN or from none.
    func openTaps() -> ([FileDescriptor?], String?) {
        let none = [FileDescriptor?](repeating: nil, count: 1 + clientFDs.count)
        guard options.kernelArrivalStamps else { return (none, nil) }
        if Self.needsNAPIThreads(paths.map(\.configuration)), !tunOffload || !napiThreads.isEmpty {
            let why = tunOffload ? "the TUNs' NAPI threads receive" : "the TUNs carry no super-packets"
            return (
                none,
                "not used: a link reaches \(Int(Self.napiThreadRate / 1e6)) Mbit/s or has no rate limit and \(why)"
            )
        }
        var taps: [FileDescriptor] = []
        do {
            taps.append(try NetworkNamespace.with(serverNamespace) { try PacketTap.open(device: serverDevice) })
            for p in paths {
                taps.append(try NetworkNamespace.with(clientNamespace) { try PacketTap.open(device: p.device) })
            }
            return (taps, nil)
        } catch {
            for t in taps { Socket.close(t) }
            return (none, "\(error)")
        }
    }

    /// Stops the loop (joining its thread) and reports what it did since `start`. With `drain`,
    /// first waits for the TCP connections in its namespaces to finish closing and for the links to
    /// empty and fall quiet (see `Drain`); packets still in flight at the stop are discarded.
    public func stop(drain: Drain? = nil) throws -> EmulatorReport {
        let (f, activated, before, stealBefore):
            (PacketForwarder?, [PathActivator], [EmulatorReport.DeviceDrops], Nanoseconds?) = lock.withLock {
                defer { forwarder = nil; activators = [] }
                return (forwarder, activators, dropsAtStart, stealAtStart)
            }
        guard let f else { throw BenchError.run("the emulator of \(id) is not running") }
        for a in activated { a.cancelAndJoin() }
        // Closing TCP connections first (a lost FIN is resent after an RTO, well after the links
        // fell quiet), then the links until empty and quiet, within the one timeout.
        let drained = drain.map { d in
            let deadline = Instant.now() + d.timeout
            let closed = awaitClosingConnections(until: deadline)
            return f.awaitDrain(quiet: d.quiet, timeout: max(d.quiet, deadline.since(Instant.now()))) && closed
        }
        f.stopAndJoin()
        for case let tap? in f.taps { Socket.close(tap) }
        f.capture?.finish()
        let end = Instant.now()
        let queueing = f.finishMonitors(at: end)
        let duration = end.since(f.start)
        let stealAfter = StealTime.total()
        var devices = before
        let after = try readDrops()
        for i in devices.indices {
            if let d = after.first(where: { $0.device == devices[i].device }) { devices[i].after = d.after }
        }
        let stats = paths.indices.map { i in
            EmulatorReport.PathStatistics(
                name: paths[i].name, uplink: f.uplinks[i].counters, downlink: f.downlinks[i].counters,
                uplinkQueueLimit: f.uplinks[i].queueLimit, downlinkQueueLimit: f.downlinks[i].queueLimit,
                uplinkDelay: f.oneWayDelays[2 * i], downlinkDelay: f.oneWayDelays[2 * i + 1],
                uplinkQueueing: queueing[i].up, downlinkQueueing: queueing[i].down)
        }
        let events = (f.appliedEvents + activated.flatMap(\.applied)).sorted { $0.appliedAt < $1.appliedAt }
        var report = EmulatorReport(
            duration: duration, paths: stats, releasedPackets: f.counters.released,
            latenessP50: f.histogram.percentile(0.5), latenessP99: f.histogram.percentile(0.99),
            latenessMax: f.histogram.maximum, devices: devices,
            unroutablePackets: f.counters.unroutable, nonIPv4Packets: f.counters.nonIPv4,
            poolExhaustedDrops: f.counters.poolExhausted, readErrors: f.counters.readErrors,
            writeErrors: f.counters.writeErrors, pathEvents: events,
            loopCPUTime: f.schedulerTimes?.cpu, loopRunQueueWait: f.schedulerTimes?.runQueueWait,
            stealTime: stealBefore.flatMap { b in stealAfter.map { max(0, $0 - b) } },
            spinMargin: f.spinMargin, loopFailure: f.failure.map { "\($0)" })
        report.wakeLatenessP99 = f.wakeHistogram.percentile(0.99)
        report.releaseSpinWindow = f.spinWindow
        report.releaseWindow = f.appliedReleaseWindow
        report.unheldLatenessP50 = f.unheldHistogram.percentile(0.5)
        report.unheldLatenessP99 = f.unheldHistogram.percentile(0.99)
        if f.promptHistogram.count > 0 {
            report.promptLatenessP50 = f.promptHistogram.percentile(0.5)
            report.promptLatenessP99 = f.promptHistogram.percentile(0.99)
        }
        report.releasePasses = f.counters.releasePasses
        report.heldPackets = f.counters.heldPackets
        report.heldWait = f.counters.heldWait
        report.releaseSpinTime = f.spinBudget.total
        report.ownLatenessP99 = f.ownHistogram.percentile(0.99)
        report.tunOffload = f.offloadIO != nil
        report.unsegmentablePackets = f.counters.unsegmentable
        report.offloadReads = f.offloadIO?.reads ?? 0
        report.offloadWrites = f.offloadIO?.writes ?? 0
        report.offloadHoldP99 = f.offloadIO?.holdHistogram.percentile(0.99) ?? 0
        report.napiThreads = napiThreads.count
        report.napiFallback = napiFallback
        report.napiCPUTime = f.offloadIO?.napiCPUSinceStart()
        report.kernelArrivalStamps = f.taps.contains { $0 != nil }
        report.arrivalStampsFallback = lock.withLock { arrivalStampsFallback }
        report.arrivalsStamped = f.arrivalStamps.reduce(0) { $0 + $1.matched }
        report.arrivalsUnstamped = f.arrivalStamps.reduce(0) { $0 + $1.unmatched }
        report.readLatencyP50 = f.readLatency.percentile(0.5)
        report.readLatencyP99 = f.readLatency.percentile(0.99)
        report.readLatencyMax = f.readLatency.maximum
        report.loopUserTime = f.threadTimes?.user
        report.loopSystemTime = f.threadTimes?.system
        report.loopSleeps = f.threadSleeps
        report.drained = drained
        report.pcapFiles = f.capture?.files ?? []
        report.captureFailure = f.capture?.failure ?? lock.withLock { captureFailureAtStart }
        report.linkLogFiles = queueing.flatMap { [$0.up.logFile, $0.down.logFile] }.compactMap { $0 }
        report.linkLogFailure =
            queueing.lazy.flatMap { [$0.up.logFailure, $0.down.logFailure] }.compactMap { $0 }.first
            ?? lock.withLock { linkLogFailureAtStart }
        return report
    }

    /// Adds path events to the running emulator; offsets count from `start()` like those given
    /// to it (an offset already past is applied at once).
    public func schedule(_ events: [PathEvent]) throws {
        for e in events where path(named: e.path) == nil {
            throw BenchError.usage("path event for unknown path \"\(e.path)\" (paths: \(paths.map(\.name)))")
        }
        let f: PacketForwarder? = lock.withLock { forwarder }
        guard let f else { throw BenchError.run("the emulator of \(id) is not running") }
        f.post(.schedule(events))
        let activations = events.filter { $0.action == .activate }
        guard !activations.isEmpty else { return }
        let a = PathActivator(events: activations, start: f.start, network: self)
        lock.withLock { activators.append(a) }
        a.startThread()
    }

    /// Live control: takes a path down (both directions drop; its queues are flushed) or brings
    /// it back up. The interface and its routes stay: like a radio losing coverage.
    public func setPath(_ name: String, up: Bool) throws {
        guard let p = path(named: name) else { throw BenchError.usage("no client path named \"\(name)\"") }
        guard let f = lock.withLock({ forwarder }) else { throw BenchError.run("the emulator of \(id) is not running") }
        f.post(.setDown(path: p.index, down: !up))
    }

    /// Moves the client's default route to path `name` (unbound and unconnected sockets follow it;
    /// sockets bound to a path's address keep their path through the source-address rules).
    public func activate(path name: String) throws {
        guard let p = path(named: name) else { throw BenchError.usage("no client path named \"\(name)\"") }
        try Topology.runBatch([Topology.defaultRoute(device: p.device, pathIndex: p.index)], namespace: clientNamespace)
        lock.withLock { activeIndex = p.index }
    }

    func readDrops() throws -> [EmulatorReport.DeviceDrops] {
        var result: [EmulatorReport.DeviceDrops] = []
        for (ns, devices) in [(serverNamespace, [serverDevice]), (clientNamespace, paths.map(\.device))] {
            let counters = try InterfaceStatistics.dropCounters(namespace: ns, devices: devices)
            for d in devices {
                let c = counters[d] ?? DeviceDropCounters(txDropped: 0, rxDropped: 0)
                result.append(.init(namespace: ns, device: d, before: c, after: c))
            }
        }
        return result
    }
}

/// How `stop` lets a run's last packets through: it waits until every link is empty and no packet
/// has entered for `quiet`, at most `timeout`. A run's connections close with a handshake (TLS
/// close_notify and FIN, the peer's FIN and the last ACK; QUIC's CONNECTION_CLOSE): cut off, TCP
/// resends those packets into the next run's links, and neither run's counters nor pcap files
/// hold only its own packets.
public struct Drain: Sendable, Equatable {
    public var quiet: Nanoseconds
    public var timeout: Nanoseconds
    public init(quiet: Nanoseconds, timeout: Nanoseconds) {
        self.quiet = quiet
        self.timeout = timeout
    }
}

/// Applies scheduled `.activate` events (route changes run `ip`, which the packet loop must not
/// wait for) on a thread of its own.
final class PathActivator: @unchecked Sendable {
    private let events: [PathEvent]
    private let start: Instant
    private weak var network: EmulatedNetwork?
    private let cancelled = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var appliedEvents: [AppliedPathEvent] = []

    init(events: [PathEvent], start: Instant, network: EmulatedNetwork) {
        self.events = events.sorted { $0.at < $1.at }
        self.start = start
        self.network = network
    }

    var applied: [AppliedPathEvent] { lock.withLock { appliedEvents } }

    func startThread() {
        Thread { [self] in
            for e in events {
                let wait = (start + e.at).since(Instant.now())
                if wait > 0, cancelled.wait(timeout: .now() + .nanoseconds(Int(wait))) == .success { break }
                guard let network else { break }
                if (try? network.activate(path: e.path)) != nil {
                    let event = AppliedPathEvent(
                        path: e.path, action: .activate, scheduledAt: e.at, appliedAt: Instant.now().since(start))
                    lock.withLock { appliedEvents.append(event) }
                }
            }
            finished.signal()
        }.start()
    }

    func cancelAndJoin() {
        cancelled.signal()
        finished.wait()
    }
}
