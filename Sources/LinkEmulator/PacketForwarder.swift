import Foundation
import Synchronization
import BenchCore
import LinkModel
import SystemIO

/// The packet loop: one dedicated thread moves IPv4 packets between the server-side TUN and the
/// client paths' TUNs through one `Link` per direction and path.
///
/// Each pass reads at most `batch` packets per TUN (more per pass made release lateness worse in
/// the C prototype), then writes every packet whose release time has come, then sleeps in
/// epoll_pwait2 until the next release (nanosecond timeout, timer slack 1 ns) or until a TUN
/// becomes readable; for a second after the last packet, in hops of at most 200 µs (`LoopSleep`).
/// A link of 500 Mbit/s or more that streams is released in batches, once per `ReleaseWindow`,
/// the wait counted in each packet's lateness. Buffers come from a preallocated pool: nothing is
/// allocated per packet.
///
/// Thread confinement: everything but `stopFlag`, `commands` and `wakeup` belongs to the loop
/// thread from `start()` until `stop()` has joined it; only then are the results read.
final class PacketForwarder: @unchecked Sendable {
    struct Counters {
        var released: Int64 = 0
        var unroutable: Int64 = 0
        var nonIPv4: Int64 = 0
        var poolExhausted: Int64 = 0
        var readErrors: Int64 = 0
        var writeErrors: Int64 = 0
        /// Super-packets an offloading TUN handed over that the loop could not segment (dropped).
        var unsegmentable: Int64 = 0
        /// Passes of the loop that released packets (packets / passes: the batching of `ReleaseWindow`).
        var releasePasses: Int64 = 0
        /// Packets a release window held past their release (`LinkReleaseGate.unheld` false), and
        /// their hold in all: from each one's release to the window's end that released it.
        var heldPackets: Int64 = 0
        var heldWait: Nanoseconds = 0
    }

    enum Command {
        case setDown(path: Int, down: Bool)
        case schedule([PathEvent])
    }

    let start: Instant
    let batch: Int
    let nice: Int32?
    let realtimePriority: Int32?
    let spinMargin: Nanoseconds?
    /// How long before a release the loop polls instead of sleeping (0: never), within `spinBudget`.
    let spinWindow: Nanoseconds
    private(set) var spinBudget = SpinBudget()
    let serverFD: FileDescriptor
    let clientFDs: [FileDescriptor]
    let uplinks: [Link]
    let downlinks: [Link]
    let pool: PacketPool
    private let scratch: UnsafeMutableRawBufferPointer
    private var schedule: PathSchedule
    private let pathNames: [String]
    /// NAT rebinding state per client path (inactive until a rebinding event).
    private var nat: [NATState]
    /// When each link releases (`ReleaseWindow`): path i's uplink at 2i, downlink at 2i + 1.
    private var gates: [LinkReleaseGate]
    /// The batching window of links fast enough for one (`ReleaseWindow.applies`); 0: none.
    let releaseWindow: Nanoseconds

