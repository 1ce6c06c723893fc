/// The figures every report shows for one sample (one metric of one scenario × profile × transport).
///
/// Percentiles are type 7 (`Descriptive`); `sd` is the sample standard deviation (nil below two
/// values); the interval is the percentile bootstrap 95% CI of the median (`Bootstrap.medianCI`).
public struct Summary: Sendable, Hashable, Codable {
    public var n: Int
    public var median: Double
    public var p90: Double
    public var p95: Double
    public var p99: Double
    public var mean: Double
    public var sd: Double?
    public var min: Double
    public var max: Double
    public var ci95Low: Double
    public var ci95High: Double
    /// Values `Outliers.flags` marks (3.5 σ̂ by MAD); they stay in every figure above.
    public var outliers: Int

    /// Nil for an empty sample. `seed` drives the bootstrap (see `Bootstrap.seed(_:_:)`).
    public init?(_ xs: [Double], seed: UInt64, resamples: Int = Bootstrap.defaultResamples) {
        guard !xs.isEmpty else { return nil }
        let s = xs.sorted()
        n = s.count
        median = Descriptive.percentile(sorted: s, 50)
        p90 = Descriptive.percentile(sorted: s, 90)
        p95 = Descriptive.percentile(sorted: s, 95)
        p99 = Descriptive.percentile(sorted: s, 99)
        mean = Descriptive.mean(s) ?? median
        sd = Descriptive.sampleStandardDeviation(s)
        min = s[0]
        max = s[s.count - 1]
        let ci = Bootstrap.medianCI(s, resamples: resamples, seed: seed)
        ci95Low = ci?.low ?? median
        ci95High = ci?.high ?? median
        outliers = Outliers.count(s)
    }

    /// The statistics thresholds may name: `median`/`p50`, `p90`, `p95`, `p99`, `mean`, `min`, `max`, `sd`, `n`.
    public static let statisticNames = ["median", "p50", "p90", "p95", "p99", "mean", "min", "max", "sd", "n"]

    public func statistic(named name: String) -> Double? {
        switch name {
        case "median", "p50": return median
        case "p90": return p90
        case "p95": return p95
        case "p99": return p99
        case "mean": return mean
        case "min": return min
        case "max": return max
        case "sd": return sd
        case "n": return Double(n)
        default: return nil
        }
    }
}
