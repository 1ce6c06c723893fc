import BenchCore

/// Release lateness (actual write time − scheduled release) in fixed buckets: 1 µs wide below
/// 10 ms, 1 ms wide from 10 ms to 10 s, one overflow bucket. Recording is a few instructions and
/// the memory is fixed, however long the run. Percentiles are nearest-rank over bucket upper
/// edges, so they err on the late side by at most one bucket.
public struct LatenessHistogram: Sendable, Equatable {
    static let fineBuckets = 10_000  // 1 µs each: [0, 10 ms)
    static let coarseBuckets = 9_990  // 1 ms each: [10 ms, 10 s)
    private var buckets: [Int64]
    public private(set) var count: Int64 = 0
    public private(set) var maximum: Nanoseconds = 0

    public init() {
        buckets = [Int64](repeating: 0, count: Self.fineBuckets + Self.coarseBuckets + 1)
    }

    /// Records one lateness; negative values (released early, which the loop never does) count as 0.
    public mutating func record(_ lateness: Nanoseconds) {
        let v = max(0, lateness)
        let index: Int
        if v < 10_000_000 {
            index = Int(v / 1_000)
        } else if v < 10_000_000_000 {
            index = Self.fineBuckets + Int((v - 10_000_000) / 1_000_000)
        } else {
            index = Self.fineBuckets + Self.coarseBuckets
        }
        buckets[index] += 1
        count += 1
        if v > maximum { maximum = v }
    }

    /// The `q`-quantile (0...1), nearest rank, as the upper edge of its bucket; 0 when empty.
    public func percentile(_ q: Double) -> Nanoseconds {
        guard count > 0 else { return 0 }
        let rank = max(1, Int64((q * Double(count)).rounded(.up)))
        var seen: Int64 = 0
        for (i, n) in buckets.enumerated() where n > 0 {
            seen += n
            if seen >= rank { return min(maximum, Self.upperEdge(ofBucket: i)) }
        }
        return maximum
    }

    public mutating func merge(_ other: LatenessHistogram) {
        for i in buckets.indices { buckets[i] += other.buckets[i] }
        count += other.count
        maximum = max(maximum, other.maximum)
    }

    static func upperEdge(ofBucket i: Int) -> Nanoseconds {
        if i < fineBuckets { return Nanoseconds(i + 1) * 1_000 }
        if i < fineBuckets + coarseBuckets { return 10_000_000 + Nanoseconds(i - fineBuckets + 1) * 1_000_000 }
        return .max
    }
}
