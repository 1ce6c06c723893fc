import BenchCore

/// A link direction driven on a virtual clock: what the model alone does to a given stream of
/// packets. Calibration compares the real emulator against it (same configuration, same arrival
/// times, another seed: the distribution, not the draws, must match).
public enum LinkSimulation {
    /// One released packet: its arrival sequence (from 1) and its one-way delay (release − arrival).
    public struct Release: Sendable, Equatable {
        public var sequence: Int64
        public var delay: Nanoseconds
    }

    /// Offers packets of `size` bytes at the `arrivals` offsets (non-decreasing) and releases
    /// them at exactly their release times; the releases in the order the link makes them, and
    /// the packets it released out of arrival order (RFC 4737). Dropped packets are absent.
    public static func run(
        _ configuration: LinkConfiguration, arrivals: [Nanoseconds], size: Int, seed: UInt64
    ) -> (releases: [Release], reordered: Int64) {
        let origin = Instant(nanoseconds: 1_000_000_000)
        let link = Link(configuration: configuration, start: origin, seed: seed)
        var out: [Release] = []
        out.reserveCapacity(arrivals.count)
        var now = origin
        var next = 0
        func release() {
            while let p = link.dequeue(now: now) {
                out.append(Release(sequence: p.sequence, delay: p.release.since(p.arrival)))
            }
        }
        while true {
            let arrival = next < arrivals.count ? origin + arrivals[next] : nil
            let wake = link.nextWakeup(now: now)
            if let a = arrival, wake.map({ a <= $0 }) ?? true {
                now = max(now, a)
                _ = link.enqueue(Packet(handle: Int32(truncatingIfNeeded: next), size: size, arrival: now), now: now)
                next += 1
            } else if let w = wake {
                now = max(now, w)
            } else {
                break
            }
            release()
        }
        return (out, link.counters.reordered.packets)
    }
}
