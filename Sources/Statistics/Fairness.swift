import Foundation

/// How flows share a bottleneck. Pure functions of the flows' rates (or bytes over one window).
public enum Fairness {
    /// Jain's fairness index (Jain, Chiu & Hawe, DEC-TR-301, 1984):
    /// J = (Σ xᵢ)² / (n · Σ xᵢ²) for n rates xᵢ ≥ 0. It is 1 when all are equal and 1/n when one
    /// flow has everything. nil for no flows, a negative or non-finite rate, or all zero.
    public static func jainIndex(_ xs: [Double]) -> Double? {
        guard !xs.isEmpty, xs.allSatisfy({ $0 >= 0 && $0.isFinite }) else { return nil }
        let sum = xs.reduce(0, +)
        let squares = xs.reduce(0) { $0 + $1 * $1 }
        guard squares > 0 else { return nil }
        return sum * sum / (Double(xs.count) * squares)
    }

    /// Each flow's share of the total: xᵢ / Σ xⱼ (they add up to 1). nil when the total is 0.
    public static func shares(_ xs: [Double]) -> [Double]? {
        guard !xs.isEmpty, xs.allSatisfy({ $0 >= 0 && $0.isFinite }) else { return nil }
        let sum = xs.reduce(0, +)
        guard sum > 0 else { return nil }
        return xs.map { $0 / sum }
    }
}

/// A mean with its 95% confidence interval over a few independent runs.
public struct MeanConfidence: Sendable, Equatable {
    public var n: Int
    public var mean: Double
    public var low: Double
    public var high: Double

    /// Student's t interval: mean ± t(0.975, n − 1) · s / √n, with s the sample standard deviation
    /// (n − 1). Assumes roughly normal run-to-run variation; needs at least two values.
    public init?(_ xs: [Double]) {
        guard xs.count >= 2, let m = Descriptive.mean(xs), let s = Descriptive.sampleStandardDeviation(xs) else {
            return nil
        }
        let half = MeanConfidence.tQuantile975(degreesOfFreedom: xs.count - 1) * s / Double(xs.count).squareRoot()
        n = xs.count; mean = m; low = m - half; high = m + half
    }

    /// The 0.975 quantile of Student's t distribution: exact table values for 1–30 degrees of
    /// freedom (to 3 decimals), then the Cornish-Fisher expansion around the normal quantile 1.96.
    public static func tQuantile975(degreesOfFreedom df: Int) -> Double {
        let table: [Double] = [
            12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
            2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
            2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
        ]
        precondition(df >= 1)
        if df <= table.count { return table[df - 1] }
        let z = 1.959964, v = Double(df)
        return z + (z * z * z + z) / (4 * v) + (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * v * v)
    }
}
