import BenchCore

/// When the link can send: starts serializing a packet and says when its serialization ends.
public protocol LinkServer: AnyObject {
    /// Starts serializing `size` bytes at `start` (the packet arrived at `arrival` ≤ `start`);
    /// returns the instant its serialization ends (its departure from the bottleneck).
    func serve(size: Int, arrival: Instant, start: Instant) -> Instant
    /// The interface went down at `now`: whatever was scheduled after `now` is forgotten.
    func reset(now: Instant)
}

/// The bottleneck: a queue discipline drained by a server, on a dequeue-time contract.
///
/// The server holds at most one packet (the one being serialized, its `departure` = the end of
/// its serialization). When that ends, the discipline is asked for the next packet at that very
/// instant, so the discipline sees each packet's true sojourn and can drop, mark or reorder at
/// dequeue. Nothing runs on a timer: `dequeue(now:)` replays, in order, every serialization
/// that ended by `now`, and `nextWakeup` is the end of the current one.
public class Bottleneck: DisciplineSink {
    public let discipline: any QueueDiscipline
    let server: any LinkServer
    private var serving: Packet?
    /// Packets whose serialization ended (replayed by `enqueue`) and not yet taken by `dequeue`.
    private var done = PacketRing(capacity: 16)
    /// Receives the discipline's drops and marks (the link); nil: they are forgotten. Not `weak`:
    /// a weak reference gives the link a side table, and every retain and release of it (several per
    /// packet in the packet loop) then takes the runtime's slow path (5% of the loop's time at
    /// 1 Gbit/s). The link owns this bottleneck privately and sets itself here, so it outlives it.
    unowned(unsafe) var sink: (any DisciplineSink)?

    public init(discipline: any QueueDiscipline, server: any LinkServer) {
        self.discipline = discipline
        self.server = server
    }

    /// Packets held (admitted, not yet departed, the one in serialization included), and their bytes.
    public var queuedPackets: Int { discipline.backlogPackets + (serving == nil ? 0 : 1) + done.count }
    public var queuedBytes: Int { discipline.backlogBytes + Int(serving?.size ?? 0) + doneBytes }
    private var doneBytes = 0

    /// Offers a packet at `now`; false: the discipline refused it. Serializations that ended by
    /// `now` are replayed first (their packets wait for `dequeue`), so the discipline sees the
    /// backlog as it is at `now`.
    public func enqueue(_ packet: Packet, now: Instant) -> Bool {
        while let s = serving, s.departure <= now {
            done.append(s)
            doneBytes += Int(s.size)
            serving = nil
            startNext(at: s.departure)
        }
        guard discipline.enqueue(packet, now: now, serving: Int(serving?.size ?? 0), sink: self) else { return false }
        if serving == nil { startNext(at: now) }
        return true
    }

    /// The next packet whose serialization ended by `now`, `departure` stamped, or nil.
    public func dequeue(now: Instant) -> Packet? {
        if let d = done.popFirst() {
            doneBytes -= Int(d.size)
            return d
        }
        guard let done = serving, done.departure <= now else { return nil }
        serving = nil
        startNext(at: done.departure)
        return done
    }

    /// When the packet in serialization departs (nil: the bottleneck is empty).
    public func nextWakeup(now: Instant) -> Instant? { done.first?.departure ?? serving?.departure }

    /// Empties the bottleneck as an interface going down at `now` would; `body` gets each packet
    /// (the one in serialization first).
    public func flush(now: Instant, _ body: (Packet) -> Void) {
        while let d = done.popFirst() { body(d) }
        doneBytes = 0
        if let s = serving { body(s) }
        serving = nil
        discipline.flush(body)
        server.reset(now: now)
    }

    private func startNext(at t: Instant) {
        guard var p = discipline.dequeue(now: t, sink: self) else { return }
        p.departure = server.serve(size: Int(p.size), arrival: p.arrival, start: t)
        serving = p
    }

    public func discipline(dropped packet: Packet, at: Instant) { sink?.discipline(dropped: packet, at: at) }
    public func discipline(marked packet: Packet, at: Instant) { sink?.discipline(marked: packet, at: at) }
}
