/// The statistical shape of the pages `ScenarioGenerator` draws: how many requests, of which type,
/// how many bytes, on how many origins. Every figure names its source; where the reference figures
/// (HTTP Archive, Web Almanac 2024 page-weight chapter, October 2024 crawl) say nothing, the value is
/// marked as an assumption.
///
/// The model, per page:
/// 1. Requests N: log-normal-like, piecewise linear in log space between the five published
///    percentiles (p10, p25, p50, p75, p90) against the standard-normal quantile, extrapolated
///    with the outer slopes beyond p10 and p90. It reproduces those percentiles exactly.
/// 2. Requests per type: N split in proportion to the per-type median counts, each share jittered
///    by a log-normal factor (σ = `mixSpread`), then rounded by largest remainder.
/// 3. Bytes per type: `medianBytes[t] · (count[t] / medianCount[t])^elasticity · e^(σ[t]·z)`,
///    independent across types. Its median per type is the published per-type median; the median
///    of the page total comes out at the published median page weight because the sum of
///    right-skewed parts has a median above the sum of their medians. The σ values are fitted to
///    make that happen.
/// 4. Within a type, bytes are split over resources by log-normal weights (σ = `sizeSpread[t]`).
///
/// Measured on 5,000 generated pages (seeds 1–5000), mobile: requests p10/p25/p50/p75/p90
/// 22/38/65/107/169 (published 22/39/66/109/170); median bytes HTML 18 KB, CSS 70, fonts 107,
/// JS 523, images 834 (published 18/73/111/558/900: 4–7% low, because whole request counts and
/// the normalised mix jitter put the median page's type counts a little under the medians);
/// median page 2,291 KB (2,311); 91.9% of pages with a third party (92%); scripts 31% of
/// third-party requests (~30%). Desktop: 24/41/70/113/175 requests, median page 2,570 KB (2,652).
public struct PageDistribution: Sendable, Hashable {
    public typealias ResourceType = Scenario.ResourceType

    /// A point of the published requests-per-page distribution.
    public struct Quantile: Sendable, Hashable {
        public var probability: Double
        public var value: Double
        public init(_ probability: Double, _ value: Double) { self.probability = probability; self.value = value }
    }

    public var name: String
    /// Requests per page at p10, p25, p50, p75, p90.
    public var requestQuantiles: [Quantile]
    /// Median requests per type on the median page; they add up to the median request count.
    public var medianCount: [ResourceType: Double]
    /// Median response bytes per type (all of a page's resources of that type together).
    public var medianBytes: [ResourceType: Double]
    /// The published median page weight (bytes), for reports and tests; the model does not force it.
    public var medianPageBytes: Double
    /// σ of the log-normal factor on each type's bytes (fitted, see the type's doc comment).
    public var bytesSpread: [ResourceType: Double]
    /// How per-type bytes grow with the type's request count (assumption: sub-linear, 0.7;
    /// HTML 0.3 because extra documents are small frames, not a second page).
    public var bytesElasticity: [ResourceType: Double]
    /// σ of the log-normal weights that split a type's bytes over its resources (assumption:
    /// images vary most — hero images next to icons — fonts least).
    public var sizeSpread: [ResourceType: Double]
    /// σ of the jitter on each type's share of the requests (assumption).
    public var mixSpread: Double
    /// Share of pages with at least one third-party origin (HTTP Archive: 92%).
    public var thirdPartyPageShare: Double
    /// Probability that a resource of this type comes from a third party, on pages that have
    /// third parties. Assumption, fitted so that scripts are ~30% of third-party requests
    /// (HTTP Archive) — 0.35·22 scripts out of ~25 third-party requests on the mobile median page.
    public var thirdPartyShare: [ResourceType: Double]
    /// Median server think time of the main document and of XHR responses, in ms (assumption:
    /// "modest" — a warm application server; the network part of TTFB is the emulator's job).
    public var documentThinkTimeMs: Double
    public var xhrThinkTimeMs: Double

    public init(
        name: String, requestQuantiles: [Quantile], medianCount: [ResourceType: Double],
        medianBytes: [ResourceType: Double], medianPageBytes: Double,
        bytesSpread: [ResourceType: Double] = PageDistribution.defaultBytesSpread,
        bytesElasticity: [ResourceType: Double] = PageDistribution.defaultElasticity,
        sizeSpread: [ResourceType: Double] = PageDistribution.defaultSizeSpread,
        mixSpread: Double = 0.25, thirdPartyPageShare: Double = 0.92,
        thirdPartyShare: [ResourceType: Double] = PageDistribution.defaultThirdPartyShare,
        documentThinkTimeMs: Double = 50, xhrThinkTimeMs: Double = 25
    ) {
        self.name = name; self.requestQuantiles = requestQuantiles; self.medianCount = medianCount
        self.medianBytes = medianBytes; self.medianPageBytes = medianPageBytes; self.bytesSpread = bytesSpread
        self.bytesElasticity = bytesElasticity; self.sizeSpread = sizeSpread; self.mixSpread = mixSpread
        self.thirdPartyPageShare = thirdPartyPageShare; self.thirdPartyShare = thirdPartyShare
        self.documentThinkTimeMs = documentThinkTimeMs; self.xhrThinkTimeMs = xhrThinkTimeMs
    }

