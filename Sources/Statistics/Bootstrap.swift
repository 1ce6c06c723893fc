import BenchCore

/// A two-sided confidence interval.
public struct ConfidenceInterval: Sendable, Hashable, Codable {
    public var low: Double
    public var high: Double
    /// Coverage, e.g. 0.95.
    public var level: Double
    public init(low: Double, high: Double, level: Double) { self.low = low; self.high = high; self.level = level }

    public func contains(_ x: Double) -> Bool { low <= x && x <= high }
    /// True when the whole interval lies strictly on one side of `x`.
    public func excludes(_ x: Double) -> Bool { x < low || x > high }
}

/// Percentile bootstrap confidence intervals (Efron): draw `resamples` samples of the same size with
/// replacement, compute the statistic on each, and take the (1 − level)/2 and (1 + level)/2
/// percentiles (type 7, see `Descriptive`) of those replicates.
///
/// Resampling draws from `SeededRandom`, so one seed gives one interval on every machine. The
/// index of each draw is ⌊u·n⌋ for a 64-bit uniform u (multiply-high; bias below n/2⁶⁴).
public enum Bootstrap {
    public static let defaultResamples = 2000
    public static let defaultLevel = 0.95

    /// Percentile bootstrap CI of the median of `xs`. Nil for an empty sample.
    public static func medianCI(
        _ xs: [Double], level: Double = defaultLevel,
        resamples: Int = defaultResamples, seed: UInt64
    ) -> ConfidenceInterval? {
        guard !xs.isEmpty, resamples > 0 else { return nil }
        // Every resample of a constant sample is that constant (ideal, bytes, request counts).
        if let first = xs.first, xs.allSatisfy({ $0 == first }) {
            return ConfidenceInterval(low: first, high: first, level: level)
        }
        var rng = SeededRandom(seed: seed)
        var resampler = MedianResampler(xs)
        var replicates = [Double]()
        replicates.reserveCapacity(resamples)
        for _ in 0..<resamples { replicates.append(resampler.next(&rng)) }
        return interval(of: replicates, level: level)
    }

    /// Percentile bootstrap CI of the relative difference of medians,
    /// median(candidate) / median(baseline) − 1, resampling both samples independently.
    /// Replicates whose baseline median is 0 are undefined and left out; nil when more than half are.
    public static func relativeDifferenceOfMediansCI(
        baseline: [Double], candidate: [Double], level: Double = defaultLevel,
        resamples: Int = defaultResamples, seed: UInt64
    ) -> ConfidenceInterval? {
        guard !baseline.isEmpty, !candidate.isEmpty, resamples > 0 else { return nil }
        var rng = SeededRandom(seed: seed)
        var a = MedianResampler(baseline)
        var b = MedianResampler(candidate)
        var replicates = [Double]()
        replicates.reserveCapacity(resamples)
        for _ in 0..<resamples {
            let ma = a.next(&rng)
            let mb = b.next(&rng)
            let r = mb / ma - 1
            if r.isFinite { replicates.append(r) }
        }
        guard replicates.count * 2 >= resamples else { return nil }
        return interval(of: replicates, level: level)
    }

    /// A seed for one comparison, derived from a base seed and labels (scenario, profile, …) with
    /// FNV-1a, so every figure in a report is reproducible and independent of the others.
    /// (Swift's `hashValue` is randomized per process, hence a fixed hash.)
    public static func seed(_ base: UInt64, _ labels: [String]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ base
        for label in labels {
            for byte in label.utf8 { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            h = (h ^ 0x1F) &* 0x0000_0100_0000_01B3
        }
        return h
    }

    static func interval(of replicates: [Double], level: Double) -> ConfidenceInterval {
        let s = replicates.sorted()
        let tail = (1 - level) / 2 * 100
        return ConfidenceInterval(
            low: Descriptive.percentile(sorted: s, tail),
            high: Descriptive.percentile(sorted: s, 100 - tail), level: level)
    }
}

/// Medians of bootstrap resamples in O(n) each: the sample is sorted once, a resample is a count
/// per original index, and the middle order statistics are found by walking the cumulative counts.
struct MedianResampler {
    private let sorted: [Double]
    private var counts: [Int]

    init(_ xs: [Double]) {
        sorted = xs.sorted()
        counts = [Int](repeating: 0, count: xs.count)
    }

    mutating func next(_ rng: inout SeededRandom) -> Double {
        let n = sorted.count
        for i in 0..<n { counts[i] = 0 }
        for _ in 0..<n { counts[Int(rng.next().multipliedFullWidth(by: UInt64(n)).high)] += 1 }
        // Type-7 median: order statistics ⌊(n−1)/2⌋ and ⌈(n−1)/2⌉ (0-based) of the resample.
        let lo = (n - 1) / 2
        let hi = n / 2
        var seen = 0
        var low = 0.0
        for i in 0..<n where counts[i] > 0 {
            let before = seen
            seen += counts[i]
            if before <= lo && lo < seen { low = sorted[i] }
            if before <= hi && hi < seen { return (low + sorted[i]) / 2 }
        }
        return low
    }
}
