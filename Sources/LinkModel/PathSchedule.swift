import BenchCore

/// A change to a client path at a time: what the migration scenarios script.
public struct PathEvent: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// The path stops carrying packets both ways (an interface going down).
        case down
        case up
        /// The path becomes the client's default route.
        case activate
        /// NAT rebinding on the path: new client port (see `NATState`).
        case rebindPort
        /// NAT rebinding on the path: new client address.
        case rebindAddress
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
    /// Events not yet handed out, in time order.
    public private(set) var pending: [PathEvent]
    private var next = 0

    public init(events: [PathEvent], start: Instant) {
        self.start = start
        pending = Self.ordered(events)
    }

    /// Adds events while the schedule runs; those already due come out at the next `takeDue`.
    public mutating func add(_ events: [PathEvent]) {
        pending = Self.ordered(Array(pending[next...]) + events)
        next = 0
    }

    /// Stable sort: events at the same instant keep the order they were given in.
    private static func ordered(_ events: [PathEvent]) -> [PathEvent] {
        events.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }

    /// Events due at `now` not handed out before.
    public mutating func takeDue(now: Instant) -> [PathEvent] {
        var due: [PathEvent] = []
        while next < pending.count, start + pending[next].at <= now {
            due.append(pending[next])
            next += 1
        }
        return due
    }

    /// When the next event falls due, or nil when all are out.
    public var nextDue: Instant? { next < pending.count ? start + pending[next].at : nil }
}
