import BenchCore
import BenchModel
import LinkModel

/// A profile's timed changes as the emulator's path events: once (every run, `netbench shell`),
/// or cycle after cycle (`netbench shell --loop`).
package enum ProfileSchedule {
    /// The emulator's part of the profile's events: a switch activates the new path and takes the
    /// old one down; an outage takes the active path down and up again. `firstPath` is active at 0.
    package static func events(of profile: Profile, firstPath: String) -> [PathEvent] {
        var active = firstPath
        var out: [PathEvent] = []
        for e in (profile.events ?? []).sorted(by: { $0.at.nanoseconds < $1.at.nanoseconds }) {
            switch e.type {
            case .switch:
                guard let to = e.to else { continue }
                out.append(PathEvent(at: e.at.nanoseconds, path: to, action: .activate))
                out.append(PathEvent(at: e.at.nanoseconds, path: active, action: .down))
                active = to
            case .outage:
                let end = e.at.nanoseconds + (e.duration?.nanoseconds ?? 0)
                out.append(PathEvent(at: e.at.nanoseconds, path: active, action: .down))
                out.append(PathEvent(at: end, path: active, action: .up))
            case .rebindPort:
                out.append(PathEvent(at: e.at.nanoseconds, path: active, action: .rebindPort))
            case .rebindAddr:
                out.append(PathEvent(at: e.at.nanoseconds, path: active, action: .rebindAddress))
            }
        }
        return out
    }

    /// The length of one cycle of `--loop`: from 0 to the end of the last event or outage window,
    /// plus the offset of the first one, so that the gap between cycles equals the lead-in of the
    /// first (events at 5 s and 10 s repeat at 20 s and 25 s). nil when nothing is timed.
    package static func loopPeriod(events: [PathEvent], paths: [PathConfiguration]) -> Nanoseconds? {
        let windows = paths.flatMap { $0.uplink.outages + $0.downlink.outages }
        let starts = events.map(\.at) + windows.map(\.start)
        let ends = events.map(\.at) + windows.map(\.end)
        guard let first = starts.min(), let last = ends.max(), last + first > 0 else { return nil }
        return last + first
    }

    /// Cycle `k` (≥ 1) of `--loop`, as offsets from the emulator's start: at `k × period` every
    /// path comes up and the first path becomes active again (the state at 0), then the profile's
    /// events and the paths' outage windows (each taking its path down and up) follow as in cycle 0,
    /// where the links' own outage schedules played them.
    package static func cycle(
        _ k: Int, period: Nanoseconds, events: [PathEvent], paths: [PathConfiguration]
    ) -> [PathEvent] {
        let origin = Nanoseconds(k) * period
        var out = paths.map { PathEvent(at: origin, path: $0.name, action: .up) }
        if let first = paths.first { out.append(PathEvent(at: origin, path: first.name, action: .activate)) }
        for p in paths {
            for w in p.uplink.outages where w.end > w.start {
                out.append(PathEvent(at: origin + w.start, path: p.name, action: .down))
                out.append(PathEvent(at: origin + w.end, path: p.name, action: .up))
            }
        }
        out += events.map { PathEvent(at: origin + $0.at, path: $0.path, action: $0.action) }
        return out
    }
}
