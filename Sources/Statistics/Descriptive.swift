import Foundation

/// Descriptive statistics of one sample. Pure functions; an empty sample has no statistics (nil).
///
/// Percentile definition: linear interpolation between closest ranks (Hyndman & Fan type 7,
/// numpy's and R's default): with the sample sorted ascending as x₀ … xₙ₋₁ and h = (n − 1)·p/100,
/// the p-th percentile is x⌊h⌋ + (h − ⌊h⌋)·(x⌊h⌋₊₁ − x⌊h⌋). The median is the 50th percentile.
public enum Descriptive {
    /// Arithmetic mean (compensated summation, so long samples of similar values stay exact).
    public static func mean(_ xs: [Double]) -> Double? {
        guard !xs.isEmpty else { return nil }
        return kahanSum(xs) / Double(xs.count)
    }

    /// Sample standard deviation (Bessel's correction, n − 1 in the denominator; numpy `ddof=1`),
    /// computed in two passes around the mean. Needs at least two values.
    public static func sampleStandardDeviation(_ xs: [Double]) -> Double? {
        guard xs.count >= 2, let m = mean(xs) else { return nil }
        let squares = xs.map { ($0 - m) * ($0 - m) }
        return (kahanSum(squares) / Double(xs.count - 1)).squareRoot()
    }

    /// The p-th percentile (p in 0…100), linear interpolation between closest ranks (type 7).
    public static func percentile(_ xs: [Double], _ p: Double) -> Double? {
        guard !xs.isEmpty else { return nil }
        return percentile(sorted: xs.sorted(), p)
    }

    /// Several percentiles of one sample, sorting it once.
    public static func percentiles(_ xs: [Double], _ ps: [Double]) -> [Double]? {
        guard !xs.isEmpty else { return nil }
        let s = xs.sorted()
        return ps.map { percentile(sorted: s, $0) }
    }

    /// The p-th percentile of an already sorted, non-empty sample (type 7).
    public static func percentile(sorted s: [Double], _ p: Double) -> Double {
        precondition(!s.isEmpty, "percentile of an empty sample")
        let clamped = min(max(p, 0), 100)
        let h = Double(s.count - 1) * clamped / 100
        let lo = Int(h.rounded(.down))
        let hi = min(lo + 1, s.count - 1)
        return s[lo] + (h - Double(lo)) * (s[hi] - s[lo])
    }

    /// Median: the 50th percentile (the mean of the two middle values when n is even).
    public static func median(_ xs: [Double]) -> Double? { percentile(xs, 50) }
    public static func p90(_ xs: [Double]) -> Double? { percentile(xs, 90) }
    public static func p95(_ xs: [Double]) -> Double? { percentile(xs, 95) }
    public static func p99(_ xs: [Double]) -> Double? { percentile(xs, 99) }

    /// Median absolute deviation from the median, unscaled: median(|xᵢ − median(x)|).
    public static func medianAbsoluteDeviation(_ xs: [Double]) -> Double? {
        guard let m = median(xs) else { return nil }
        return median(xs.map { abs($0 - m) })
    }

    /// Kahan–Babuška (Neumaier) compensated sum.
    static func kahanSum(_ xs: [Double]) -> Double {
        var sum = 0.0
        var c = 0.0
        for x in xs {
            let t = sum + x
            if abs(sum) >= abs(x) { c += (sum - t) + x } else { c += (x - t) + sum }
            sum = t
        }
        return sum + c
    }
}
