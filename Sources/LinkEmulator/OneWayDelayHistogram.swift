import BenchCore

/// One-way delays through a link direction (write time − arrival time, per packet) in log-linear
/// buckets: 1 µs wide below 1,024 µs, then 512 buckets per power of two (0.2% wide), up to about
/// 4.7 hours. Recording is a few instructions and the memory is fixed (~100 KB), however long the
/// run. Quantiles are nearest-rank, reported at the middle of their bucket.
public struct OneWayDelayHistogram: Sendable, Equatable {
    static let linear = 1_024
    static let subBuckets = 512
    static let octaves = 24
    private var buckets: [Int64]
    public private(set) var count: Int64 = 0
    public private(set) var minimum: Nanoseconds = .max
    public private(set) var maximum: Nanoseconds = 0

    public init() {
        buckets = [Int64](repeating: 0, count: Self.linear + Self.octaves * Self.subBuckets + 1)
    }

    /// Records one delay; negative values count as 0.
    public mutating func record(_ delay: Nanoseconds) {
        let v = max(0, delay)
        buckets[Self.bucket(ofMicroseconds: v / 1_000)] += 1
        count += 1
        minimum = min(minimum, v)
        maximum = max(maximum, v)
    }

    /// `LogBuckets` with 512 sub-buckets: 1 µs wide below 1,024 µs, then 512 per power of two; the
    /// octaves above the last share one overflow bucket.
    static let logBuckets = LogBuckets(subBits: 9)

    static func bucket(ofMicroseconds us: Int64) -> Int {
        min(logBuckets.index(ofMicroseconds: us), linear + octaves * subBuckets)
    }

    /// [lower, upper) of a bucket in µs.
    static func range(ofBucket i: Int) -> (Int64, Int64) {
        (logBuckets.lowerEdge(ofBucket: i), logBuckets.upperEdge(ofBucket: i))
    }

    /// The `q`-quantile (0...1), nearest rank, at the middle of its bucket (within the observed
    /// minimum and maximum); 0 when empty.
    public func quantile(_ q: Double) -> Nanoseconds {
        guard count > 0 else { return 0 }
        let rank = max(1, Int64((q * Double(count)).rounded(.up)))
        var seen: Int64 = 0
        for (i, n) in buckets.enumerated() where n > 0 {
            seen += n
            if seen >= rank {
                guard i < buckets.count - 1 else { return maximum }
                let (lo, hi) = Self.range(ofBucket: i)
                return min(maximum, max(minimum, (lo + hi) * 500))
            }
        }
        return maximum
    }
}
