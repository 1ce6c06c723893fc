import BenchCore
import LinkModel

/// When the packet loop releases a busy fast link's packets: in batches, one pass per `window`
/// instead of one per packet (pure, so tests run it on a virtual clock).
///
/// At 1 Gbit/s a full-size segment leaves the bottleneck every 12 µs, and a loop that wakes for
/// every release spends its core on one epoll sleep and one TUN write (into which the receiving
/// endpoint's TCP input runs) per segment. While a link streams (its next release follows the
/// previous one by at most half the window, and more packets are in flight behind it), the loop
/// waits past the next release for those due after it, up to `window`, and releases them in one
/// pass, where the offload writer merges each flow's segments into one GSO super-packet
/// (`OffloadWriter`): fewer, bigger writes, and the receiver's stack works once per super-packet.
///
/// The link model is untouched: every packet keeps its own release time (serialization, queue
/// occupancy, loss, AQM decision and ECN mark, all decided at the model's instants), and the wait
/// is part of each packet's lateness (write time − release time), the figure `calibrate` judges:
/// the first packet of a batch is at most `window` late on top of the loop's own wake-up. A
/// burst's tail is not held longer than the packets behind it need: with `n` packets in flight,
/// the wait is at most `(n − 1)` spacings. A packet that follows a gap (a lone echo, an ACK, a
/// burst's first packet) leaves at its release. Only links of `minimumRate` or more get a window:
/// below it the loop has CPU to spare and every profile keeps its lateness as before.
public struct ReleaseWindow: Equatable, Sendable {
    /// The longest a packet waits past its release for the ones due after it (0: no window).
    public var window: Nanoseconds

    /// 100 µs: about 8 full-size segments per pass at 1 Gbit/s, 80 at 10 Gbit/s, well inside the
    /// lateness target (timer floor p99 + 0.3 ms); the emulator's default
    /// (`EmulatedNetwork.Options.releaseWindow`).
    public static let defaultWindow: Nanoseconds = 100_000
    /// The link rate from which a window applies (as `EmulatedNetwork.napiThreadRate`).
    public static let minimumRate: Double = 500e6

    public init(window: Nanoseconds = ReleaseWindow.defaultWindow) {
        self.window = max(0, window)
    }

    /// When to release a link whose next packet is due at `next`: at `next`, or up to `window`
    /// later while the link streams. `previous` is the release time of the link's last released
    /// packet (nil: none yet), `inFlight` the packets admitted and not yet released (`next`'s included).
    public func releaseAt(next: Instant, previous: Instant?, inFlight: Int) -> Instant {
        guard window > 0, inFlight > 1, let previous else { return next }
        let spacing = next.since(previous)
        guard spacing > 0, spacing <= window / 2 else { return next }
        return next + min(window, Nanoseconds(inFlight - 1) * spacing)
    }

    /// The loop's next pass among windowed links: `held` the earliest end of a window (a streaming
    /// link's batch), `free` the earliest release of a windowed link that is not held (an ACK on the
    /// reverse direction, a burst's first packet). A free release due at most `window` before a
    /// window ends waits for it, so that both leave in one pass (its wait counted in its lateness,
    /// as a held packet's is); otherwise the earlier of the two.
    public func nextPass(held: Instant?, free: Instant?) -> Instant? {
        guard let f = free else { return held }
        guard let h = held else { return f }
        return h > f && h.since(f) <= window ? h : min(f, h)
    }

    /// Whether a link of this configuration gets the window (`minimumRate` or more; not an
    /// unlimited link, whose packets are due when they arrive and already leave together).
    public static func applies(to link: LinkConfiguration) -> Bool {
        switch link.rate {
        case .unlimited: return false
        case .constant(let bps): return bps >= minimumRate
        case .trace(let t): return t.meanBitsPerSecond >= minimumRate
        }
    }
}

/// One link's batching state in the loop: its window (or none) and the release time of the last
/// packet it released.
struct LinkReleaseGate {
    let window: ReleaseWindow
    private(set) var lastRelease: Instant?

    init(window: ReleaseWindow) { self.window = window }

    /// When the loop may release `link`'s due packets next (nil: it holds none): from then on
    /// any pass releases them.
    @inline(__always)
    func releaseAt(_ link: Link, now: Instant) -> Instant? { plan(link, now: now)?.at }

    /// `releaseAt`, and whether that is a window's end past the next release (`held`).
    @inline(__always)
    func plan(_ link: Link, now: Instant) -> (at: Instant, held: Bool)? {
        guard let next = link.nextWakeup(now: now) else { return nil }
        let at = window.releaseAt(next: next, previous: lastRelease, inFlight: link.inFlight)
        return (at, at > next)
    }

    /// Whether `p`, released by a pass that was (`heldPass`) or was not a window's end, is one the
    /// window did not hold back: every packet of a pass that was not a window's end, and a window's
    /// last packet before a gap (the link's `next` release more than half a window after `p`'s, or
    /// none). A crossing (a request, a response's last bytes) ends with such a packet, whose
    /// lateness is the loop's own and any wait for a window ending soon after it (`nextPass`), not a
    /// hold: a run's lateness bound takes these packets' lateness (`EmulatorReport.unheldLatenessP50`).
    @inline(__always)
    func unheld(_ p: Packet, next: Instant?, heldPass: Bool) -> Bool {
        guard heldPass else { return true }
        guard let next else { return true }
        return next.since(p.release) > window.window / 2
    }

    @inline(__always)
    mutating func released(_ p: Packet) {
        if lastRelease.map({ p.release > $0 }) ?? true { lastRelease = p.release }
    }
}
