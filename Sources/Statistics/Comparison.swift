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

    public init?(baseline: [Double], candidate: [Double], seed: UInt64,
                 resamples: Int = Bootstrap.defaultResamples, level: Double = Bootstrap.defaultLevel) {
        guard let ma = Descriptive.median(baseline), let mb = Descriptive.median(candidate),
              let mw = MannWhitney.test(baseline, candidate) else { return nil }
        baselineMedian = ma
        candidateMedian = mb
        relativeChange = ma != 0 ? mb / ma - 1 : nil
        interval = relativeChange == nil ? nil
            : Bootstrap.relativeDifferenceOfMediansCI(baseline: baseline, candidate: candidate, level: level,
                                                      resamples: resamples, seed: seed)
        pValue = mw.pValue
        baselineCount = baseline.count
        candidateCount = candidate.count
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
