import Foundation
import BenchCore

/// The page at the P-th percentile of a `PageDistribution` by request count and by bytes: the
/// pages a study spreads across the HTTP Archive distribution (Tencent's QUIC rollout built its
/// test pages from HTTP Archive statistics the same way).
///
/// - Requests: the distribution's request quantile at P, interpolated as `ScenarioGenerator`
///   draws it (piecewise linear in log(requests) against the standard-normal quantile of the
///   published p10/p25/p50/p75/p90; these five come out exactly as published).
/// - Bytes: the P-th percentile (type 7) of the page weight of `modelPages` pages drawn from the
///   same fitted model (seeds 1…`modelPages`). netbench's reference data hold the published median
///   page weight only, so the other byte percentiles are the model's, not the Almanac's; the
///   model's median lies within 1% of the published one.
/// - The page then uses the median request mix (`exactMix`), as the median presets do, and is
///   scaled to exactly that weight. A page at p10 by requests is taken to be at p10 by bytes too
///   (the two are strongly but not perfectly correlated in the crawl: an assumption).
public struct PercentilePage: Sendable, Hashable {
    /// Pages drawn to estimate the byte percentiles: the p10/p90 estimates move < 1% between
    /// 4,000 and 20,000 pages.
    public static let modelPages = 4000

    public var distribution: PageDistribution
    /// 1…99.
    public var percentile: Int
    /// Page weight at the percentile, from `modelPages` pages of the fitted model, rounded to 1 KB.
    public let bytes: Int64

    public init(distribution: PageDistribution = .mobile2024, percentile: Int) throws {
        guard (1...99).contains(percentile) else {
            throw BenchError.usage("percentile \(percentile) must be between 1 and 99")
        }
        self.distribution = distribution
        self.percentile = percentile
        let totals = Self.modelPageWeights(distribution).sorted()
        let h = Double(totals.count - 1) * Double(percentile) / 100
        let lo = Int(h.rounded(.down))
        let hi = min(lo + 1, totals.count - 1)
        let x = totals[lo] + (h - Double(lo)) * (totals[hi] - totals[lo])
        bytes = Int64((x / 1000).rounded()) * 1000
    }

    /// `mobile-p10`, `desktop-p90`, …
    public var name: String { "\(distribution.name)-p\(percentile)" }

    /// Requests per page at the percentile (published quantiles, interpolated on the normal scale).
    public var requests: Int {
        distribution.requests(atNormalScore: normalQuantile(Double(percentile) / 100))
    }

    /// The generator options of the page (seed 1 unless given).
    public func options(seed: UInt64 = 1) -> ScenarioGenerator.Options {
        let n = requests
        let b = bytes
        let description =
            "HTTP Archive 2024 \(distribution.name) page at p\(percentile): \(n) requests (the published "
            + "request-count quantile), \(Units.formatBytes(b)) (p\(percentile) of \(Self.modelPages) pages of "
            + "netbench's fitted "
            + "model; only the median weight is published in its reference data), median type mix; "
            + "netbench scenario generate --percentile \(percentile)"
            + (distribution.name == "mobile" ? "" : " --distribution \(distribution.name)")
        return .init(
            name: name, description: description, distribution: distribution, requests: n, totalBytes: b,
            seed: seed, exactMix: true, site: "shop")
    }

    public func scenario(seed: UInt64 = 1) throws -> Scenario {
        try ScenarioGenerator(options(seed: seed)).generate()
    }

    /// Page weights (sum of the per-type bytes, before sizes are split over resources) of pages
    /// drawn exactly as `ScenarioGenerator.generate` draws them, seeds 1…`modelPages`.
    static func modelPageWeights(_ distribution: PageDistribution) -> [Double] {
        guard let generator = try? ScenarioGenerator(.init(distribution: distribution)) else { return [0] }
        return (1...UInt64(modelPages)).map { seed in
            var rng = GeneratorRandom(seed: seed)
            _ = rng.pick(OriginCatalog.sites)  // generate() picks the site first
            let n = generator.drawRequests(&rng)
            let counts = generator.drawCounts(n, &rng)
            return generator.drawTypeBytes(counts, &rng).values.reduce(0, +)
        }
    }
}
