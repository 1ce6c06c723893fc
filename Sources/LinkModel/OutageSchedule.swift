import BenchCore

/// Scheduled outage windows as absolute instants, merged and sorted, walked forwards in time.
/// Pure: the link asks "what changes up to `now`?" and the schedule answers.
public struct OutageSchedule: Sendable {
    public struct Transition: Sendable, Equatable {
        public var at: Instant
        public var down: Bool
    }

    private var transitions: [Transition] = []
    private var next = 0

    /// `outages` are offsets from `start`; overlapping or touching windows merge, empty ones vanish.
    public init(outages: [Outage], start: Instant) {
        let windows = outages.filter { $0.end > $0.start }.sorted { $0.start < $1.start }
        var merged: [Outage] = []
        for w in windows {
            if let last = merged.last, w.start <= last.end {
                merged[merged.count - 1].end = max(last.end, w.end)
            } else {
                merged.append(w)
            }
        }
        for w in merged {
            transitions.append(Transition(at: start + max(0, w.start), down: true))
            transitions.append(Transition(at: start + w.end, down: false))
        }
    }

    /// The next transition not yet taken, if it is due at `now`; taking it advances the schedule.
    public mutating func takeTransition(dueBy now: Instant) -> Transition? {
        guard next < transitions.count, transitions[next].at <= now else { return nil }
        next += 1
        return transitions[next - 1]
    }

    public var upcoming: Transition? { next < transitions.count ? transitions[next] : nil }
}
