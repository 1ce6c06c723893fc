import BenchCore

/// A change to a client path at a time: what the migration scenarios script.
public struct PathEvent: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// The path stops carrying packets both ways (an interface going down).
        case down
        case up
        /// The path becomes the client's default route.
        case activate
    }
    /// Offset from the start of the emulation.
    public var at: Nanoseconds
    public var path: String
    public var action: Action

    public init(at: Nanoseconds, path: String, action: Action) {
        self.at = at
        self.path = path
        self.action = action
    }
}

/// Path events in time order, handed out as they fall due. Pure: the owner passes `now`.
public struct PathSchedule: Sendable {
    public let start: Instant
    public let events: [PathEvent]
    private var next = 0

    public init(events: [PathEvent], start: Instant) {
        // Stable sort: events at the same instant keep the order they were written in.
        self.events = events.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        self.start = start
    }

    /// Events due at `now` not handed out before.
    public mutating func takeDue(now: Instant) -> [PathEvent] {
        var due: [PathEvent] = []
        while next < events.count, start + events[next].at <= now {
            due.append(events[next])
            next += 1
        }
        return due
    }

    /// When the next event falls due, or nil when all are out.
    public var nextDue: Instant? { next < events.count ? start + events[next].at : nil }
}
