import Foundation

/// Two-sample Kolmogorov–Smirnov test: D = sup |F_a(x) − F_b(x)| over the two empirical CDFs
/// (ties stepped together, as SciPy's `ks_2samp` computes the statistic), and the asymptotic
/// critical value c(α)·√((n + m)/(n·m)) with c(α) = √(−ln(α/2)/2) (c(0.001) ≈ 1.949).
public enum KolmogorovSmirnov {
    /// D between two samples; nil when either is empty.
    public static func distance(_ a: [Double], _ b: [Double]) -> Double? {
        guard !a.isEmpty, !b.isEmpty else { return nil }
        let x = a.sorted(), y = b.sorted()
        let n = Double(x.count), m = Double(y.count)
        var i = 0, j = 0
        var d = 0.0
        while i < x.count && j < y.count {
            let v = min(x[i], y[j])
            while i < x.count && x[i] <= v { i += 1 }
            while j < y.count && y[j] <= v { j += 1 }
            d = max(d, abs(Double(i) / n - Double(j) / m))
        }
        return d
    }

    /// The distance above which the two samples differ at significance `alpha` (asymptotic).
    public static func criticalDistance(n: Int, m: Int, alpha: Double = 0.001) -> Double {
        let c = (-log(alpha / 2) / 2).squareRoot()
        return c * (Double(n + m) / (Double(n) * Double(m))).squareRoot()
    }
}
