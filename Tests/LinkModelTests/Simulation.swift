import Foundation
import BenchCore
import LinkModel

/// A virtual-clock network for the discipline tests: window-based senders (CUBIC, RFC 9438: slow
/// start, then W(t) = C·(t − K)³ + W_max with C = 0.4, β = 0.7 on a loss or a CE mark, at most once
/// per window: a packet sent before the last reduction does not reduce again) and open-loop
/// probes, all through one `Link`; acknowledgements come back `returnDelay` after a packet leaves
/// the link, and a loss is noticed `returnDelay` after the drop.
final class Simulation: LinkObserver {
    struct Flow {
        var hash: UInt32
        var ecn: UInt8
        var size: Int
        /// nil: a window sender; else an open-loop probe sending every `period`.
        var period: Nanoseconds?
        var cwnd = 10.0
        var ssthresh = Double.infinity
        var wMax = 0.0
        var epochStart = Instant(nanoseconds: 0)
        var inFlight = 0
        var lastReduction = Instant(nanoseconds: 0)
        var sent = 0
        var delivered = 0
        var deliveredBytes = 0
        var dropped = 0
        var marked = 0
        /// Drops and marks after warm-up.
        var droppedLater = 0
        var markedLater = 0
        /// Sojourn times (bottleneck arrival → departure, serialization included) after warm-up.
        var sojourns: [Nanoseconds] = []
    }

    private enum Kind { case ack(marked: Bool, sent: Instant), loss(sent: Instant), probe }
    private struct Event: Comparable {
        var at: Instant
        var seq: Int
        var kind: Kind
        var flow: Int
        static func < (a: Event, b: Event) -> Bool { (a.at, a.seq) < (b.at, b.seq) }
        static func == (a: Event, b: Event) -> Bool { a.at == b.at && a.seq == b.seq }
    }

    let link: Link
    let returnDelay: Nanoseconds
    let warmUp: Instant
    var flows: [Flow] = []
    private var heap: [Event] = []
    private var seq = 0
    private(set) var now: Instant
    /// Every departure after warm-up, (departure, sojourn), for time-weighted figures.
    private(set) var departures: [(Instant, Nanoseconds)] = []

    init(link: Link, start: Instant, returnDelay: Nanoseconds, warmUp: Nanoseconds) {
        self.link = link
        self.returnDelay = returnDelay
        self.now = start
        self.warmUp = start + warmUp
        link.observer = self
    }

    /// A window sender whose packets carry `hash` and the ECN codepoint `ecn`.
    @discardableResult
    func addBulk(hash: UInt32, ecn: UInt8 = 0, size: Int = 1500) -> Int {
        flows.append(Flow(hash: hash, ecn: ecn, size: size))
        send(flows.count - 1)
        return flows.count - 1
    }

    /// A probe: one `size`-byte packet every `period`, whatever happens to them.
    @discardableResult
    func addProbe(hash: UInt32, size: Int, period: Nanoseconds) -> Int {
        flows.append(Flow(hash: hash, ecn: 0, size: size, period: period))
        schedule(.probe, flow: flows.count - 1, at: now + period / 2)
        return flows.count - 1
    }

    func run(until end: Instant) {
        while true {
            var next = heap.first?.at
            if let w = link.nextWakeup(now: now), next.map({ w < $0 }) ?? true { next = w }
            guard let t = next, t <= end else { break }
            now = max(now, t)
            while let p = link.dequeue(now: now) {
                schedule(.ack(marked: p.ceMarked, sent: p.arrival), flow: Int(p.handle), at: p.release + returnDelay)
            }
            collectDiscarded()
            while let e = heap.first, e.at <= now {
                pop()
                let f = e.flow
                switch e.kind {
                case .ack(let marked, let sent):
                    flows[f].inFlight -= 1
                    flows[f].delivered += 1
                    flows[f].deliveredBytes += flows[f].size
                    if marked { reduce(f, sent: sent) } else { grow(f) }
                    send(f)
                case .loss(let sent):
                    flows[f].inFlight -= 1
                    reduce(f, sent: sent)
                    send(f)
                case .probe:
                    offer(f)
                    schedule(.probe, flow: f, at: now + flows[f].period!)
                }
            }
        }
        now = end
    }

