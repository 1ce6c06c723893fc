import BenchCore

/// Serializes at a constant bit rate (or in no time, when the rate is nil).
///
/// A packet's serialization starts when both it has arrived and the previous one has left.
/// Computed in integers with the remainder carried (the rate is rounded to whole bit/s), so a long
/// back-to-back run never drifts; an idle link starts afresh on the next arrival.
public final class ConstantRateServer: LinkServer {
    public let bitsPerSecond: Double?
    private let wholeBitsPerSecond: Int64
    private var busyUntil = Instant(nanoseconds: 0)
    private var busyRemainder: Int64 = 0  // sub-nanosecond part of `busyUntil`, in 1/rate ns

    public init(bitsPerSecond: Double?) {
        self.bitsPerSecond = bitsPerSecond.flatMap { $0 > 0 ? $0 : nil }
        wholeBitsPerSecond = Int64(max(1, (bitsPerSecond ?? 1).rounded()))
    }

    public func serve(size: Int, arrival: Instant, start: Instant) -> Instant {
        guard bitsPerSecond != nil else { return start }
        // Arrived to an idle server: start afresh (back to back, the remainder carries).
        if busyUntil <= arrival { busyUntil = start; busyRemainder = 0 }
        let scaled = Int64(size) * 8_000_000_000 + busyRemainder
        busyUntil = busyUntil + scaled / wholeBitsPerSecond
        busyRemainder = scaled % wholeBitsPerSecond
        return busyUntil
    }

    public func reset(now: Instant) {
        busyUntil = now
        busyRemainder = 0
    }

    /// Serialization time of `bytes` at this rate (0 when unlimited).
    public func serialization(bytes: Int) -> Nanoseconds {
        bitsPerSecond == nil ? 0 : Int64(bytes) * 8_000_000_000 / wholeBitsPerSecond
    }
}

/// A drop-tail queue drained at a constant bit rate: the bottleneck netbench always had.
public final class ConstantRateQueue: Bottleneck {
    public let bitsPerSecond: Double?
    public let limit: QueueLimit

    public init(bitsPerSecond: Double?, limit: QueueLimit) {
        let server = ConstantRateServer(bitsPerSecond: bitsPerSecond)
        self.bitsPerSecond = server.bitsPerSecond
        self.limit = limit
        super.init(discipline: DropTail(limit: limit), server: server)
    }
}
