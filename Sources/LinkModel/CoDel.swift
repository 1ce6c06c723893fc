import BenchCore

/// The CoDel state machine of RFC 8289 (section 5 pseudo-code, as Linux's `codel_impl.h` runs
/// it), for one queue: CoDel itself has one, FQ-CoDel one per flow.
struct CoDelState: Sendable {
    /// When the sojourn time has been above target for a whole interval (nil: it is below).
    private var firstAboveTime: Instant?
    private var dropNext = Instant(nanoseconds: 0)
    private(set) var count: UInt32 = 0
    private var lastCount: UInt32 = 0
    private(set) var dropping = false
    /// The sojourn time of the last packet looked at.
    private(set) var lastDelay: Nanoseconds = 0

    /// RFC 8289 `dodequeue`'s `ok_to_drop`: above target (and more than one MTU queued) for at
    /// least an interval. `backlog` is the bytes queued after taking `packet`.
    private mutating func shouldDrop(_ packet: Packet?, now: Instant, _ p: CoDelParameters, backlog: Int) -> Bool {
        guard let packet else {
            firstAboveTime = nil
            return false
        }
        lastDelay = now.since(packet.arrival)
        if lastDelay < p.target || backlog <= p.mtu {
            firstAboveTime = nil
            return false
        }
        guard let first = firstAboveTime else {
            firstAboveTime = now + p.interval
            return false
        }
        return now > first
    }

    /// The control law: the next drop `interval / sqrt(count)` after `t`.
    private func controlLaw(_ t: Instant, _ p: CoDelParameters) -> Instant {
        t + Nanoseconds((Double(p.interval) / Double(max(1, count)).squareRoot()).rounded(.down))
    }

    /// The next packet to send at `now`, dropping (or, with ECN, marking) as CoDel decides.
    /// `pop` takes the queue's head, `backlog` says the bytes then queued.
    mutating func dequeue(
        now: Instant, _ p: CoDelParameters, pop: () -> Packet?, backlog: () -> Int,
        drop: (Packet) -> Void, mark: (Packet) -> Void
    ) -> Packet? {
        guard var packet = pop() else {
            dropping = false
            return nil
        }
        var okToDrop = shouldDrop(packet, now: now, p, backlog: backlog())
        var out: Packet? = packet
        if dropping {
            if !okToDrop {
                dropping = false  // sojourn below target: leave the dropping state
            } else {
                // Time for the next drop (maybe several, when the backlog is large).
                while dropping && now >= dropNext, var head = out {
                    count &+= 1
                    if p.ecn && head.markCE() {
                        mark(head)
                        out = head
                        dropNext = controlLaw(dropNext, p)
                        break
                    }
                    drop(head)
                    out = pop()
                    if !shouldDrop(out, now: now, p, backlog: backlog()) {
                        dropping = false
                    } else {
                        dropNext = controlLaw(dropNext, p)
                    }
                }
            }
        } else if okToDrop {
            if p.ecn && packet.markCE() {
                mark(packet)
                out = packet
            } else {
                drop(packet)
                out = pop()
                okToDrop = shouldDrop(out, now: now, p, backlog: backlog())
            }
            dropping = true
            // Re-entering soon after leaving: resume near the drop rate that controlled the queue.
            let delta = count &- lastCount
            if delta > 1 && now.since(dropNext) < 16 * p.interval {
                count = delta
            } else {
                count = 1
            }
            lastCount = count
            dropNext = controlLaw(now, p)
        }
        if var head = out, let ce = p.ceThreshold, lastDelay > ce, !head.ceMarked, head.markCE() {
            mark(head)
            out = head
        }
        return out
    }
}

/// CoDel (RFC 8289): one FIFO whose packets are dropped at dequeue when their sojourn time has
/// stayed above `target` for `interval`, at a rate rising with the square root of the drop count;
/// ECN-capable packets are marked instead when `ecn` is on. The limit drops arrivals (tail).
public final class CoDel: QueueDiscipline {
    public let parameters: CoDelParameters
    private var fifo = PacketFIFO()
    private var state = CoDelState()

    public init(_ parameters: CoDelParameters) { self.parameters = parameters }

    public var backlogPackets: Int { fifo.count }
    public var backlogBytes: Int { fifo.bytes }
    /// Whether CoDel is in its dropping state (for tests).
    var isDropping: Bool { state.dropping }

    public func enqueue(_ packet: Packet, now: Instant, serving: Int, sink: any DisciplineSink) -> Bool {
        guard parameters.limit.admits(size: Int(packet.size), queuedPackets: fifo.count, queuedBytes: fifo.bytes)
        else { return false }
        fifo.append(packet)
        return true
    }

    public func dequeue(now: Instant, sink: any DisciplineSink) -> Packet? {
        state.dequeue(
            now: now, parameters, pop: { fifo.popFirst() }, backlog: { fifo.bytes },
            drop: { sink.discipline(dropped: $0, at: now) }, mark: { sink.discipline(marked: $0, at: now) })
    }

    public func flush(_ body: (Packet) -> Void) { fifo.flush(body) }
}
