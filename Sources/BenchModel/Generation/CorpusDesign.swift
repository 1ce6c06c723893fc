import Foundation

/// Where the pages of a corpus sit in the HTTP Archive distribution: one point per page in the unit
/// square (request-count quantile, page-weight quantile), drawn as a **Latin hypercube** (McKay,
/// Beckman & Conover 1979): with N pages, each axis is cut into N equal strata and every stratum of
/// each axis holds exactly one page, at a uniform position inside it; the pairing of the two axes is
/// a seeded random permutation. So a corpus of 50 pages has exactly 5 pages below the p10 request
/// count and 5 above the p90, rather than as many as chance gives, and its pages span both tails
/// instead of crowding round the medians. Pages are ordered by request quantile (page 1 the smallest).
///
/// Pure: a function of `count` and `seed` only (draws from `GeneratorRandom`, which fixes how many
/// uniforms each draw consumes).
public struct CorpusDesign: Sendable, Hashable {
    /// One page's position: both values in (0, 1).
    public struct Point: Sendable, Hashable {
        /// The quantile of the page's request count in the published requests-per-page distribution.
        public var requestsQuantile: Double
        /// The quantile of the page's weight among the pages of that request count that the
        /// generator's model draws (see `CorpusGenerator.pageWeight`).
        public var bytesQuantile: Double
    }

    public let points: [Point]

    public init(count: Int, seed: UInt64) {
        precondition(count >= 1, "a corpus has at least one page")
        var rng = GeneratorRandom(seed: seed ^ 0xC0E9_5A11_0000_0000)
        var pairing = Array(0..<count)
        for i in stride(from: count - 1, to: 0, by: -1) { pairing.swapAt(i, rng.index(i + 1)) }
        let n = Double(count)
        var out: [Point] = []
        for i in 0..<count {
            let r = (Double(i) + Self.inside(&rng)) / n
            let b = (Double(pairing[i]) + Self.inside(&rng)) / n
            out.append(Point(requestsQuantile: r, bytesQuantile: b))
        }
        points = out
    }

    /// A position inside a stratum, kept off its edges by 1e-6 so no quantile is exactly 0 or 1.
    static func inside(_ rng: inout GeneratorRandom) -> Double { 1e-6 + rng.unit() * (1 - 2e-6) }
}

extension PageDistribution {
    /// Requests per page at quantile `p` of the published distribution: piecewise linear in
    /// log(requests) against the standard-normal quantile of the published percentiles, the outer
    /// slopes extended beyond p10 and p90 (the same curve `ScenarioGenerator` draws from), rounded,
    /// and kept in 3...5000.
    public func requests(atQuantile p: Double) -> Int {
        requests(atNormalScore: normalQuantile(min(max(p, 1e-9), 1 - 1e-9)))
    }

    /// The same curve at a standard-normal score `z`.
    func requests(atNormalScore z: Double) -> Int {
        let points = requestQuantiles.sorted { $0.probability < $1.probability }
            .map { (z: normalQuantile($0.probability), y: log($0.value)) }
        guard points.count >= 2 else { return Int(exp(points.first?.y ?? log(66.0)).rounded()) }
        var i = 0
        while i < points.count - 2 && z > points[i + 1].z { i += 1 }
        let (a, b) = (points[i], points[i + 1])
        let y = a.y + (z - a.z) * (b.y - a.y) / (b.z - a.z)
        return min(5000, max(3, Int(exp(y).rounded())))
    }
}
