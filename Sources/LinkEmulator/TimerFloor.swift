import Foundation
import BenchCore
import SystemIO

/// The machine's timer floor: how late a thread that sleeps until absolute deadlines
/// (clock_nanosleep on CLOCK_MONOTONIC, timer slack 1 ns, the packet loop's nice value) wakes up.
///
/// No sleeping emulator can release packets more punctually than this: it is the bound the
/// emulator's own release lateness is judged against. Measured on a fresh thread so that the
/// slack and nice value apply to it alone, as they do to the packet loop.
public struct TimerFloor: Sendable, Equatable {
    /// Wake-ups measured.
    public var samples: Int
    /// How long the measurement ran.
    public var duration: Nanoseconds
    /// Wake-up lateness (wake time − deadline), nearest-rank percentiles over 1 µs buckets.
    public var p50: Nanoseconds
    public var p99: Nanoseconds
    /// nil when fewer than 1,000 wake-ups were measured (the 99.9th percentile would be a guess).
    public var p999: Nanoseconds?
    public var maximum: Nanoseconds
    /// The scheduling policy the measuring thread ran under (the packet loop's, when granted):
    /// `SCHED_FIFO 10` or `SCHED_OTHER nice -10`.
    public var policy: String = ""
    /// The wake-ups themselves (nil when built from percentiles): what a measured delay is
    /// convolved with before it is compared with the link model's (calibrate's delay check).
    public var histogram: LatenessHistogram?
    /// The median CPU time the measuring thread used per sleep of `shortSleep` and its wake-up
    /// (thread CPU clock read around each sleep), measured after the floor in `shortSleepPhase` of
    /// such sleeps back to back, as the packet loop sleeps between its release passes while traffic
    /// streams: what each of those sleeps costs this machine (see `IdlePolicy`); nil when not measured.
    public var cpuPerWakeUp: Nanoseconds?
    /// The sleeps `cpuPerWakeUp` is taken from: as long as the default release window.
    public static let shortSleep: Nanoseconds = 100_000
    public static let shortSleepPhase: Nanoseconds = 250_000_000
    /// The machine's idle policy when measured (nil when not read).
    public var idle: IdlePolicy?

    public init(
        samples: Int, duration: Nanoseconds, p50: Nanoseconds, p99: Nanoseconds, p999: Nanoseconds?,
        maximum: Nanoseconds
    ) {
        self.samples = samples; self.duration = duration
        self.p50 = p50; self.p99 = p99; self.p999 = p999; self.maximum = maximum
    }

    /// Built from a histogram of wake-up lateness.
    public init(histogram h: LatenessHistogram, duration: Nanoseconds) {
        self.init(
            samples: Int(h.count), duration: duration, p50: h.percentile(0.5), p99: h.percentile(0.99),
            p999: h.count >= 1_000 ? h.percentile(0.999) : nil, maximum: h.maximum)
        histogram = h
    }

