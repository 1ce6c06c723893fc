import Foundation
import BenchCore

/// A corpus: N synthetic pages spanning the HTTP Archive distribution (not N copies of its median),
/// for studies that judge transports over many pages, as the Mahimahi paper did over 500 sites.
///
/// Page i sits at the point `CorpusDesign` gives it (a Latin hypercube over the request-count and
/// page-weight quantiles). Its request count is the published requests-per-page distribution at its
/// request quantile (`PageDistribution.requests(atQuantile:)`); its weight is `pageWeight` at its
/// bytes quantile, given that count; everything else (type mix, sizes, origins, dependency tree,
/// think times) is drawn by `ScenarioGenerator` with the page's own seed. Every host name carries
/// the page's label (`www.shop.test` → `www.shop-p0007.test`), so no two pages share a connection,
/// a TLS session or a cache entry, and each page keeps its first-/third-party split (the label goes
/// on the registrable domain, not in front of it).
///
/// Pure and deterministic: the same count, seed and distribution give the same pages, byte for byte.
public struct CorpusGenerator: Sendable {
    public struct Page: Sendable {
        public var scenario: Scenario
        public var entry: CorpusManifest.Page
    }

    public let count: Int
    public let seed: UInt64
    public let distribution: PageDistribution

    /// Checks the count (1...100,000); a bad one is a usage error naming it.
    public init(count: Int, seed: UInt64, distribution: PageDistribution = .mobile2024) throws {
        guard (1...100_000).contains(count) else {
            throw BenchError.usage("--corpus \(count) must be between 1 and 100000 pages")
        }
        self.count = count; self.seed = seed; self.distribution = distribution
    }

    /// The pages and the manifest that names them.
    public func generate() throws -> (pages: [Page], manifest: CorpusManifest) {
        let design = CorpusDesign(count: count, seed: seed)
        let width = max(4, String(count).count)
        var weightModel: [Int: [Double]] = [:]
        var pages: [Page] = []
        for (i, point) in design.points.enumerated() {
            let number = String(repeating: "0", count: width - String(i + 1).count) + String(i + 1)
            let n = distribution.requests(atQuantile: point.requestsQuantile)
            if weightModel[n] == nil { weightModel[n] = Self.logWeights(distribution, requests: n) }
            let weight = Self.pageWeight(weightModel[n]!, quantile: point.bytesQuantile)
            let bytes = max(Int64(64 * n), Int64(weight.rounded()))
            let pageSeed = seed &* 1_000_003 &+ UInt64(i + 1)
            let options = ScenarioGenerator.Options(
                name: "corpus-\(number)", distribution: distribution, requests: n,
                totalBytes: bytes, seed: pageSeed)
            var scenario = Self.labelHosts(try ScenarioGenerator(options).generate(), label: "p\(number)")
            scenario.description =
                "Corpus page \(i + 1) of \(count) (seed \(seed), \(distribution.name) distribution, HTTP Archive "
                    + "2024): "
                + "request quantile \(Self.rounded(point.requestsQuantile)), weight quantile "
                + "\(Self.rounded(point.bytesQuantile)) at its request count; "
                + "\(n) requests, \(Units.formatBytes(bytes)), \(scenario.origins.count) origins"
            let entry = CorpusManifest.Page(
                file: "page-\(number).json", name: scenario.name,
                requestsQuantile: Self.rounded(point.requestsQuantile),
                bytesQuantile: Self.rounded(point.bytesQuantile),
                requests: scenario.resources.count, bytes: scenario.totalBytes,
                origins: scenario.origins.count, seed: pageSeed)
            pages.append(Page(scenario: scenario, entry: entry))
        }
        let manifest = CorpusManifest(
            count: count, seed: seed, distribution: distribution.name, pages: pages.map(\.entry))
        return (pages, manifest)
    }

    /// The page weight at `requests` requests and weight quantile `q`: the empirical quantile of
    /// 1,000 page weights the generator's own model draws at that request count (type-mix jitter,
    /// per-type log-normal bytes; a fixed internal seed per count), interpolated in log space between
    /// Hazen plotting positions ((k − ½)/1000) and held at the smallest and largest draw beyond them.
    /// So the bytes quantile means "this share of the model's pages with as many requests weigh
    /// less". (The HTTP Archive publishes the median page weight, not its spread at a given request
    /// count; the spread here is the generator's, whose median page matches the published 2,311 KB.)
    static func pageWeight(_ sortedLogs: [Double], quantile q: Double) -> Double {
        let k = Double(sortedLogs.count)
        let h = min(max(q * k - 0.5, 0), k - 1)
        let i = Int(h.rounded(.down))
        let j = min(i + 1, sortedLogs.count - 1)
        return exp(sortedLogs[i] + (h - Double(i)) * (sortedLogs[j] - sortedLogs[i]))
    }

    /// The sorted log page weights of 1,000 pages of `n` requests drawn by the generator's model.
    static func logWeights(_ distribution: PageDistribution, requests n: Int) -> [Double] {
        guard let generator = try? ScenarioGenerator(.init(distribution: distribution, requests: n)) else {
            return [log(Double(n) * 35_000)]
        }
        var rng = GeneratorRandom(seed: 0x3E16_47A0 &+ UInt64(n))
        var logs: [Double] = []
        for _ in 0..<1000 {
            let counts = generator.drawCounts(n, &rng)
            let total = generator.drawTypeBytes(counts, &rng).values.reduce(0, +)
            logs.append(log(max(1, total)))
        }
        return logs.sorted()
    }

    /// `www.shop.test` → `www.shop-LABEL.test`: the label joins the second-level name, so the page's
    /// origins stay distinct registrable domains (first and third parties) and unique to the page.
    static func labelHosts(_ s: Scenario, label: String) -> Scenario {
        var out = s
        out.origins = s.origins.map { o in
            var parts = o.host.split(separator: ".").map(String.init)
            let at = max(0, parts.count - 2)
            parts[at] += "-" + label
            return Scenario.Origin(id: o.id, host: parts.joined(separator: "."))
        }
        return out
    }

    static func rounded(_ q: Double) -> Double { (q * 10_000).rounded() / 10_000 }
}