    private(set) var histogram = LatenessHistogram()
    /// The timer's part: how late the loop woke when it slept until a release (the floor's share).
    private(set) var wakeHistogram = LatenessHistogram()
    /// The emulator's own part: each packet's lateness minus the late wake-up of its pass.
    private(set) var ownHistogram = LatenessHistogram()
    /// The lateness of the packets the release window did not hold (`LinkReleaseGate.unheld`; all
    /// of them when no link has a window): what a crossing's last packet can be late by.
    private(set) var unheldHistogram = LatenessHistogram()
    /// The lateness of the packets released while no link held any (no link streaming with a
    /// window): a handshake's and a first request's packets before any transfer streams.
    private(set) var promptHistogram = LatenessHistogram()
    /// The window the links actually got (0 when none is fast enough for one, or none was asked for).
    var appliedReleaseWindow: Nanoseconds { gates.contains { $0.window.window > 0 } ? releaseWindow : 0 }
    /// Lateness of the wake-up that began the current pass (0 when I/O or a zero timeout began it).
    private var passWakeLateness: Nanoseconds = 0
    var counters = Counters()
    /// One-way delay through each link (write time − arrival): path i's uplink at 2i, downlink at 2i + 1.
    private(set) var oneWayDelays: [OneWayDelayHistogram]
    private(set) var appliedEvents: [AppliedPathEvent] = []
    private(set) var failure: Error?
    /// The loop thread's CPU time and run-queue wait (ns), from /proc/thread-self/schedstat.
    private(set) var schedulerTimes: (cpu: Int64, runQueueWait: Int64)?
    /// The loop thread's user and system time (ns) at its end, `getrusage(RUSAGE_THREAD)`.
    private(set) var threadTimes: (user: Int64, system: Int64)?
    /// The loop thread's sleeps that blocked (voluntary context switches) at its end.
    private(set) var threadSleeps: Int64?
    /// The run's pcap files (`--pcap`); set before `startThread`.
    var capture: PacketCapture?
    /// The TUNs' offload I/O (`TUNDevice.openWithOffload`); nil for plain TUNs. Set before `startThread`.
    var offloadIO: OffloadIO?
    /// A packet tap per TUN (index 0 the server's, then the client paths'), or nil where arrivals are
    /// stamped when read (see `ArrivalStamps`). Set before `startThread`; closed by the owner after
    /// `stopAndJoin`.
    private(set) var taps: [FileDescriptor?] = []
    private(set) var arrivalStamps: [ArrivalStamps] = []
    /// How long after the kernel sent a packet into a TUN the loop read it (tapped TUNs only): time
    /// the packet spent in the emulator before its link saw it, which no longer delays it.
    private(set) var readLatency = LatenessHistogram()
    private let tapBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: PacketTap.snapLength, alignment: 16)
    /// Each link's observer: sojourn histogram, time series and (`--link-log`) link log.
    private(set) var uplinkMonitors: [LinkMonitor] = []
    private(set) var downlinkMonitors: [LinkMonitor] = []

    private let stopFlag = Atomic<Bool>(false)
    /// `awaitDrain`: the quiet time asked for (ns; 0: no drain wanted), and the signal the loop
    /// gives once every link is empty and no packet has arrived for that long.
    private let drainQuiet = Atomic<Int64>(0)
    private let drained = DispatchSemaphore(value: 0)
    var lastArrival = Instant(nanoseconds: 0)
    /// The last packet read or written (nil: none yet): the loop stays warm for `warmWindow` after it.
    var lastPacket: Instant?
    let warmWindow: Nanoseconds
    private let commands = Mutex<[Command]>([])
    private let wakeup: Wakeup
    private let finished = DispatchSemaphore(value: 0)
    private static let wakeToken: UInt64 = .max

    init(
        serverFD: FileDescriptor, clientFDs: [FileDescriptor], paths: [PathConfiguration], seed: UInt64,
        start: Instant, schedule: [PathEvent], poolCapacity: Int, batch: Int, nice: Int32?, realtimePriority: Int32?,
        spinMargin: Nanoseconds? = nil, warmWindow: Nanoseconds = LoopSleep.warmWindow,
        spinWindow: Nanoseconds = LoopSleep.spinWindow, releaseWindow: Nanoseconds = 0
    ) throws {
        self.spinMargin = spinMargin
        self.releaseWindow = max(0, releaseWindow)
        gates = paths.flatMap { p in
            [p.uplink, p.downlink].map {
                LinkReleaseGate(window: ReleaseWindow(window: ReleaseWindow.applies(to: $0) ? releaseWindow : 0))
            }
        }
        self.spinWindow = spinWindow
        self.warmWindow = warmWindow
        self.serverFD = serverFD
        self.clientFDs = clientFDs
        self.start = start
        self.batch = batch
        self.nice = nice
        self.realtimePriority = realtimePriority
        pathNames = paths.map(\.name)
        nat = Array(repeating: NATState(), count: paths.count)
        var up: [Link] = [], down: [Link] = []
        for (i, p) in paths.enumerated() {
            up.append(Link(configuration: p.uplink, start: start, seed: seed &+ UInt64(2 * i), roundTrip: p.roundTrip))
            down.append(
                Link(configuration: p.downlink, start: start, seed: seed &+ UInt64(2 * i + 1), roundTrip: p.roundTrip))
        }
        uplinks = up
        downlinks = down
        oneWayDelays = Array(repeating: OneWayDelayHistogram(), count: 2 * paths.count)
        pool = PacketPool(capacity: poolCapacity)
        scratch = .allocate(byteCount: PacketPool.slotSize, alignment: 64)
        self.schedule = PathSchedule(events: schedule.filter { $0.action != .activate }, start: start)
        wakeup = try Wakeup()
        uplinkMonitors = up.map { _ in LinkMonitor(start: start, log: nil) }
        downlinkMonitors = down.map { _ in LinkMonitor(start: start, log: nil) }
        attach()
    }

    /// Gives each link direction a monitor with a Mahimahi-format link log,
    /// `<directory>/<label>-<path>-<up|down>.log`; throws when a file cannot be created (the
    /// monitors without logs stay in place). Before `startThread` only.
    func monitorWithLogs(_ request: CaptureRequest) throws {
        var up: [LinkMonitor] = [], down: [LinkMonitor] = []
        for (i, name) in pathNames.enumerated() {
            for (links, direction) in [(uplinks, "up"), (downlinks, "down")] {
                let file = "\(request.directory)/\(request.label)-\(name)-\(direction).log"
                let log = try MahimahiLinkLog(
                    path: file, name: "\(name) \(direction)link", rate: links[i].configuration.rate, start: start)
                let m = LinkMonitor(start: start, log: log)
                if direction == "up" { up.append(m) } else { down.append(m) }
            }
        }
        uplinkMonitors = up
        downlinkMonitors = down
        attach()
    }

    private func attach() {
        for (l, m) in zip(uplinks, uplinkMonitors) { l.observer = m }
        for (l, m) in zip(downlinks, downlinkMonitors) { l.observer = m }
    }

    /// Closes every monitor at `end` (after `stopAndJoin`): per path, its uplink's and downlink's queueing.
    func finishMonitors(at end: Instant) -> [(up: LinkQueueing, down: LinkQueueing)] {
        uplinks.indices.map { i in
            (
                uplinkMonitors[i].finish(at: end, rate: uplinks[i].configuration.rate),
                downlinkMonitors[i].finish(at: end, rate: downlinks[i].configuration.rate)
            )
        }
    }

    deinit {
        scratch.deallocate()
        tapBuffer.deallocate()
    }

    /// Stamps arrivals from these taps (see `taps`); before `startThread`.
    func useTaps(_ taps: [FileDescriptor?]) {
        self.taps = taps
        arrivalStamps = taps.map { _ in ArrivalStamps() }
    }

    func startThread() {
        let thread = Thread { [self] in
            run()
            if let usage = CPUTime.currentThreadUsage() {
                threadTimes = (usage.user, usage.system)
                threadSleeps = usage.voluntarySwitches
            }
            finished.signal()
        }
        thread.name = "netbench-emulator"
        thread.start()
    }

    /// Waits until every link is empty and no packet has entered for `quiet`, or until `timeout`:
    /// the packets of a run's closing handshakes (TLS close_notify, FIN and its ACK, QUIC
    /// CONNECTION_CLOSE) then reach their peers inside the run instead of being resent into the
    /// next run's links. True when the links drained.
    func awaitDrain(quiet: Nanoseconds, timeout: Nanoseconds) -> Bool {
        drainQuiet.store(max(1, quiet), ordering: .releasing)
        wakeup.signal()
        let ok = drained.wait(timeout: .now() + .nanoseconds(Int(timeout))) == .success
        drainQuiet.store(0, ordering: .releasing)
        return ok
    }

    /// Asks the loop to end and waits for it.
    func stopAndJoin() {
        stopFlag.store(true, ordering: .releasing)
        wakeup.signal()
        finished.wait()
        flushAllOffloaded()
    }

    /// Live control from any thread: applied by the loop at its next pass.
    func post(_ command: Command) {
        commands.withLock { $0.append(command) }
        wakeup.signal()
    }

    private func run() {
        // Timers of this thread fire within 1 ns of their deadline instead of the default 50 µs.
        try? ProcessControl.setTimerSlack(nanoseconds: 1)
        // A better claim on a CPU than the endpoints' threads it competes with (best effort).
        if let nice { try? ProcessControl.setThreadNice(nice) }
        if let realtimePriority { try? ProcessControl.setThreadRealtime(priority: realtimePriority) }
        do {
            let epoll = try Epoll(capacity: 16)
            try epoll.add(serverFD, .read, token: 0)
            for (i, fd) in clientFDs.enumerated() { try epoll.add(fd, .read, token: UInt64(i + 1)) }
            try epoll.add(wakeup.fd, .read, token: Self.wakeToken)
            var moreWaiting = false
            var spinStarted: Instant?
            while !stopFlag.load(ordering: .acquiring) {
                let now = Instant.now()
                if let started = spinStarted { spinBudget.charge(now.since(started), at: now) }
                let quiet = drainQuiet.load(ordering: .acquiring)
                if quiet > 0 && checkDrained(now: now, quiet: quiet) {
                    drainQuiet.store(0, ordering: .releasing)
                    drained.signal()
                }
                // A window's end is not polled for: its packets already wait by design, and the
                // budget is kept for the releases that are due when they are (a handshake's, an ACK's).
                let next = nextWakeup(now: now)
                let spins = spinWindow > 0 && !next.windowEnd && spinBudget.allows(at: now)
                let sleep = LoopSleep.plan(
                    now: now, nextRelease: next.at, moreWaiting: moreWaiting, spinMargin: spinMargin,
                    lastPacket: lastPacket, drainQuiet: drainQuiet.load(ordering: .acquiring),
                    warmWindow: warmWindow, spinWindow: spins ? spinWindow : 0)
                let timeout = sleep.timeout, deadline = sleep.deadline
                spinStarted = sleep.spin ? now : nil
                moreWaiting = false
                var woken = false
                try epoll.wait(timeout: timeout) { token, _ in
                    woken = true
                    if token == Self.wakeToken {
                        wakeup.drain()
                        applyCommands()
                    } else if readBatch(port: Int(token)) {
                        moreWaiting = true
                    }
                }
                // A timed sleep that ended after its deadline woke late, whether the timer or a
                // TUN that became readable meanwhile ended it: that much lateness is the floor's.
                passWakeLateness = 0
                if let deadline {
                    let late = Instant.now().since(deadline)
                    if late >= 0 || !woken {
                        passWakeLateness = max(0, late)
                        wakeHistogram.record(passWakeLateness)
                    }
                }
                releaseDue()
            }
        } catch {
            failure = error
        }
        // Where the loop's time went: on a CPU, or runnable but waiting for one.
        let fields =
            ProcessControl.readSmallFile("/proc/thread-self/schedstat")?.split(separator: " ").compactMap {
                Int64($0.trimming("\n"))
            } ?? []
        if fields.count >= 2 { schedulerTimes = (fields[0], fields[1]) }
    }

    private func checkDrained(now: Instant, quiet: Int64) -> Bool {
        guard now.since(lastArrival) >= quiet else { return false }
        return uplinks.allSatisfy { $0.inFlight == 0 } && downlinks.allSatisfy { $0.inFlight == 0 }
    }

    /// The next pass: the earliest of the schedule's next event and the links' release times, a
    /// windowed link's release that is not held waiting for a window ending soon after it
    /// (`ReleaseWindow.nextPass`); `windowEnd` when that pass is a window's end.
    private func nextWakeup(now: Instant) -> (at: Instant?, windowEnd: Bool) {
        var next = schedule.nextDue, held: Instant?, free: Instant?
        for k in gates.indices {
            let link = k & 1 == 0 ? uplinks[k >> 1] : downlinks[k >> 1]
            guard let plan = gates[k].plan(link, now: now) else { continue }
            let t = plan.at
            if gates[k].window.window == 0 {
                if next.map({ t < $0 }) ?? true { next = t }
            } else if plan.held {
                if held.map({ t < $0 }) ?? true { held = t }
            } else if free.map({ t < $0 }) ?? true {
                free = t
            }
        }
        let windowed = ReleaseWindow(window: releaseWindow).nextPass(held: held, free: free)
        guard let w = windowed else { return (next, false) }
        if let n = next, n <= w { return (n, false) }
        return (w, w == held)
    }

    /// Reads up to `batch` packets from one TUN into its links; true when the batch filled
    /// (more may be waiting).
    private func readBatch(port: Int) -> Bool {
        if let offloadIO { return readOffloaded(port: port, io: offloadIO) }
        let fd = port == 0 ? serverFD : clientFDs[port - 1]
        for _ in 0..<batch {
            guard let slot = pool.take() else {
                // No buffer: take the packet off the TUN anyway and count it lost.
                guard case .bytes(let n)? = try? Socket.read(fd, into: scratch), n > 0 else { return false }
                counters.poolExhausted += 1
                continue
            }
            let status: IOStatus
            do { status = try Socket.read(fd, into: pool.slot(slot)) } catch {
                counters.readErrors += 1
                pool.put(slot)
                return false
            }
            guard case .bytes(let n) = status, n > 0 else { pool.put(slot); return false }
            let now = Instant.now()
            lastArrival = now
            lastPacket = now
            admit(slot: slot, length: n, port: port, at: arrival(port: port, pool.bytes(slot, length: n), readAt: now))
        }
        return true
    }

    /// One packet in a pool buffer into the link its route gives, or back to the pool.
    @inline(__always)
    func admit(slot: Int32, length n: Int, port: Int, at stamp: Instant) {
        if let (link, now) = route(slot: slot, length: n, fromPort: port, at: stamp) {
            // What the queue disciplines classify on, read once (after any NAT rewrite).
            let header = pool.bytes(slot, length: n)
            let packet = Packet(
                handle: slot, size: n, arrival: now, flowHash: IPv4Header.flowHash(header),
                ecn: IPv4Header.ecn(header))
            if link.enqueue(packet, now: now) == .accepted { return }
        }
        pool.put(slot)
    }

    /// When the packet just read from `port` (at `read`) entered its TUN: the kernel's time from
    /// the port's tap when a copy matches, else `read`.
    @inline(__always)
    func arrival(port: Int, _ packet: UnsafeRawBufferPointer, readAt read: Instant) -> Instant {
        guard port < taps.count, let tap = taps[port] else { return read }
        let length = min(packet.count, PacketTap.snapLength)
        let fingerprint = ArrivalStamps.fingerprint(packet, limit: PacketTap.snapLength)
        // A copy already taken off the tap (a batch's earlier drain brought it) saves the tap's syscalls.
        var sent = arrivalStamps[port].matchWaiting(length: length, fingerprint: fingerprint)
        if sent == nil {
            drainTap(tap, port: port, readAt: read)
            sent = arrivalStamps[port].match(length: length, fingerprint: fingerprint)
        }
        guard let sent else { return read }
        let stamp = min(sent, read)
        readLatency.record(read.since(stamp))
        return stamp
    }

    /// Takes every copy waiting on `tap` into `port`'s `ArrivalStamps`, its time on the loop's clock.
    private func drainTap(_ tap: FileDescriptor, port: Int, readAt read: Instant) {
        var offset: Int64?
        while let copy = try? PacketTap.read(tap, into: tapBuffer), copy.captured > 0 {
            let o = offset ?? Socket.realtimeMinusMonotonic()
            offset = o
            let sent = copy.realtime.map { Instant(nanoseconds: UInt64(max(0, $0 - o))) } ?? read
            let fingerprint = ArrivalStamps.fingerprint(UnsafeRawBufferPointer(rebasing: tapBuffer[0..<copy.captured]))
            arrivalStamps[port].add(length: copy.captured, fingerprint: fingerprint, sent: sent)
        }
    }

    /// The link a packet read from `port` goes through (uplink of the client path it came from, or
    /// downlink of the client path its destination address belongs to) and its arrival there: the
    /// stamp, or the link's clock when that is later.
    @inline(__always)
    private func route(slot: Int32, length: Int, fromPort port: Int, at stamp: Instant) -> (Link, Instant)? {
        let bytes = pool.bytes(slot, length: length)
        guard length >= 20, bytes[0] >> 4 == 4 else {
            counters.nonIPv4 += 1
            return nil
        }
        if port > 0 {
            if nat[port - 1].isActive { nat[port - 1].rewriteOutbound(pool.slot(slot)) }
            let link = uplinks[port - 1], now = max(stamp, link.clock)
            capture?.entering(path: port - 1, up: true, bytes, at: now)
            return (link, now)
        }
        let destination = UInt32(bytes[16]) << 24 | UInt32(bytes[17]) << 16 | UInt32(bytes[18]) << 8 | UInt32(bytes[19])
        guard let i = NetworkAddressing.pathIndex(ofClientAddress: destination), i < downlinks.count else {
            counters.unroutable += 1
            return nil
        }
        if nat[i].isActive { nat[i].rewriteInbound(pool.slot(slot)) }
        let link = downlinks[i], now = max(stamp, link.clock)
        capture?.entering(path: i, up: false, bytes, at: now)
        return (link, now)
    }

    /// Whether segments cut from super-packets may keep a partial TCP checksum (the pseudo-header's
    /// sum, `PacketPool.partialChecksum`) until they leave: not while a capture records them (pcaps
    /// show the checksums a wire would carry) nor while any path rewrites addresses (`NATState`
    /// patches checksums incrementally).
    var segmentChecksumsMayWait: Bool { capture == nil && !nat.contains { $0.isActive } }

    /// Releases each link whose time has come (`gates`: its next release, or the end of its window).
    private func releaseDue() {
        let now = Instant.now()
        if schedule.nextDue.map({ $0 <= now }) ?? false { applyDueEvents(now: now) }
        var released = false
        // Whether any windowed link holds packets at this pass (streams): if none, the pass is prompt.
        var prompt = true
        for k in gates.indices where gates[k].window.window > 0 {
            let link = k & 1 == 0 ? uplinks[k >> 1] : downlinks[k >> 1]
            if gates[k].plan(link, now: now)?.held == true {
                prompt = false
                break
            }
        }
        for i in 0..<uplinks.count {
            if let plan = gates[2 * i].plan(uplinks[i], now: now), plan.at <= now {
                release(
                    uplinks[i], to: serverFD, now: now, path: i, up: true, held: plan.held ? plan.at : nil,
                    prompt: prompt)
                released = true
            }
            if let plan = gates[2 * i + 1].plan(downlinks[i], now: now), plan.at <= now {
                release(
                    downlinks[i], to: clientFDs[i], now: now, path: i, up: false, held: plan.held ? plan.at : nil,
                    prompt: prompt)
                released = true
            }
            recycleDiscarded(uplinks[i])
            recycleDiscarded(downlinks[i])
        }
        if released { counters.releasePasses += 1 }
    }

    /// Returns to the pool what a link dropped after admitting it (outage flush, AQM drop).
    @inline(__always)
    private func recycleDiscarded(_ link: Link) {
        while let d = link.takeDiscarded() { pool.put(d.handle) }
    }

    @inline(__always)
    private func release(
        _ link: Link, to fd: FileDescriptor, now: Instant, path: Int, up: Bool, held windowEnd: Instant?,
        prompt: Bool
    ) {
        // Packets that fall due while earlier ones are written go out in the same pass. The link is
        // advanced past the pass's start only for them: a reply the host sent while this pass wrote
        // into its TUN (an echo answered inside the write) keeps the kernel's stamp (`arrival`).
        var now = now
        while let p = link.dequeue(now: now) ?? dueSince(link) {
            now = Instant.now()
            let lateness = now.since(p.release)
            histogram.record(lateness)
            ownHistogram.record(lateness - passWakeLateness)
            let g = 2 * path + (up ? 0 : 1)
            if let windowEnd, !gates[g].unheld(p, next: link.nextWakeup(now: now), heldPass: true) {
                counters.heldPackets += 1
                counters.heldWait += max(0, windowEnd.since(p.release))
            } else {
                unheldHistogram.record(lateness)
            }
            if prompt { promptHistogram.record(lateness) }
            gates[g].released(p)
            oneWayDelays[2 * path + (up ? 0 : 1)].record(now.since(p.arrival))
            // A discipline marked it Congestion Experienced: rewrite the ECN field (and checksum).
            if p.ceMarked { IPv4Header.markCE(pool.slot(p.handle)) }
            let bytes = pool.bytes(p.handle, length: Int(p.size))
            capture?.leaving(path: path, up: up, bytes, at: now)
            counters.released += 1
            lastPacket = now
            if let offloadIO {
                sendOffloaded(p.handle, length: Int(p.size), to: fd, io: offloadIO, now: now)
                continue
            }
            do {
                if case .wouldBlock = try Socket.write(fd, bytes) {
                    counters.writeErrors += 1
                }
            } catch {
                counters.writeErrors += 1
            }
            pool.put(p.handle)
        }
        if let offloadIO { endOffloadedPass(link, to: fd, now: now, io: offloadIO) }
        recycleDiscarded(link)
    }

    /// The next packet of `link` when one fell due after the pass began, else nil (the link is
    /// then left where the pass put it).
    @inline(__always)
    private func dueSince(_ link: Link) -> Packet? {
        let fresh = Instant.now()
        guard let due = link.nextWakeup(now: fresh), due <= fresh else { return nil }
        return link.dequeue(now: fresh)
    }

    private func applyCommands() {
        let pending = commands.withLock { list -> [Command] in
            defer { list.removeAll(keepingCapacity: true) }
            return list
        }
        let now = Instant.now()
        for command in pending {
            switch command {
            case .setDown(let path, let down):
                setDown(path: path, down: down, at: now)
                appliedEvents.append(
                    AppliedPathEvent(
                        path: pathNames[path], action: down ? .down : .up,
                        scheduledAt: nil, appliedAt: now.since(start)))
            case .schedule(let events):
                schedule.add(events.filter { $0.action != .activate })
            }
        }
    }

    private func applyDueEvents(now: Instant) {
        for event in schedule.takeDue(now: now) {
            guard let i = pathNames.firstIndex(of: event.path) else { continue }
            switch event.action {
            case .rebindPort: nat[i].rebindPort()
            case .rebindAddress: nat[i].rebindAddress()
            case .down, .up:
                // Applied at the scheduled instant: the links account for it exactly, whenever we woke.
                setDown(path: i, down: event.action == .down, at: start + event.at)
            case .activate: continue
            }
            appliedEvents.append(
                AppliedPathEvent(
                    path: event.path, action: event.action,
                    scheduledAt: event.at, appliedAt: now.since(start)))
        }
    }

    private func setDown(path i: Int, down: Bool, at t: Instant) {
        uplinks[i].setDown(down, now: t)
        downlinks[i].setDown(down, now: t)
        release(uplinks[i], to: serverFD, now: t, path: i, up: true, held: nil, prompt: false)
        release(downlinks[i], to: clientFDs[i], now: t, path: i, up: false, held: nil, prompt: false)
    }
}
