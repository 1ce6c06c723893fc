import Foundation

/// The outcome of a Mann-Whitney U test.
public struct MannWhitneyResult: Sendable, Hashable {
    /// U of the first sample: the number of pairs (a, b) with a > b, ties counting one half.
    public var u: Double
    /// Two-sided p-value.
    public var pValue: Double
    public init(u: Double, pValue: Double) { self.u = u; self.pValue = pValue }
}

/// Mann-Whitney U test (Wilcoxon rank-sum), two-sided, normal approximation with tie correction
/// and continuity correction — the same as SciPy's
/// `mannwhitneyu(a, b, alternative="two-sided", method="asymptotic", use_continuity=True)`.
///
/// With N = n₁ + n₂, ranks averaged over ties, U₁ = R₁ − n₁(n₁+1)/2, μ = n₁n₂/2 and
/// σ² = n₁n₂/12 · ((N + 1) − Σ(tᵢ³ − tᵢ)/(N(N − 1))) over tie groups of size tᵢ:
/// z = (max(U₁, n₁n₂ − U₁) − μ − ½)/σ and p = 2·(1 − Φ(z)), capped at 1.
/// When every value is tied (σ = 0) there is no evidence of a difference: p = 1.
public enum MannWhitney {
    public static func test(_ a: [Double], _ b: [Double]) -> MannWhitneyResult? {
        let n1 = a.count, n2 = b.count
        guard n1 > 0, n2 > 0 else { return nil }
        let n = n1 + n2
        // Pool, sort, and give tied values the mean of their ranks.
        let pooled = (a.map { ($0, true) } + b.map { ($0, false) }).sorted { $0.0 < $1.0 }
        var rankSumA = 0.0
        var tieTerm = 0.0
        var i = 0
        while i < n {
            var j = i
            while j + 1 < n && pooled[j + 1].0 == pooled[i].0 { j += 1 }
            let t = Double(j - i + 1)
            let meanRank = Double(i + j) / 2 + 1
            for k in i...j where pooled[k].1 { rankSumA += meanRank }
            tieTerm += t * t * t - t
            i = j + 1
        }
        let dn1 = Double(n1), dn2 = Double(n2), dn = Double(n)
        let u1 = rankSumA - dn1 * (dn1 + 1) / 2
        let mu = dn1 * dn2 / 2
        let variance = dn1 * dn2 / 12 * ((dn + 1) - tieTerm / (dn * (dn - 1)))
        guard variance > 0 else { return MannWhitneyResult(u: u1, pValue: 1) }
        let u = max(u1, dn1 * dn2 - u1)
        let z = (u - mu - 0.5) / variance.squareRoot()
        let p = erfc(z / 2.0.squareRoot())  // 2·(1 − Φ(z))
        return MannWhitneyResult(u: u1, pValue: min(max(p, 0), 1))
    }
}

extension MannWhitney {
    /// The smallest two-sided p-value the exact test can give for samples of these sizes (complete
    /// separation): 2 / C(n₁+n₂, n₁), capped at 1.
    public static func smallestTwoSidedP(_ n1: Int, _ n2: Int) -> Double {
        var c = 1.0
        for i in 0..<min(n1, n2) { c = c * Double(n1 + n2 - i) / Double(i + 1) }
        return min(1, 2 / c)
    }
}