    // LinkObserver
    func arrived(_ packet: Packet, at: Instant) {}
    func departed(_ packet: Packet) {
        guard packet.departure >= warmUp else { return }
        let sojourn = packet.departure.since(packet.arrival)
        flows[Int(packet.handle)].sojourns.append(sojourn)
        departures.append((packet.departure, sojourn))
    }
    func dropped(_ packet: Packet, cause: LinkVerdict, at: Instant) {
        flows[Int(packet.handle)].dropped += 1
        if at >= warmUp { flows[Int(packet.handle)].droppedLater += 1 }
    }
    func marked(_ packet: Packet, at: Instant) {
        flows[Int(packet.handle)].marked += 1
        if at >= warmUp { flows[Int(packet.handle)].markedLater += 1 }
    }

    private func grow(_ f: Int) {
        if flows[f].cwnd < flows[f].ssthresh {
            flows[f].cwnd += 1
            return
        }
        // CUBIC: approach W_max concavely, then probe beyond it convexly (per ack: (target − cwnd)/cwnd),
        // never slower than Reno's one packet per window.
        let t = Double(now.since(flows[f].epochStart)) / 1e9
        let k = cbrt(flows[f].wMax * (1 - 0.7) / 0.4)
        let target = 0.4 * (t - k) * (t - k) * (t - k) + flows[f].wMax
        flows[f].cwnd += max(1 / flows[f].cwnd, (target - flows[f].cwnd) / flows[f].cwnd)
    }

    private func reduce(_ f: Int, sent: Instant) {
        guard flows[f].period == nil else { return }
        // Once per window: losses and marks of packets sent before the last reduction are the same event.
        guard sent > flows[f].lastReduction else { return }
        flows[f].wMax = flows[f].cwnd
        flows[f].cwnd = max(2, flows[f].cwnd * 0.7)
        flows[f].ssthresh = flows[f].cwnd
        flows[f].lastReduction = now
        flows[f].epochStart = now
    }

    private func send(_ f: Int) {
        guard flows[f].period == nil else { return }
        while Double(flows[f].inFlight) < flows[f].cwnd.rounded(.down) { offer(f) }
    }

    private func offer(_ f: Int) {
        flows[f].sent += 1
        flows[f].inFlight += 1
        let p = Packet(
            handle: Int32(f), size: flows[f].size, arrival: now, flowHash: flows[f].hash, ecn: flows[f].ecn)
        if link.enqueue(p, now: now) != .accepted { schedule(.loss(sent: now), flow: f, at: now + returnDelay) }
        collectDiscarded()
    }

    private func collectDiscarded() {
        while let d = link.takeDiscarded() {
            schedule(.loss(sent: d.arrival), flow: Int(d.handle), at: now + returnDelay)
        }
    }

    private func schedule(_ kind: Kind, flow: Int, at: Instant) {
        seq += 1
        heap.append(Event(at: at, seq: seq, kind: kind, flow: flow))
        var i = heap.count - 1
        while i > 0, heap[i] < heap[(i - 1) / 2] {
            heap.swapAt(i, (i - 1) / 2)
            i = (i - 1) / 2
        }
    }

    private func pop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count, heap[l] < heap[m] { m = l }
            if r < heap.count, heap[r] < heap[m] { m = r }
            if m == i { return }
            heap.swapAt(i, m)
            i = m
        }
    }
}

/// The q-quantile (nearest rank) of some values.
func quantile(_ values: [Nanoseconds], _ q: Double) -> Nanoseconds {
    let s = values.sorted()
    guard !s.isEmpty else { return 0 }
    return s[min(s.count - 1, max(0, Int((q * Double(s.count)).rounded(.up)) - 1))]
}

func ms(_ ns: Nanoseconds) -> Double { Double(ns) / 1e6 }