    /// Sleeps until absolute deadlines for `duration`, on a new thread with timer slack 1 ns and
    /// `nice`, under SCHED_FIFO at `realtimePriority` when allowed (the packet loop's defaults:
    /// the floor is measured as the loop is scheduled). Blocks the caller for about `duration`
    /// and `shortSleepPhase` (`cpuPerWakeUp`).
    ///
    /// The sleeps are as long as the packet loop's: log-uniform from `shortest` to `longest`
    /// (a fixed seed, so every measurement draws the same lengths). The length matters: measured
    /// here on a busy 2-core VM, 250 µs sleeps woke 0.1 ms late at p99 but 5 ms sleeps 3.8 ms late
    /// (a vCPU that idles longer is more often descheduled), so a floor taken with short sleeps
    /// only would be a bound the emulator could never meet.
    public static func measure(
        duration: Nanoseconds, shortest: Nanoseconds = 50_000, longest: Nanoseconds = 10_000_000,
        nice: Int32? = -10, realtimePriority: Int32? = 10
    ) -> TimerFloor {
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            try? ProcessControl.setTimerSlack(nanoseconds: 1)
            if let nice { try? ProcessControl.setThreadNice(nice) }
            var policy = nice.map { "SCHED_OTHER nice \($0)" } ?? "SCHED_OTHER"
            if let realtimePriority, (try? ProcessControl.setThreadRealtime(priority: realtimePriority)) != nil {
                policy = "SCHED_FIFO \(realtimePriority)"
            }
            var rng = SeededRandom(seed: 0x7131_F100)
            let span = log(Double(longest) / Double(shortest))
            var h = LatenessHistogram()
            let start = Instant.now()
            let end = start + duration
            var now = start
            while now < end {
                let length = Nanoseconds(Double(shortest) * exp(Double.random(in: 0..<span, using: &rng)))
                let deadline = now + length
                ProcessControl.sleep(until: deadline)
                now = Instant.now()
                h.record(now.since(deadline))
            }
            var floor = TimerFloor(histogram: h, duration: now.since(start))
            floor.policy = policy
            var costs: [Nanoseconds] = []
            let phaseEnd = Instant.now() + shortSleepPhase
            while let cpu0 = CPUTime.currentThreadNs(), Instant.now() < phaseEnd {
                ProcessControl.sleep(until: Instant.now() + shortSleep)
                guard let cpu1 = CPUTime.currentThreadNs() else { break }
                costs.append(cpu1 - cpu0)
            }
            if !costs.isEmpty { floor.cpuPerWakeUp = costs.sorted()[costs.count / 2] }
            floor.idle = IdlePolicy.current()
            box.value = floor
            done.signal()
        }
        thread.name = "netbench-timer-floor"
        thread.start()
        done.wait()
        return box.value!
    }

    /// One line: `timer floor p50 0.071 ms, p99 1.402 ms, p99.9 5.1 ms (5,960 wake-ups in 1.5 s)`.
    public var summary: String {
        let ms = { (ns: Nanoseconds) in Units.format(Double(ns) / 1e6, 3) }
        return
            "timer floor p50 \(ms(p50)) ms, p99 \(ms(p99)) ms, p99.9 \(p999.map(ms) ?? "unknown (< 1000 wake-ups)") "
                + "ms, "
            + "max \(ms(maximum)) ms (\(samples) wake-ups in \(Units.format(Double(duration) / 1e9, 2)) s, "
            + "\(policy.isEmpty ? "policy unknown" : policy))"
            + (cpuPerWakeUp.map {
                ", a sleep of \(Units.format(Double(Self.shortSleep) / 1e3, 0)) µs cost "
                    + "\(Units.format(Double($0) / 1e3, 1)) µs of CPU (median)"
            } ?? "")
            + (idle.map { "; \($0.summary)" } ?? "")
    }

    /// `IdlePolicy.advice` for this measurement, or nil.
    public var advice: String? { idle?.advice(cpuPerWakeUp: cpuPerWakeUp) }

    private final class ResultBox: @unchecked Sendable { var value: TimerFloor? }
}

/// Machine-wide CPU time stolen by the hypervisor (/proc/stat, `cpu` line, 8th value), which no
/// scheduling choice of ours can win back.
public enum StealTime {
    /// Steal time of all CPUs together since boot, in nanoseconds; nil when unreadable.
    /// /proc/stat counts in USER_HZ ticks, which Linux fixes at 100 per second for user space.
    public static func total() -> Nanoseconds? {
        guard let text = ProcessControl.readSmallFile("/proc/stat"),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") })
        else { return nil }
        let fields = line.split(separator: " ").dropFirst().compactMap { Int64($0) }
        guard fields.count >= 8 else { return nil }
        return fields[7] * 10_000_000
    }
}

/// The opt-in precise mode of the packet loop.
public enum PreciseMode {
    /// Turns the precise mode on: poll from `spinMargin(floor:)` before each release, under
    /// SCHED_FIFO (priority 10 unless one is set). Under the normal scheduler a thread that polls
    /// uses up its fair share and is then preempted in the middle of its wait: measured here on a
    /// busy 2-core VM, idle release lateness p99 was 20 ms that way against 0.04 ms under FIFO.
    public static func enable(_ options: inout EmulatedNetwork.Options, floor: TimerFloor) {
        options.preciseSpinMargin = spinMargin(floor: floor)
        options.loopRealtimePriority = options.loopRealtimePriority ?? 10
    }

    /// How early the loop stops sleeping before a release: the floor's p99 (the wake-ups later
    /// than that are the 1% the mode cannot save) plus 0.2 ms, within 0.3…5 ms.
    public static func spinMargin(floor: TimerFloor) -> Nanoseconds {
        min(5_000_000, max(300_000, floor.p99 + 200_000))
    }
}
