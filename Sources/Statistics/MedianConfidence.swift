import Foundation

/// A distribution-free confidence interval for the median: order statistics chosen with the
/// binomial distribution (the sign-test interval). For sorted samples x(1) ≤ … ≤ x(n), the interval
/// [x(k), x(n−k+1)] covers the true median with probability 1 − 2·P(B ≤ k−1), B ~ Binomial(n, ½).
/// The largest k whose exact coverage reaches the level asked is used, and the exact coverage is
/// reported. No interval reaches 95% below n = 6 (at n = 5, [min, max] covers 93.75%): then there is
/// none, and the caller must say so rather than claim 95%.
public struct MedianConfidence: Sendable, Equatable {
    public var median: Double
    public var low: Double
    public var high: Double
    /// The exact coverage of [low, high] (≥ the level asked).
    public var coverage: Double
    public var n: Int

    /// Half the interval's width relative to the median: within ±2% when ≤ 0.02.
    public var relativeHalfWidth: Double {
        guard median != 0 else { return .infinity }
        return max(median - low, high - median) / abs(median)
    }

    /// nil when `samples` has fewer values than the level needs (n < 6 at 95%).
    public static func interval(_ samples: [Double], level: Double = 0.95) -> MedianConfidence? {
        let s = samples.sorted()
        let n = s.count
        guard n >= 1, let median = Descriptive.median(s) else { return nil }
        var best: (k: Int, coverage: Double)?
        for k in 1...max(1, n / 2) {
            let coverage = 1 - 2 * binomialCDF(k - 1, n: n)
            if coverage >= level { best = (k, coverage) } else { break }
        }
        guard let (k, coverage) = best else { return nil }
        return MedianConfidence(median: median, low: s[k - 1], high: s[n - k], coverage: coverage, n: n)
    }

    /// P(B ≤ k) for B ~ Binomial(n, ½), summed in log space (no underflow at large n).
    static func binomialCDF(_ k: Int, n: Int) -> Double {
        guard k >= 0 else { return 0 }
        guard k < n else { return 1 }
        var total = 0.0
        let logHalfN = Double(n) * log(0.5)
        for i in 0...k {
            let logC = lgamma(Double(n + 1)) - lgamma(Double(i + 1)) - lgamma(Double(n - i + 1))
            total += exp(logC + logHalfN)
        }
        return min(total, 1)
    }
}
