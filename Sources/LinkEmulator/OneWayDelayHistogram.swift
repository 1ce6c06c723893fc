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

    static func bucket(ofMicroseconds us: Int64) -> Int {
        if us < linear { return Int(us) }
        let e = 63 - us.leadingZeroBitCount  // 2^e ≤ us < 2^(e+1), e ≥ 10
        let octave = e - 10
        guard octave < octaves else { return linear + octaves * subBuckets }
        return linear + octave * subBuckets + Int((us >> (e - 9)) & Int64(subBuckets - 1))
    }

    /// [lower, upper) of a bucket in µs.
    static func range(ofBucket i: Int) -> (Int64, Int64) {
        if i < linear { return (Int64(i), Int64(i) + 1) }
        let octave = (i - linear) / subBuckets, sub = Int64((i - linear) % subBuckets)
        let shift = Int64(octave + 1)
        return ((512 + sub) << shift, (513 + sub) << shift)
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
