import BenchCore

/// The last stage of a link direction: one-way delay, constant or from a delay trace, with jitter
/// and explicit reordering (see `DelayVariation`). A packet enqueued at `now` (its departure from
/// the bottleneck) gets its release time at once:
///
/// - delay d(now): the configured constant, or the delay trace at `now − start`;
/// - plus a jitter draw j (0 without jitter); the sum is clamped at 0 (never released before it left);
/// - order-keeping (default): release = max(now + max(0, d + j), release of the packet ahead), a FIFO;
/// - reordering jitter: release = now + max(0, d + j) on its own, a heap by (release, arrival order);
/// - explicit reordering (order-keeping only): a swap or a jump (see `Reordering`) changes that.
///
/// Draws come from two seeded generators (jitter, reordering), so a seed reproduces the pattern.
public final class DelayStage: PacketQueue {
    public let delay: Nanoseconds
    public let variation: DelayVariation
    private let start: Instant
    private var jitterRandom: SeededRandom
    private var reorderRandom: SeededRandom
    private var fifo = ContiguousArray<Entry>()
    private var head = 0
    private var heap = ContiguousArray<Packet>()
    /// Release of the last packet that left the FIFO (what a newcomer to an empty FIFO keeps order with).
    private var lastReleased = Instant(nanoseconds: 0)
    private var entered: Int64 = 0

    struct Entry {
        var packet: Packet
        /// A swap candidate waiting for the next packet; `packet.release` is then its cap.
        var held = false
        var ownRelease: Instant
    }

    /// - Parameters:
    ///   - delay: the constant one-way delay (unused for the delay itself when a trace is given).
    ///   - start: the instant trace offsets refer to.
    ///   - seed: the link's seed; the stage derives its own streams from it.
    public init(delay: Nanoseconds, variation: DelayVariation = .none, start: Instant, seed: UInt64) {
        precondition(
            !(variation.jitter?.mayReorder == true && variation.reordering != nil),
            "explicit reordering needs order-keeping jitter")
        self.delay = max(0, delay)
        self.variation = variation
        self.start = start
        jitterRandom = SeededRandom(seed: seed ^ 0x6A09_E667_F3BC_C908)
        reorderRandom = SeededRandom(seed: seed ^ 0xBB67_AE85_84CA_A73B)
    }

    public var count: Int { fifo.count - head + heap.count }

    /// The least time from enqueue to release any packet can get (what `Link.nextWakeup` adds to a
    /// packet still in the bottleneck; a jump can release a packet at once, so then 0).
    public var minimumDelay: Nanoseconds {
        if case .jump? = variation.reordering { return 0 }
        let base = variation.trace?.minimumDelay ?? delay
        guard let jitter = variation.jitter else { return base }
        return max(0, base + jitter.lowestOffset)
    }

    /// No packet leaving the bottleneck at `departure` can be released before this: its minimum
    /// delay, and in order-keeping mode the release of the packet at the head (which it cannot pass
    /// unless that one is a held swap candidate: then the last release). What `Link.nextWakeup`
    /// adds to packets still in the bottleneck, so a busy stage does not wake the loop at every departure.
    public func earliestRelease(departingAt departure: Instant) -> Instant {
        let own = departure + minimumDelay
        guard heap.isEmpty, variation.jitter?.mayReorder != true else { return own }
        let floor = head < fifo.count && !fifo[head].held ? fifo[head].packet.release : lastReleased
        return max(own, floor)
    }

    /// The delay (trace or constant) plus a jitter draw, clamped at 0, for a packet leaving at `now`.
    private func drawDelay(now: Instant) -> Nanoseconds {
        let base = variation.trace.map { $0.delay(at: now.since(start)) } ?? delay
        let j = variation.jitter.map { $0.offset(using: &jitterRandom) } ?? 0
        return max(0, base + j)
    }

    public func enqueue(_ packet: Packet, now: Instant) -> Bool {
        var p = packet
        p.release = now + drawDelay(now: now)
        entered += 1
        if variation.jitter?.mayReorder == true {
            pushHeap(p)
        } else {
            enqueueInOrder(p)
        }
        return true
    }

    public func dequeue(now: Instant) -> Packet? {
        if !heap.isEmpty {
            guard heap[0].release <= now else { return nil }
            return popHeap()
        }
        guard head < fifo.count, fifo[head].packet.release <= now else { return nil }
        let p = fifo[head].packet
        head += 1
        lastReleased = p.release
        if head == fifo.count {
            fifo.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 && head * 2 >= fifo.count {
            fifo.removeFirst(head)
            head = 0
        }
        return p
    }

    public func nextWakeup(now: Instant) -> Instant? {
        if let h = heap.first { return h.release }
        return head < fifo.count ? fifo[head].packet.release : nil
    }

    // MARK: order-keeping FIFO and explicit reordering

    private var tailRelease: Instant { head < fifo.count ? fifo[fifo.count - 1].packet.release : lastReleased }

    private func enqueueInOrder(_ packet: Packet) {
        var p = packet
        let own = p.release
        // A held packet at the tail swaps with this one if this one leaves within its hold.
        if head < fifo.count, fifo[fifo.count - 1].held {
            let heldIndex = fifo.count - 1
            let before = heldIndex > head ? fifo[heldIndex - 1].packet.release : lastReleased
            let release = max(own, before)
            fifo[heldIndex].held = false
            if release <= fifo[heldIndex].packet.release {
                p.release = release
                fifo[heldIndex].packet.release = max(fifo[heldIndex].ownRelease, release)
                fifo.insert(Entry(packet: p, ownRelease: own), at: heldIndex)
                return
            }
        }
        p.release = max(own, tailRelease)
        switch variation.reordering {
        case .swap(let probability, let maxHold)? where reorderRandom.nextUnit() < probability:
            let held = p.release
            p.release = held + maxHold
            fifo.append(Entry(packet: p, held: true, ownRelease: held))
        case .jump(let distance, let trigger)? where jumps(trigger):
            let at = max(head, fifo.count - distance)
            if at < fifo.count { p.release = fifo[at].packet.release }
            fifo.insert(Entry(packet: p, ownRelease: own), at: at)
        default:
            fifo.append(Entry(packet: p, ownRelease: own))
        }
    }

    private func jumps(_ trigger: Reordering.JumpTrigger) -> Bool {
        switch trigger {
        case .probability(let p): return reorderRandom.nextUnit() < p
        case .every(let k): return k > 0 && entered % Int64(k) == 0
        }
    }

    // MARK: reordering jitter: a binary min-heap by (release, sequence)

    private func before(_ a: Packet, _ b: Packet) -> Bool {
        a.release != b.release ? a.release < b.release : a.sequence < b.sequence
    }

    private func pushHeap(_ p: Packet) {
        heap.append(p)
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard before(heap[i], heap[parent]) else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    private func popHeap() -> Packet {
        let top = heap[0]
        let last = heap.removeLast()
        guard !heap.isEmpty else { return top }
        heap[0] = last
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count, before(heap[l], heap[m]) { m = l }
            if r < heap.count, before(heap[r], heap[m]) { m = r }
            if m == i { break }
            heap.swapAt(i, m)
            i = m
        }
        return top
    }
}
