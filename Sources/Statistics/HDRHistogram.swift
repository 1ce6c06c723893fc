import Foundation

/// A high-dynamic-range histogram with HdrHistogram's bucket layout (Gil Tene's HdrHistogram,
/// "log-linear" buckets), so that its counts encode to, and add with, HdrHistogram's own.
///
/// Layout: values up to `2 × 10^digits` are exact (one unit per sub-bucket); above that, each
/// bucket doubles the value range and has `subBucketCount / 2` sub-buckets, so every recorded
/// value keeps `digits` significant decimal digits. Sizes (HdrHistogram's names):
/// `unitMagnitude = ⌊log2 lowest⌋`, `subBucketCount = 2^⌈log2(2 × 10^digits)⌉`, the bucket count
/// the smallest that covers `highest`, and `(buckets + 1) × subBucketCount / 2` counts in all.
/// Memory is fixed by the parameters (≈ 185 KiB for 1 µs … 1 h at 3 digits), not by the samples.
public struct HDRHistogram: Sendable, Equatable {
    /// What must agree for two histograms to add, and what the encoding carries.
    public struct Parameters: Sendable, Equatable, Codable, CustomStringConvertible {
        public var lowestDiscernibleValue: Int64
        public var highestTrackableValue: Int64
        public var significantDigits: Int
        public init(lowestDiscernibleValue: Int64 = 1, highestTrackableValue: Int64, significantDigits: Int = 3) {
            self.lowestDiscernibleValue = lowestDiscernibleValue
            self.highestTrackableValue = highestTrackableValue
            self.significantDigits = significantDigits
        }
        public var description: String {
            "lowest \(lowestDiscernibleValue), highest \(highestTrackableValue), \(significantDigits) digits"
        }
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case invalidParameters(String)
        case differentParameters(Parameters, Parameters)
        public var description: String {
            switch self {
            case .invalidParameters(let why): return "HDR histogram parameters: \(why)"
            case .differentParameters(let a, let b):
                return "cannot add HDR histograms with different parameters (\(a) vs \(b))"
            }
        }
    }

    public let parameters: Parameters
    let unitMagnitude: Int
    let subBucketHalfCountMagnitude: Int
    let subBucketCount: Int
    let subBucketHalfCount: Int
    let subBucketMask: Int64
    let leadingZeroCountBase: Int
    public let bucketCount: Int
    public private(set) var counts: [Int64]
    public private(set) var totalCount: Int64 = 0
    /// Values above `highestTrackableValue`, not recorded in `counts` (HdrHistogram would throw).
    public private(set) var overflowCount: Int64 = 0
    /// The largest and smallest values recorded, exactly (not rounded to their buckets).
    public private(set) var maxRecorded: Int64 = 0
    public private(set) var minRecorded: Int64 = .max

    public init(_ parameters: Parameters) throws {
        let p = parameters
        guard p.lowestDiscernibleValue >= 1 else { throw Failure.invalidParameters("lowest value must be ≥ 1") }
        guard (0...5).contains(p.significantDigits) else {
            throw Failure.invalidParameters("significant digits \(p.significantDigits) not in 0…5")
        }
        guard p.highestTrackableValue >= 2 * p.lowestDiscernibleValue else {
            throw Failure.invalidParameters("highest value must be ≥ 2 × lowest")
        }
        self.parameters = p
        var singleUnit: Int64 = 2
        for _ in 0..<p.significantDigits { singleUnit *= 10 }
        let subBucketCountMagnitude = Int(ceil(log2(Double(singleUnit))))
        subBucketHalfCountMagnitude = max(subBucketCountMagnitude, 1) - 1
        unitMagnitude = 63 - p.lowestDiscernibleValue.leadingZeroBitCount
        subBucketCount = 1 << (subBucketHalfCountMagnitude + 1)
        subBucketHalfCount = subBucketCount / 2
        subBucketMask = Int64(subBucketCount - 1) << unitMagnitude
        leadingZeroCountBase = 64 - unitMagnitude - subBucketHalfCountMagnitude - 1
        var smallestUntrackable = Int64(subBucketCount) << unitMagnitude
        var buckets = 1
        while smallestUntrackable <= p.highestTrackableValue {
            if smallestUntrackable > Int64.max / 2 { buckets += 1; break }
            smallestUntrackable <<= 1
            buckets += 1
        }
        bucketCount = buckets
        counts = Array(repeating: 0, count: (buckets + 1) * subBucketHalfCount)
    }

    /// The index in `counts` of the bucket holding `value` (HdrHistogram's countsArrayIndex).
    public func index(of value: Int64) -> Int {
        let bucket = leadingZeroCountBase - (value | subBucketMask).leadingZeroBitCount
        let subBucket = Int(value >> Int64(bucket + unitMagnitude))
        return ((bucket + 1) << subBucketHalfCountMagnitude) + (subBucket - subBucketHalfCount)
    }

