import BenchCore
import BenchModel
import Statistics

/// Across many pages: per profile, how each transport's median page load compares with the
/// baseline transport's, page by page (a corpus study, as the Mahimahi paper's 500 sites).
///
/// Per page (scenario) and profile, the **ratio** is median PLT(transport) / median PLT(baseline)
/// over the counted runs (below 1: the transport is faster on that page). Its distribution across
/// pages is shown as an empirical CDF and as quantiles (linear interpolation, `Descriptive.percentile`).
/// A page is **decided** when the two-sided Mann-Whitney U test of its runs (the same p the panel
/// verdicts use) is at most q = 0.05 after the Benjamini–Hochberg correction across the pages of
/// that profile and transport (`FalseDiscoveryRate.benjaminiHochberg`), so at most ~5% of the
/// decided pages are expected to be false calls; its direction is the side of 1 its ratio lies on.
/// Only the reference client's runs enter (the built-in client when several were run). Bulk
/// scenarios are pages too here only if their PLT is recorded; a profile enters when at least
/// `minimumPages` pages have both medians.
public struct CorpusSummary: Sendable {
    /// Fewer pages than this: the per-page panels say it all, and no corpus section is made.
    public static let minimumPages = 10
    public static let fdr = 0.05

    public enum Decision: String, Sendable { case faster, slower, undecided }

    public struct Page: Sendable {
        public var scenario: String
        public var baselineMedian: Double
        public var median: Double
        public var ratio: Double
        public var pValue: Double
        public var adjustedP: Double
        public var decision: Decision
        /// The smallest p the test gives for these run counts (complete separation): no page goes below it.
        public var smallestPossibleP: Double
    }

    /// One transport against the baseline on one profile, its pages sorted by ratio (then name).
    public struct Series: Sendable {
        public var profile: String
        public var transport: TransportKind
        public var baseline: TransportKind
        public var pages: [Page]

        public var ratios: [Double] { pages.map(\.ratio) }
        public func quantile(_ p: Double) -> Double? { Descriptive.percentile(ratios, p) }
        public func count(_ d: Decision) -> Int { pages.filter { $0.decision == d }.count }
        /// Pages with Mann-Whitney p < 0.05 before the correction (what testing page by page would claim).
        public var uncorrectedDecided: Int { pages.filter { $0.pValue < CorpusSummary.fdr }.count }
        /// The fewest pages that must reach the smallest possible p before Benjamini–Hochberg decides
        /// any (k with floor · m / k ≤ q): 1 when one page alone can be decided. Few runs per cell
        /// raise it: 5 against 5 runs cannot go below p 0.0122, so 50 pages need 13 such pages.
        public var pagesNeededToDecide: Int {
            guard let floor = pages.map(\.smallestPossibleP).min() else { return 1 }
            return max(1, Int((floor * Double(pages.count) / CorpusSummary.fdr - 1e-9).rounded(.up)))
        }
    }

    public let series: [Series]

    /// nil when no profile has `minimumPages` pages with a transport and its baseline.
    public init?(_ a: ResultsAnalysis) {
        var out: [Series] = []
        let client = a.referenceClient
        for profile in a.profiles {
            var byTransport: [TransportKind: [(String, TransportKind, Comparison)]] = [:]
            for scenario in a.scenarios {
                guard let base = a.baselineTransport(scenario: scenario, profile: profile) else { continue }
                for t in a.transports(scenario: scenario, profile: profile) where t != base {
                    let cell = CellKey(scenario: scenario, profile: profile, transport: t, client: client)
                    if let c = a.comparison("pltMs", cell), c.baselineMedian > 0 {
                        byTransport[t, default: []].append((scenario, base, c))
                    }
                }
            }
            for t in a.transports {
                guard let rows = byTransport[t], rows.count >= Self.minimumPages else { continue }
                // Pages of one series may differ in baseline only if the suite named none; keep the commonest.
                let base = Dictionary(grouping: rows, by: \.1).max { $0.value.count < $1.value.count }!.key
                let kept = rows.filter { $0.1 == base }
                let adjusted = FalseDiscoveryRate.benjaminiHochberg(kept.map(\.2.pValue))
                var pages: [Page] = []
                for (i, (scenario, _, c)) in kept.enumerated() {
                    let ratio = c.candidateMedian / c.baselineMedian
                    let decision: Decision =
                        adjusted[i] > Self.fdr || ratio == 1 ? .undecided : ratio < 1 ? .faster : .slower
                    let floor =
                        MannWhitney.test(
                            (0..<c.baselineCount).map(Double.init),
                            (0..<c.candidateCount).map { Double(c.baselineCount + $0) })?.pValue ?? 1
                    pages.append(
                        Page(
                            scenario: scenario, baselineMedian: c.baselineMedian, median: c.candidateMedian,
                            ratio: ratio,
                            pValue: c.pValue, adjustedP: adjusted[i], decision: decision, smallestPossibleP: floor))
                }
                pages.sort { ($0.ratio, $0.scenario) < ($1.ratio, $1.scenario) }
                out.append(Series(profile: profile, transport: t, baseline: base, pages: pages))
            }
        }
        guard !out.isEmpty else { return nil }
        series = out
    }

    /// The quantiles every report shows.
    public static let shownQuantiles: [Double] = [10, 25, 50, 75, 90]
}

/// `corpus.csv`: one row per profile × transport × page, sorted by ratio within each series, with
/// the empirical CDF at that page (its rank / pages). Empty (and not written) without a corpus.
public enum CorpusCSV {
    public static let header =
        "profile,transport,baseline,scenario,baseline_median_ms,median_ms,ratio,cdf,p_value,p_bh,decision"

    public static func render(_ a: ResultsAnalysis) -> String {
        guard let corpus = CorpusSummary(a) else { return "" }
        var lines = [header + "\n"]
        for s in corpus.series {
            for (k, p) in s.pages.enumerated() {
                lines.append(
                    CSV.record([
                        s.profile, s.transport.rawValue, s.baseline.rawValue, p.scenario,
                        Format.number(p.baselineMedian), Format.number(p.median), Format.fraction(p.ratio),
                        Format.fraction(Double(k + 1) / Double(s.pages.count)), Format.fraction(p.pValue),
                        Format.fraction(p.adjustedP), p.decision.rawValue,
                    ]))
            }
        }
        return lines.joined()
    }

    public static let reporter = TextReporter(fileName: "corpus.csv", needsAnalysis: true) { render($1!) }
}
