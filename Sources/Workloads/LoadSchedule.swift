import BenchCore

/// When the requests of an open-model load are meant to leave (`netbench load --rate`): a constant
/// arrival rate per step, steps back to back. Request k of a step at rate r is due at
/// `stepStart + k / r` whatever happened to the requests before it, so a stalled server or a
/// saturated generator shows up as requests sent after their intended time (wrk2's correction
/// of coordinated omission), not as fewer requests. Pure: the caller passes `now`.
public struct LoadSchedule: Sendable, Equatable {
    public struct Step: Sendable, Equatable, Codable {
        /// Requests per second.
        public var rate: Double
        public var duration: Nanoseconds
        public init(rate: Double, duration: Nanoseconds) { self.rate = rate; self.duration = duration }
    }

    public let steps: [Step]
    public let start: Instant
    private var step = 0
    private var stepStart: Instant
    private var indexInStep: Int64 = 0

    public init(steps: [Step], start: Instant) {
        precondition(steps.allSatisfy { $0.rate > 0 && $0.duration > 0 }, "steps need a positive rate and duration")
        self.steps = steps; self.start = start; stepStart = start
    }

    /// A constant rate for `duration`.
    public static func constant(rate: Double, duration: Nanoseconds, start: Instant) -> LoadSchedule {
        LoadSchedule(steps: [Step(rate: rate, duration: duration)], start: start)
    }

    /// `count` steps of `stepDuration` from `from` to `to` req/s, evenly spaced (one step: `from`).
    public static func ramp(from: Double, to: Double, count: Int, stepDuration: Nanoseconds) -> [Step] {
        (0..<max(count, 1)).map { i in
            let r = count > 1 ? from + (to - from) * Double(i) / Double(count - 1) : from
            return Step(rate: r, duration: stepDuration)
        }
    }

    public var end: Instant { start + steps.reduce(0) { $0 + $1.duration } }

    /// The intended time of the next request, nil once the last step is over.
    public var next: Instant? {
        var s = step, begin = stepStart, k = indexInStep
        while s < steps.count {
            let offset = Nanoseconds((Double(k) * 1e9 / steps[s].rate).rounded())
            if offset < steps[s].duration { return begin + offset }
            begin = begin + steps[s].duration; s += 1; k = 0
        }
        return nil
    }

    /// The step a request intended at `t` belongs to.
    public func stepIndex(at t: Instant) -> Int {
        var begin = start
        for (i, s) in steps.enumerated() {
            begin = begin + s.duration
            if t < begin { return i }
        }
        return steps.count - 1
    }

    /// Takes every request due by `now` (in order): their intended send times and steps. Once `out`
    /// holds `limit` entries, the rest of what is due is skipped and counted per step in `skipped`
    /// (a rate the generator cannot hold then costs no memory).
    public mutating func take(
        dueBy now: Instant, into out: inout [(intended: Instant, step: Int)], limit: Int = .max,
        skipped: inout [Int]
    ) {
        while step < steps.count {
            if out.count >= limit {
                let rate = steps[step].rate
                let inStep = Int64((Double(steps[step].duration) * rate / 1e9).rounded(.up))
                let due = min(inStep, Int64((Double(now.since(stepStart)) * rate / 1e9).rounded(.down)) + 1)
                guard due > indexInStep else { return }
                skipped[step] += Int(due - indexInStep)
                indexInStep = due
            }
            let offset = Nanoseconds((Double(indexInStep) * 1e9 / steps[step].rate).rounded())
            if offset >= steps[step].duration {
                stepStart = stepStart + steps[step].duration; step += 1; indexInStep = 0
                continue
            }
            let t = stepStart + offset
            if t > now { return }
            if out.count >= limit { continue }
            out.append((t, step))
            indexInStep += 1
        }
    }

    public mutating func take(dueBy now: Instant, into out: inout [(intended: Instant, step: Int)]) {
        var skipped = Array(repeating: 0, count: steps.count)
        take(dueBy: now, into: &out, skipped: &skipped)
    }
}
