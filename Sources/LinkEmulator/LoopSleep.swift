import BenchCore

/// How long the packet loop sleeps in one pass, decided from its clock readings alone (pure, so
/// tests run it on a virtual clock).
///
/// Three rules, in order:
/// - **Until the next release** (default mode), or, in the precise mode, until `spinMargin` before
///   it and then in hops of at most `pollHop`.
/// - **Warm while traffic flows**: within `warmWindow` of the last packet read or written, no
///   sleep is longer than `warmHop`. How late a sleeping thread wakes depends on how long it
///   slept: measured on a 2-vCPU KVM guest (SCHED_FIFO, slack 1 ns, other work running), 100 µs
///   sleeps woke 9 µs late at p50, 25 ms sleeps 44 µs at p50 and 244 µs at p99; with the machine
///   idle, a lone ping's releases after 25 ms sleeps were 140 µs late at p50 and 275–300 µs at
///   p99, against 12 µs and 35–50 µs with 200 µs hops (a vCPU halted for long is descheduled by
///   the hypervisor; one that halts briefly is still polled by it). Where a packet's arrival is
///   stamped when the loop reads it (links of 500 Mbit/s or more, see `ArrivalStamps`), a late
///   wake on a readable TUN also delays it unseen; short hops keep both the release and the read
///   punctual. Measured with ping every 50 ms (10 Mbit/s,
///   25 ms each way, idle VM): RTT p50/p99 50.7/51.0–51.5 ms without hops; 50.4/50.5–50.6 with
///   hops of 100 µs (9.3% of a core) or 200 µs (5.5–6.2%); 50.4/50.7–50.9 with 400 µs (4.5%),
///   whose releases were already 27 µs late at p50. After the window the loop sleeps until I/O or
///   the next release, using no CPU when nothing flows.
/// - **Drain**: while a drain is awaited, no sleep is longer than its quiet time.
/// - **Spin before a release** (`spinWindow`, when the `SpinBudget` allows): the last stretch
///   before a release is polled (epoll with a zero timeout, which also reads arrivals) instead
///   of slept, and every longer sleep ends that much earlier. A timed wake-up is late by the
///   timer floor (with warm hops 12 µs at p50 and 38–49 µs at p99 here); a release polled for
///   is late by the poll's period (about a microsecond) unless the hypervisor takes the vCPU.
///
/// `deadline` is set when the sleep ends at a release (its late wake-up is the timer floor's
/// share of that release's lateness); hops and drain checks end at no release and have none.
public struct LoopSleep: Equatable, Sendable {
    /// nil: until I/O or a wake-up signal.
    public var timeout: Nanoseconds?
    public var deadline: Instant?
    /// A zero-timeout pass spent waiting for a release within the spin window (its time is
    /// charged to the `SpinBudget`), not a pass with work waiting.
    public var spin = false

    public init(timeout: Nanoseconds?, deadline: Instant?, spin: Bool = false) {
        self.timeout = timeout
        self.deadline = deadline
        self.spin = spin
    }

    public static let pollHop: Nanoseconds = 50_000
    /// The hop while warm: within the hypervisor's halt-polling window (KVM's default is 200 µs).
    public static let warmHop: Nanoseconds = 200_000
    /// How long the loop stays warm after the last packet: longer than the gaps of a page load's
    /// think times or a 50 ms ping, short enough that an idle shell uses no CPU after a second.
    public static let warmWindow: Nanoseconds = 1_000_000_000
    /// How long before a release the loop polls instead of sleeping: longer than the warm hop's
    /// wake-up lateness at p99 (38–49 µs measured on this 2-vCPU VM), so that a release is not
    /// left to a timer.
    public static let spinWindow: Nanoseconds = 60_000

    public static func plan(
        now: Instant, nextRelease: Instant?, moreWaiting: Bool, spinMargin: Nanoseconds?,
        lastPacket: Instant?, drainQuiet: Nanoseconds, warmWindow: Nanoseconds = warmWindow,
        warmHop: Nanoseconds = warmHop, spinWindow: Nanoseconds = 0
    ) -> LoopSleep {
        if moreWaiting { return LoopSleep(timeout: 0, deadline: nil) }
        var sleep = LoopSleep(timeout: nil, deadline: nil)
        if let next = nextRelease {
            let wait = max(0, next.since(now))
            if spinWindow > 0, wait > 0, wait <= spinWindow { return LoopSleep(timeout: 0, deadline: nil, spin: true) }
            // With a spin window the sleep ends that much before the release, the rest is polled.
            let asleep = spinWindow > 0 && wait > 0 ? wait - spinWindow : wait
            let t: Nanoseconds
            if let spinMargin {
                t = wait <= spinMargin ? min(asleep, pollHop) : asleep - min(asleep, spinMargin)
            } else {
                t = asleep
            }
            sleep.timeout = t
            if t > 0 { sleep.deadline = now + t }
        }
        if let last = lastPacket, warmWindow > 0, now.since(last) < warmWindow,
            sleep.timeout.map({ $0 > warmHop }) ?? true
        {
            sleep = LoopSleep(timeout: warmHop, deadline: nil)
        }
        if drainQuiet > 0, sleep.timeout.map({ $0 > drainQuiet }) ?? true {
            sleep = LoopSleep(timeout: drainQuiet, deadline: nil)
        }
        return sleep
    }
}

/// How much polling before releases the loop may spend: at most `allowance` of each `period`
/// (pure; the loop charges each spin pass's time). Past the allowance, releases are slept to as
/// without a spin window, so a loop that releases packets every few microseconds (gigabit rates,
/// where the next release is always within the window) does not turn into a busy loop.
public struct SpinBudget: Equatable, Sendable {
    public static let period: Nanoseconds = 100_000_000
    /// 2% of a core: a ping's two releases per echo take about 0.1 ms of it.
    public static let allowance: Nanoseconds = 2_000_000

    public var period: Nanoseconds
    public var allowance: Nanoseconds
    private var periodStart: Instant?
    private var spentInPeriod: Nanoseconds = 0
    /// Everything charged since the start (recorded per run).
    public private(set) var total: Nanoseconds = 0

    public init(period: Nanoseconds = SpinBudget.period, allowance: Nanoseconds = SpinBudget.allowance) {
        self.period = period
        self.allowance = allowance
    }

    /// Whether a spin pass may start at `now`.
    public mutating func allows(at now: Instant) -> Bool {
        roll(to: now)
        return spentInPeriod < allowance
    }

    /// Charges `spent` nanoseconds of polling that ended at `now`.
    public mutating func charge(_ spent: Nanoseconds, at now: Instant) {
        roll(to: now)
        spentInPeriod += max(0, spent)
        total += max(0, spent)
    }

    private mutating func roll(to now: Instant) {
        guard let start = periodStart, now.since(start) < period else {
            periodStart = now
            spentInPeriod = 0
            return
        }
    }
}