    /// The lowest value that falls in bucket `index`.
    public func lowestValue(atIndex index: Int) -> Int64 {
        var bucket = (index >> subBucketHalfCountMagnitude) - 1
        var subBucket = (index & (subBucketHalfCount - 1)) + subBucketHalfCount
        if bucket < 0 { subBucket -= subBucketHalfCount; bucket = 0 }
        return Int64(subBucket) << Int64(bucket + unitMagnitude)
    }

    /// How many distinct values share `value`'s bucket.
    public func bucketWidth(of value: Int64) -> Int64 {
        var bucket = leadingZeroCountBase - (value | subBucketMask).leadingZeroBitCount
        let subBucket = Int(value >> Int64(bucket + unitMagnitude))
        if subBucket >= subBucketCount { bucket += 1 }
        return Int64(1) << Int64(unitMagnitude + bucket)
    }

    /// The largest value that is equivalent to `value` (lands in its bucket).
    public func highestEquivalentValue(_ value: Int64) -> Int64 {
        lowestValue(atIndex: index(of: value)) + bucketWidth(of: value) - 1
    }

    /// Records `value` `count` times; a negative value counts as 0, one above the highest
    /// trackable value only in `overflowCount` (and `maxRecorded`).
    public mutating func record(_ value: Int64, count: Int64 = 1) {
        let v = max(0, value)
        maxRecorded = max(maxRecorded, v)
        minRecorded = min(minRecorded, v)
        guard v <= parameters.highestTrackableValue else { overflowCount += count; return }
        counts[index(of: v)] += count
        totalCount += count
    }

    /// Empties the histogram (same parameters, same memory).
    public mutating func reset() {
        for i in counts.indices where counts[i] != 0 { counts[i] = 0 }
        totalCount = 0; overflowCount = 0; maxRecorded = 0; minRecorded = .max
    }

    /// Adds `other`'s counts (exactly: same buckets); refuses different parameters.
    public mutating func add(_ other: HDRHistogram) throws {
        guard other.parameters == parameters else { throw Failure.differentParameters(parameters, other.parameters) }
        for i in other.counts.indices where other.counts[i] != 0 { counts[i] += other.counts[i] }
        totalCount += other.totalCount
        overflowCount += other.overflowCount
        if other.totalCount + other.overflowCount > 0 {
            maxRecorded = max(maxRecorded, other.maxRecorded)
            minRecorded = min(minRecorded, other.minRecorded)
        }
    }

    /// The value at percentile `p` (0…100) as HdrHistogram defines it: the highest value equivalent
    /// to the bucket where the running count first reaches ⌈p/100 × total⌉ (at least 1); p = 0
    /// gives the lowest equivalent value of the first bucket. 0 for an empty histogram.
    public func value(atPercentile p: Double) -> Int64 {
        guard totalCount > 0 else { return 0 }
        let clamped = min(max(p, 0), 100)
        let wanted = max(1, Int64((clamped / 100 * Double(totalCount)).rounded(.up)))
        var running: Int64 = 0
        for i in counts.indices {
            running += counts[i]
            if running >= wanted {
                let low = lowestValue(atIndex: i)
                return clamped == 0 ? low : highestEquivalentValue(low)
            }
        }
        return highestEquivalentValue(maxRecorded)
    }

    /// The mean of the recorded values, each taken at the middle of its bucket (HdrHistogram's
    /// `getMean`); nil when empty.
    public var mean: Double? {
        guard totalCount > 0 else { return nil }
        var sum = 0.0
        for i in counts.indices where counts[i] != 0 {
            let low = lowestValue(atIndex: i)
            sum += Double(low + (bucketWidth(of: low) >> 1)) * Double(counts[i])
        }
        return sum / Double(totalCount)
    }

    /// HdrHistogram's `getMaxValue`: the highest value equivalent to the largest recorded (0 if empty).
    public var maxValue: Int64 {
        totalCount == 0 ? 0 : highestEquivalentValue(Swift.min(maxRecorded, maxTrackedValue))
    }

    private var maxTrackedValue: Int64 {
        guard let last = counts.lastIndex(where: { $0 != 0 }) else { return 0 }
        return lowestValue(atIndex: last)
    }

    /// One past the last non-zero count (what the encoding writes).
    var countsLimit: Int { (counts.lastIndex(where: { $0 != 0 }) ?? -1) + 1 }

    /// Sets the counts read from an encoding (totals recomputed; the exact extremes become the
    /// bucket bounds, all an encoding keeps).
    mutating func setCounts(_ decoded: [Int64]) {
        for (i, c) in decoded.enumerated() where i < counts.count { counts[i] = c }
        totalCount = counts.reduce(0, +)
        if let first = counts.firstIndex(where: { $0 != 0 }), let last = counts.lastIndex(where: { $0 != 0 }) {
            minRecorded = lowestValue(atIndex: first)
            maxRecorded = highestEquivalentValue(lowestValue(atIndex: last))
        }
    }
}

extension HDRHistogram {
    /// Latencies in microseconds from 1 µs to one hour, 3 significant digits: what `netbench load` records.
    public static let latencyMicroseconds = Parameters(
        lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, significantDigits: 3)
}
