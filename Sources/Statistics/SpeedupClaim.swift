import BenchCore
import Foundation

/// The statistic behind a published "X loads pages N% faster than Y" claim, tested on many pages
/// and networks at once.
///
/// Per cell (one page on one network): the speedup is the ratio of median load times,
/// median(baseline) / median(candidate) (> 1: the candidate is faster). Over all cells: the
/// **geometric mean** of these ratios (a mean of ratios must be geometric to treat 2× faster and
/// 2× slower symmetrically). Its interval is a **two-level (hierarchical) percentile bootstrap**
/// (Davison & Hinkley 1997, §3.8, resampling at both stages): each replicate draws as many pages
/// as there are, with replacement (so pages that happen to favour one side weigh in as the
/// between-page spread says they should), and within every drawn page, for every network, draws
/// each transport's runs with replacement (the run-to-run noise of each median); the replicate is
/// the geometric mean of the resampled cells' ratios; the interval takes the (1 − level)/2 and
/// (1 + level)/2 percentiles (type 7) of the replicates. With one page only the runs vary.
///
/// The verdict compares the interval with the claimed speedup: *confirmed* when the whole interval
/// lies above it, *refuted* when the whole interval lies below it, *undecided* otherwise.
public enum SpeedupClaim {
    /// One page on one network: the load times of the baseline and of the candidate.
    public struct Cell: Sendable, Hashable {
        public var page: String
        public var network: String
        public var baseline: [Double]
        public var candidate: [Double]
        public init(page: String, network: String, baseline: [Double], candidate: [Double]) {
            self.page = page; self.network = network; self.baseline = baseline; self.candidate = candidate
        }
        /// median(baseline) / median(candidate); nil when a side has no runs or a median is 0.
        public var ratio: Double? {
            guard let b = Descriptive.median(baseline), let c = Descriptive.median(candidate), b > 0, c > 0 else {
                return nil
            }
            return b / c
        }
    }

    public enum Verdict: String, Sendable, Hashable, Codable {
        case confirmed, refuted, undecided
    }

    public struct Result: Sendable, Hashable {
        /// Geometric mean of the cells' ratios.
        public var geometricMean: Double
        public var interval: ConfidenceInterval
        /// Cells used (both sides measured) and pages they span.
        public var cells: Int
        public var pages: Int
        public var resamples: Int
        /// The interval with the pages resampled and every cell held at its median ratio: where the
        /// two-level interval goes as each cell's runs grow without end (estimated from this study's
        /// medians, which still carry their run noise). Nil with one page (nothing to resample).
        public var pagesOnly: ConfidenceInterval?

        /// Whether more runs per cell can still decide the claim on these pages: false when the
        /// pages-only interval itself holds `minSpeedup` (then only more pages can narrow it).
        public func runsCanDecide(minSpeedup: Double) -> Bool {
            guard let p = pagesOnly else { return true }
            return SpeedupClaim.verdict(p, minSpeedup: minSpeedup) != .undecided
        }
    }

    /// The geometric mean of the cells' ratios and its two-level bootstrap interval (see the type).
    /// Cells without a ratio are left out; nil when none has one.
    public static func estimate(
        _ cells: [Cell], level: Double = Bootstrap.defaultLevel,
        resamples: Int = Bootstrap.defaultResamples, seed: UInt64
    ) -> Result? {
        let usable = cells.filter { $0.ratio != nil }
        guard !usable.isEmpty, resamples > 0 else { return nil }
        let logs = usable.map { log($0.ratio!) }
        let point = exp(logs.reduce(0, +) / Double(logs.count))
        var byPage: [String: [Int]] = [:]
        var pageOrder: [String] = []
        for (i, c) in usable.enumerated() {
            if byPage[c.page] == nil { pageOrder.append(c.page) }
            byPage[c.page, default: []].append(i)
        }
        let groups = pageOrder.map { byPage[$0]! }
        var rng = SeededRandom(seed: seed)
        var baseline = usable.map { MedianResampler($0.baseline) }
        var candidate = usable.map { MedianResampler($0.candidate) }
        let replicates = geometricMeans(pages: groups.count, resamples: resamples, rng: &rng) { page, rng in
            var sum = 0.0
            var n = 0
            for i in groups[page] {
                let b = baseline[i].next(&rng)
                let c = candidate[i].next(&rng)
                guard b > 0, c > 0 else { continue }
                sum += log(b / c)
                n += 1
            }
            return (sum, n)
        }
        guard !replicates.isEmpty else { return nil }
        // The first level alone: each drawn page's cells at their measured log median ratios.
        let pagesOnly =
            groups.count < 2
            ? nil
            : geometricMeans(pages: groups.count, resamples: resamples, rng: &rng) { page, _ in
                (groups[page].reduce(0) { $0 + logs[$1] }, groups[page].count)
            }
        return Result(
            geometricMean: point, interval: Bootstrap.interval(of: replicates, level: level),
            cells: usable.count, pages: groups.count, resamples: replicates.count,
            pagesOnly: pagesOnly.map { Bootstrap.interval(of: $0, level: level) })
    }

    /// `resamples` replicates of a geometric mean over `pages` pages drawn with replacement: `draw`
    /// gives a drawn page's sum of log ratios and their count; a replicate without any is left out.
    static func geometricMeans(
        pages: Int, resamples: Int, rng: inout SeededRandom,
        draw: (Int, inout SeededRandom) -> (sum: Double, n: Int)
    ) -> [Double] {
        var replicates: [Double] = []
        replicates.reserveCapacity(resamples)
        for _ in 0..<resamples {
            var sum = 0.0
            var n = 0
            for _ in 0..<pages {
                let d = draw(Int(rng.next().multipliedFullWidth(by: UInt64(pages)).high), &rng)
                sum += d.sum
                n += d.n
            }
            if n > 0 { replicates.append(exp(sum / Double(n))) }
        }
        return replicates
    }

    /// Confirmed when the interval lies wholly above `minSpeedup`, refuted when wholly below.
    public static func verdict(_ interval: ConfidenceInterval, minSpeedup: Double) -> Verdict {
        if interval.low > minSpeedup { return .confirmed }
        if interval.high < minSpeedup { return .refuted }
        return .undecided
    }
}
