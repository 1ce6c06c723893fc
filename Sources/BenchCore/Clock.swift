#if canImport(Glibc)
    import Glibc
#endif

/// A point on the monotonic clock (CLOCK_MONOTONIC), in nanoseconds.
///
/// Every timestamp netbench records comes from this clock; wall-clock time is used
/// only for labelling a results directory.
public struct Instant: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: UInt64

    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// Reads CLOCK_MONOTONIC.
    public static func now() -> Instant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Instant(nanoseconds: UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec))
    }

    public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }

    public static func + (a: Instant, d: Nanoseconds) -> Instant {
        Instant(nanoseconds: d >= 0 ? a.nanoseconds &+ UInt64(d) : a.nanoseconds &- UInt64(-d))
    }

    /// Signed distance `self - earlier` in nanoseconds.
    public func since(_ earlier: Instant) -> Nanoseconds {
        Nanoseconds(bitPattern: nanoseconds &- earlier.nanoseconds)
    }

    /// Milliseconds elapsed since `origin`, the unit every results timestamp uses.
    public func milliseconds(since origin: Instant) -> Double {
        Double(since(origin)) / 1_000_000
    }

    public var description: String { "\(nanoseconds)ns" }
}

/// Signed nanoseconds: durations and offsets in the link model and the event loop.
public typealias Nanoseconds = Int64

public extension Nanoseconds {
    static func milliseconds(_ ms: Double) -> Nanoseconds { Nanoseconds((ms * 1_000_000).rounded()) }
    static func microseconds(_ us: Double) -> Nanoseconds { Nanoseconds((us * 1_000).rounded()) }
    static func seconds(_ s: Double) -> Nanoseconds { Nanoseconds((s * 1_000_000_000).rounded()) }
    var inMilliseconds: Double { Double(self) / 1_000_000 }
}
