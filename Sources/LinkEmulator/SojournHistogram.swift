import BenchCore

/// Log-linear buckets over microseconds: values below `2^subBits` µs get a bucket each; above,
/// each power of two is cut into `2^subBits` equal buckets. A value's bucket follows from its
/// highest set bit (a few instructions); the relative width of a bucket is at most `2^-subBits`.
struct LogBuckets: Sendable {
    let subBits: Int
    /// Enough buckets for any non-negative Int64 of microseconds.
    var count: Int { (1 << subBits) * (64 - subBits + 1) }

    @inline(__always)
    func index(ofMicroseconds u: Int64) -> Int {
        let v = UInt64(max(0, u))
        let linear = UInt64(1) << subBits
        if v < linear { return Int(v) }
        let top = 63 - v.leadingZeroBitCount  // ≥ subBits
        let shift = top - subBits
        let sub = Int((v >> shift) & (linear - 1))
        return Int(linear) * (shift + 1) + sub
    }

    /// The inclusive lower edge of bucket `i`, in microseconds.
    func lowerEdge(ofBucket i: Int) -> Int64 {
        let linear = 1 << subBits
        if i < linear { return Int64(i) }
        let edge = UInt64(linear + i % linear) << UInt64(i / linear - 1)
        return edge > UInt64(Int64.max) ? .max : Int64(edge)
    }

    /// The exclusive upper edge of bucket `i`, in microseconds.
    func upperEdge(ofBucket i: Int) -> Int64 {
        let linear = 1 << subBits
        if i < linear { return Int64(i + 1) }
        let shift = i / linear - 1
        let sub = i % linear
        let edge = (UInt64(linear + sub) + 1) << UInt64(shift)
        return edge > UInt64(Int64.max) ? .max : Int64(edge)
    }
}

/// Queueing delay (sojourn time in the bottleneck: `departure − arrival`, serialization included)
/// of every packet that left one link direction's bottleneck, in log-linear 1 µs buckets with 16
/// per power of two: memory is fixed (~8 KB), recording allocates nothing, and a percentile errs
/// high by at most 1/16 of its value. Percentiles are nearest rank over bucket upper edges, capped
/// at the exact maximum.
public struct SojournHistogram: Sendable, Equatable {
    static let buckets = LogBuckets(subBits: 4)
    private var counts: [Int64]
    public private(set) var count: Int64 = 0
    public private(set) var maximum: Nanoseconds = 0
    public private(set) var total: Nanoseconds = 0

    public init() { counts = [Int64](repeating: 0, count: Self.buckets.count) }

    @inline(__always)
    public mutating func record(_ sojourn: Nanoseconds) {
        let v = max(0, sojourn)
        counts[Self.buckets.index(ofMicroseconds: v / 1_000)] += 1
        count += 1
        total &+= v
        if v > maximum { maximum = v }
    }

    /// The `q`-quantile (0...1), nearest rank, as the upper edge of its bucket (capped at the
    /// maximum); 0 when empty.
    public func percentile(_ q: Double) -> Nanoseconds {
        guard count > 0 else { return 0 }
        let rank = max(1, Int64((q * Double(count)).rounded(.up)))
        var seen: Int64 = 0
        for (i, n) in counts.enumerated() where n > 0 {
            seen += n
            if seen >= rank {
                let edge = Self.buckets.upperEdge(ofBucket: i)
                return min(maximum, edge > Int64.max / 1_000 ? .max : edge * 1_000)
            }
        }
        return maximum
    }

    public mutating func merge(_ other: SojournHistogram) {
        for i in counts.indices { counts[i] += other.counts[i] }
        count += other.count
        total &+= other.total
        maximum = max(maximum, other.maximum)
    }
}
