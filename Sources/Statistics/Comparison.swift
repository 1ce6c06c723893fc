/// Whether a candidate sample is better, worse or not distinguishable from a baseline.
public enum Verdict: String, Sendable, Hashable, Codable {
    case better
    case worse
    case noSignificantChange
}

/// A candidate sample against a baseline: medians, relative change of the medians with its
/// percentile bootstrap CI (`Bootstrap.relativeDifferenceOfMediansCI`) and the Mann-Whitney U
/// two-sided p-value (`MannWhitney.test`).
///
/// Decision rule: a difference is significant when the CI excludes 0 AND p < alpha (both tests
/// agree: the location shifted and the medians moved). `verdict` adds a noise band: a change whose
/// whole CI lies within ±noise is no significant change, however small its p.
public struct Comparison: Sendable, Hashable {
    public var baselineMedian: Double
    public var candidateMedian: Double
    /// median(candidate) / median(baseline) − 1; nil when the baseline median is 0.
    public var relativeChange: Double?
    /// Bootstrap CI of `relativeChange`; nil when it is undefined.
    public var interval: ConfidenceInterval?
    public var pValue: Double
    public var baselineCount: Int
    public var candidateCount: Int
    /// The smallest relative change of the median these samples could have detected with 80% power
    /// at alpha 0.05 (two-sided): (z₀.₉₇₅ + z₀.₈) × pooled SD × √(1/n₁ + 1/n₂) / median(baseline),
    /// the normal approximation, divided by √0.955 for the Mann-Whitney test's efficiency. nil when
    /// it cannot be computed (a sample of one, a zero baseline); `.infinity` when no difference
    /// could be significant at all (too few runs: the smallest two-sided Mann-Whitney p is
    /// 2 / C(n₁+n₂, n₁), 0.1 for 3 against 3).
    public var minimumDetectableChange: Double?

    public init?(
        baseline: [Double], candidate: [Double], seed: UInt64,
        resamples: Int = Bootstrap.defaultResamples, level: Double = Bootstrap.defaultLevel
    ) {
        guard let ma = Descriptive.median(baseline), let mb = Descriptive.median(candidate),
            let mw = MannWhitney.test(baseline, candidate)
        else { return nil }
        baselineMedian = ma
        candidateMedian = mb
        relativeChange = ma != 0 ? mb / ma - 1 : nil
        interval =
            relativeChange == nil
            ? nil
            : Bootstrap.relativeDifferenceOfMediansCI(
                baseline: baseline, candidate: candidate, level: level,
                resamples: resamples, seed: seed)
        pValue = mw.pValue
        baselineCount = baseline.count
        candidateCount = candidate.count
        minimumDetectableChange = Comparison.minimumDetectableChange(baseline: baseline, candidate: candidate)
    }

    /// See `minimumDetectableChange`.
    public static func minimumDetectableChange(baseline: [Double], candidate: [Double], alpha: Double = 0.05) -> Double?
    {
        let n1 = baseline.count, n2 = candidate.count
        guard n1 >= 2, n2 >= 2, let median = Descriptive.median(baseline), median != 0 else { return nil }
        if MannWhitney.smallestTwoSidedP(n1, n2) >= alpha { return .infinity }
        func ss(_ x: [Double]) -> Double {
            let m = x.reduce(0, +) / Double(x.count); return x.reduce(0) { $0 + ($1 - m) * ($1 - m) }
        }
        let pooledSD = ((ss(baseline) + ss(candidate)) / Double(n1 + n2 - 2)).squareRoot()
        let z = 1.959964 + 0.841621
        return z * pooledSD * (1 / Double(n1) + 1 / Double(n2)).squareRoot() / 0.955.squareRoot() / abs(median)
    }

    /// CI excludes 0 and p < alpha.
    public func isSignificant(alpha: Double = 0.05) -> Bool {
        guard let ci = interval else { return false }
        return ci.excludes(0) && pValue < alpha
    }

    /// Better / worse / no significant change. `noise` is a relative band (0.02 = ±2%).
    public func verdict(higherIsBetter: Bool, noise: Double = 0, alpha: Double = 0.05) -> Verdict {
        guard isSignificant(alpha: alpha), let ci = interval else { return .noSignificantChange }
        if ci.low >= -noise && ci.high <= noise { return .noSignificantChange }
        let increased = ci.low > 0
        return increased == higherIsBetter ? .better : .worse
    }

    /// A significant change for the worse larger than `limit` (0.05 = 5%): the whole CI lies beyond
    /// the limit in the bad direction, and p < alpha.
    public func isRegression(beyond limit: Double, higherIsBetter: Bool, alpha: Double = 0.05) -> Bool {
        guard let ci = interval, pValue < alpha else { return false }
        return higherIsBetter ? ci.high < -limit : ci.low > limit
    }
}
