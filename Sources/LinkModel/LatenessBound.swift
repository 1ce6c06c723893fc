import BenchCore

/// How far the emulator's release lateness could have moved a figure of a run.
///
/// A figure on the page's critical path is a chain of `roundTrips` round trips, each crossing
/// the emulator twice (request and response), and a crossing ends when the last of its packets
/// is released. Every crossing may be late by the typical lateness (p50); the tail (p99 − p50)
/// strikes a crossing when one of its packets at risk is among the 1% latest. A packet is at
/// risk when its lateness can outlast the packets still queued behind it at the bottleneck:
/// with packets leaving every `packetSpacing`, only the last 1 + ⌈p99 / spacing⌉ of a crossing
/// (all of them when the spacing is unknown). So
///
///     crossings  = 2 × round trips
///     at risk    = min(packets, crossings × (1 + ⌈p99 / spacing⌉))
///     struck     = min(crossings, max(1, ⌈0.01 × at risk⌉))
///     bound      = crossings × p50 + struck × (p99 − p50)
///
/// It counts every late release as a delay of the figure, which is conservative: lateness of a
/// packet that waits behind others at the bottleneck anyway, or that no one waits for, moves
/// nothing.
public struct LatenessBound: Sendable, Equatable {
    public var crossings: Int
    public var tailCrossings: Int
    public var bound: Nanoseconds

    public init(
        latenessP50: Nanoseconds, latenessP99: Nanoseconds, roundTrips: Int, packets: Int,
        packetSpacing: Nanoseconds? = nil
    ) {
        crossings = 2 * max(0, roundTrips)
        var atRisk = max(0, packets)
        if let spacing = packetSpacing, spacing > 0 {
            let perCrossing = 1 + Int((Double(max(0, latenessP99)) / Double(spacing)).rounded(.up))
            atRisk = min(atRisk, crossings * perCrossing)
        }
        let struck = Int((Double(atRisk) * 0.01).rounded(.up))
        tailCrossings = min(crossings, max(1, struck))
        let p50 = max(0, latenessP50), tail = max(0, latenessP99 - p50)
        bound = Nanoseconds(crossings) * p50 + Nanoseconds(tailCrossings) * tail
    }

    /// The share of `figure` (same unit as the bound: nanoseconds) the lateness could account for.
    public func share(of figure: Nanoseconds) -> Double? {
        figure > 0 ? Double(bound) / Double(figure) : nil
    }

    /// Whether the lateness could move `figure` by more than `limit` (1% by default). A figure
    /// that is unknown or zero cannot be judged and is not flagged.
    public func couldMove(_ figure: Nanoseconds, byMoreThan limit: Double = 0.01) -> Bool {
        (share(of: figure) ?? 0) > limit
    }

    /// How often full-size (1,500-byte) packets leave a bottleneck of `bitsPerSecond`; nil when
    /// unknown or unlimited.
    public static func packetSpacing(bitsPerSecond: Double?) -> Nanoseconds? {
        guard let bps = bitsPerSecond, bps > 0 else { return nil }
        return Nanoseconds((1_500 * 8 / bps * 1e9).rounded())
    }

    /// Full-size packets (1,448 bytes of payload each: MTU 1500 less IPv4, TCP and timestamp
    /// headers) needed for `bytes`, plus `overhead` for handshakes and requests.
    public static func packets(forBytes bytes: Int64, overhead: Int = 0) -> Int {
        Int((max(0, bytes) + 1_447) / 1_448) + overhead
    }
}

extension PathConfiguration {
    /// The round trip the link model gives a lone packet of `bytes` (IP packet size) sent up and
    /// echoed down with an empty queue: both delays plus its serialization each way, rounded as
    /// `ConstantRateQueue` rounds. nil on a trace link, where the wait for the next delivery
    /// opportunity depends on when the packet arrives.
    public func predictedRoundTrip(packetBytes bytes: Int) -> Nanoseconds? {
        func serialization(_ rate: LinkRate) -> Nanoseconds? {
            switch rate {
            case .unlimited: return 0
            case .constant(let bps): return Int64(bytes) * 8_000_000_000 / Int64(max(1, bps.rounded()))
            case .trace: return nil
            }
        }
        guard let up = serialization(uplink.rate), let down = serialization(downlink.rate) else { return nil }
        return roundTrip + up + down
    }
}
