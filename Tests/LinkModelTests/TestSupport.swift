import BenchCore
import LinkModel

/// Virtual time helpers: instants are milliseconds from an arbitrary origin.
let origin = Instant(nanoseconds: 1_000_000_000)

func at(ms: Double) -> Instant { origin + Nanoseconds.milliseconds(ms) }
func at(ns: Int64) -> Instant { origin + ns }

func packet(_ handle: Int, size: Int = 1500, arrival: Instant) -> Packet {
    Packet(handle: Int32(handle), size: size, arrival: arrival)
}

/// Drains every packet the link releases up to `until`, stepping to each wakeup exactly.
func drain(_ link: Link, until: Instant) -> [Packet] {
    var out: [Packet] = []
    var now = origin
    while let next = link.nextWakeup(now: now), next <= until {
        now = max(now, next)
        while let p = link.dequeue(now: now) { out.append(p) }
    }
    return out
}
