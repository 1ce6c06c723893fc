import BenchCore

/// One direction of an emulated link, driving its stages in the order
/// outage → loss → bottleneck (queue discipline, then the rate's server) → delay (constant or traced,
/// jitter, reordering).
///
/// The bottleneck works at dequeue time: when the packet in serialization departs, the discipline
/// chooses the next one at that instant (so CoDel sees its sojourn, FQ-CoDel reorders flows); a
/// packet's release is its departure plus the delay. The owner calls `enqueue` as packets arrive,
/// `dequeue` until nil whenever it wakes, sleeps until `nextWakeup`, and recycles what
/// `takeDiscarded` returns (packets the link dropped after admitting them: flushed by an outage,
/// or dropped by the discipline at dequeue or from the head). Nothing here reads a clock.
public final class Link: DisciplineSink {
    public let configuration: LinkConfiguration
    public let queueLimit: QueueLimit
    public private(set) var counters = LinkCounters()

    private var loss: LossProcess
    private let bottleneck: Bottleneck
    private let delayLine: DelayStage
    private var arrivals: Int64 = 0
    private var highestReleased: Int64 = 0
    private var schedule: OutageSchedule
    private var scheduledDown = false
    private var forcedDown = false
    private var discarded = PacketRing(capacity: 16)
    /// The latest instant the link has been advanced to (by `enqueue` or `dequeue`). An owner that
    /// stamps arrivals earlier than it reads them takes no stamp earlier than this, so the link's
    /// time never runs backwards.
    public private(set) var clock: Instant
    /// Sees every arrival, bottleneck departure and drop, in time order (nil: nobody looks).
    public var observer: (any LinkObserver)?

    /// - Parameters:
    ///   - start: the instant outage offsets and trace offsets refer to.
    ///   - seed: seeds the loss process (and, derived from it, the delay stage's jitter and reordering).
    ///   - roundTrip: sizes the default queue (one BDP); defaults to twice this direction's delay.
    public init(configuration: LinkConfiguration, start: Instant, seed: UInt64, roundTrip: Nanoseconds? = nil) {
        self.configuration = configuration
        let limit = configuration.effectiveQueueLimit(roundTrip: roundTrip ?? 2 * configuration.delay)
        self.queueLimit = limit
        clock = start
        loss = LossProcess(model: configuration.loss, seed: seed)
        let server: any LinkServer
        switch configuration.rate {
        case .unlimited: server = ConstantRateServer(bitsPerSecond: nil)
        case .constant(let bps): server = ConstantRateServer(bitsPerSecond: bps)
        case .trace(let t): server = TraceRateServer(trace: t, start: start)
        }
        let discipline: any QueueDiscipline
        switch configuration.discipline {
        case .dropTail: discipline = DropTail(limit: limit)
        case .dropHead: discipline = DropHead(limit: limit)
        case .codel(let p): discipline = CoDel(p)
        case .fqCodel(let p): discipline = FQCoDel(p)
        case .pie(let p): discipline = PIE(p, start: start, seed: seed ^ 0x5049_4521)
        }
        bottleneck = Bottleneck(discipline: discipline, server: server)
        delayLine = DelayStage(
            delay: configuration.delay, variation: configuration.delayVariation, start: start, seed: seed)
        schedule = OutageSchedule(outages: configuration.outages, start: start)
        bottleneck.sink = self
    }

    /// The bottleneck's discipline (for its own counters).
    public var discipline: any QueueDiscipline { bottleneck.discipline }

    public var isDown: Bool { scheduledDown || forcedDown }

    /// Packets admitted and not yet released.
    public var inFlight: Int { bottleneck.queuedPackets + delayLine.count }

    public func enqueue(_ packet: Packet, now: Instant) -> LinkVerdict {
        advance(to: now)
        var packet = packet
        arrivals += 1
        packet.sequence = arrivals
        counters.received.add(packet.size)
        observer?.arrived(packet, at: now)
        if isDown {
            counters.droppedByOutage.add(packet.size)
            observer?.dropped(packet, cause: .droppedByOutage, at: now)
            return .droppedByOutage
        }
        if loss.dropsNextPacket() {
            counters.droppedByLoss.add(packet.size)
            observer?.dropped(packet, cause: .droppedByLoss, at: now)
            return .droppedByLoss
        }
        guard bottleneck.enqueue(packet, now: now) else {
            counters.droppedByQueue.add(packet.size)
            observer?.dropped(packet, cause: .droppedByQueue, at: now)
            return .droppedByQueue
        }
        return .accepted
    }

    /// The next packet due at `now`, its `release` stamped; nil when none is due.
    public func dequeue(now: Instant) -> Packet? {
        advance(to: now)
        guard let p = delayLine.dequeue(now: now) else { return nil }
        counters.forwarded.add(p.size)
        if p.sequence < highestReleased { counters.reordered.add(p.size) } else { highestReleased = p.sequence }
        return p
    }

    /// The earliest release among admitted packets, or nil when the link holds nothing: the head
    /// of the delay stage, or the packet in serialization, released no earlier than the delay stage's
    /// bound for its departure (every packet still queued departs after it). Exact with a constant
    /// delay: with no delay, the end of the current serialization.
    public func nextWakeup(now: Instant) -> Instant? {
        let inDelay = delayLine.nextWakeup(now: now)
        let inQueue = bottleneck.nextWakeup(now: now).map { delayLine.earliestRelease(departingAt: $0) }
        switch (inDelay, inQueue) {
        case let (a?, b?): return min(a, b)
        case let (a?, nil): return a
        case let (nil, b?): return b
        case (nil, nil): return nil
        }
    }

    /// A packet the link dropped after admitting it (flushed by an outage), for its owner to recycle.
    public func takeDiscarded() -> Packet? { discarded.popFirst() }

    /// Live control: takes the link down (flushing its queue) or brings it back up at `now`,
    /// on top of any scheduled outages.
    public func setDown(_ down: Bool, now: Instant) {
        advance(to: now)
        let wasDown = isDown
        forcedDown = down
        if !wasDown && isDown { flush(at: now) }
    }

    /// Applies scheduled transitions up to `now` in time order, moving packets that left the
    /// bottleneck into the delay line, stamped with their own departure time.
    private func advance(to now: Instant) {
        if now > clock { clock = now }
        while let t = schedule.takeTransition(dueBy: now) {
            moveDeparted(before: t.at)
            let wasDown = isDown
            scheduledDown = t.down
            if !wasDown && isDown { flush(at: t.at) }
        }
        moveDeparted(through: now)
    }

    private func moveDeparted(through now: Instant) {
        while let p = bottleneck.dequeue(now: now) {
            observer?.departed(p)
            _ = delayLine.enqueue(p, now: p.departure)
        }
    }

    private func moveDeparted(before t: Instant) {
        guard t.nanoseconds > 0 else { return }
        moveDeparted(through: Instant(nanoseconds: t.nanoseconds - 1))
    }

    public func discipline(dropped packet: Packet, at: Instant) {
        counters.droppedByQueue.add(packet.size)
        observer?.dropped(packet, cause: .droppedByQueue, at: at)
        discarded.append(packet)
    }

    public func discipline(marked packet: Packet, at: Instant) {
        counters.markedCE.add(packet.size)
        observer?.marked(packet, at: at)
    }

    private func flush(at t: Instant) {
        bottleneck.flush(now: t) { p in
            counters.droppedByOutage.add(p.size)
            observer?.dropped(p, cause: .droppedByOutage, at: t)
            discarded.append(p)
        }
    }
}