    /// The median request count (the p50 quantile).
    public var medianRequests: Double {
        requestQuantiles.first { $0.probability == 0.5 }?.value
            ?? ResourceType.allCases.reduce(0) { $0 + (medianCount[$1] ?? 0) }
    }

    /// Fitted so the median of the page total matches the published median page weight
    /// (20,000 simulated pages: 2.28 MB mobile against 2,311 KB published).
    public static let defaultBytesSpread: [ResourceType: Double] = [
        .document: 0.8, .stylesheet: 1.0, .script: 1.1, .font: 1.0, .image: 1.4, .xhr: 1.0, .other: 1.2,
    ]
    public static let defaultElasticity: [ResourceType: Double] = [
        .document: 0.3, .stylesheet: 0.7, .script: 0.7, .font: 0.7, .image: 0.7, .xhr: 0.7, .other: 0.7,
    ]
    public static let defaultSizeSpread: [ResourceType: Double] = [
        .document: 0.5, .stylesheet: 0.9, .script: 1.0, .font: 0.4, .image: 1.2, .xhr: 0.6, .other: 1.0,
    ]
    public static let defaultThirdPartyShare: [ResourceType: Double] = [
        .document: 1.0, .stylesheet: 0.15, .script: 0.35, .font: 0.4, .image: 0.35, .xhr: 0.6, .other: 0.5,
    ]

    /// HTTP Archive, Web Almanac 2024 (October 2024 crawl), mobile home pages.
    ///
    /// Requests: p10 22, p25 39, p50 66, p75 109, p90 170. Median mix: 2 HTML, 3 fonts, 8 CSS,
    /// 16 images, 22 JS; the other 15 of the 66 are split 9 XHR / 6 other (assumption: the
    /// Almanac's figures leave them as the remainder). Median bytes: HTML 18 KB, CSS 73 KB,
    /// fonts 111 KB, JS 558 KB, images 900 KB; XHR 20 KB and other 30 KB are assumptions.
    /// Median page: 2,311 KB.
    public static let mobile2024 = PageDistribution(
        name: "mobile",
        requestQuantiles: [.init(0.10, 22), .init(0.25, 39), .init(0.50, 66), .init(0.75, 109), .init(0.90, 170)],
        medianCount: [.document: 2, .stylesheet: 8, .script: 22, .font: 3, .image: 16, .xhr: 9, .other: 6],
        medianBytes: [
            .document: 18_000, .stylesheet: 73_000, .script: 558_000, .font: 111_000,
            .image: 900_000, .xhr: 20_000, .other: 30_000,
        ],
        medianPageBytes: 2_311_000)

    /// HTTP Archive, Web Almanac 2024 (October 2024 crawl), desktop home pages.
    ///
    /// Requests: p10 24, p25 42, p50 71, p75 115, p90 176. Median mix: 2 HTML, 4 fonts, 8 CSS,
    /// 18 images, 24 JS; remainder 15 split 9 XHR / 6 other (assumption). Median bytes: HTML 18 KB,
    /// CSS 78 KB, fonts 131 KB, JS 613 KB, images 1,054 KB; XHR 20 KB, other 30 KB (assumptions).
    /// Median page: 2,652 KB.
    public static let desktop2024 = PageDistribution(
        name: "desktop",
        requestQuantiles: [.init(0.10, 24), .init(0.25, 42), .init(0.50, 71), .init(0.75, 115), .init(0.90, 176)],
        medianCount: [.document: 2, .stylesheet: 8, .script: 24, .font: 4, .image: 18, .xhr: 9, .other: 6],
        medianBytes: [
            .document: 18_000, .stylesheet: 78_000, .script: 613_000, .font: 131_000,
            .image: 1_054_000, .xhr: 20_000, .other: 30_000,
        ],
        medianPageBytes: 2_652_000)

    /// The distributions by name, for `--distribution`.
    public static let all: [PageDistribution] = [mobile2024, desktop2024]

    /// A copy with another request mix and per-type bytes (the shape of special pages such as an
    /// image gallery or a single-page app); figures not given keep this distribution's values.
    public func with(name: String, medianCount: [ResourceType: Double], medianBytes: [ResourceType: Double])
        -> PageDistribution
    {
        var d = self
        d.name = name
        d.medianCount = medianCount
        d.medianBytes = medianBytes
        d.medianPageBytes = ResourceType.allCases.reduce(0) { $0 + (medianBytes[$1] ?? 0) }
        return d
    }
}
