/// Control of the false-discovery rate when one question is asked of many pages at once.
///
/// Testing 500 pages at p < 0.05 calls about 25 of them "different" when no transport differs on
/// any: the share of false calls among the pages called different (the false-discovery rate) is
/// what a corpus study must bound, not the error of each test alone.
public enum FalseDiscoveryRate {
    /// Benjamini–Hochberg adjusted p-values (Benjamini & Hochberg 1995, the step-up procedure), the
    /// same numbers as R's `p.adjust(p, method = "BH")`.
    ///
    /// With m p-values sorted ascending, p₍₁₎ ≤ … ≤ p₍ₘ₎, the adjusted value of rank i is
    /// min over k ≥ i of min(1, m · p₍ₖ₎ / k) (a running minimum from the largest p down, so the
    /// adjusted values keep the order of the raw ones); results come back in the input's order.
    /// Rejecting every hypothesis whose adjusted p is ≤ q keeps the expected false-discovery rate at
    /// or below q for independent (or positively dependent) tests. Ties get the same adjusted value.
    /// An empty input gives an empty output; a NaN p-value is treated as 1.
    public static func benjaminiHochberg(_ p: [Double]) -> [Double] {
        let m = p.count
        guard m > 0 else { return [] }
        let clean = p.map { $0.isNaN ? 1 : min(max($0, 0), 1) }
        // Descending by p. The order among equal p-values does not matter: they end with the same running minimum.
        let order = clean.indices.sorted { clean[$0] != clean[$1] ? clean[$0] > clean[$1] : $0 > $1 }
        var adjusted = [Double](repeating: 1, count: m)
        var running = 1.0
        for (position, index) in order.enumerated() {
            let rank = Double(m - position)  // rank in ascending order, 1-based
            running = min(running, Double(m) * clean[index] / rank)
            adjusted[index] = min(1, running)
        }
        return adjusted
    }

    /// Which hypotheses Benjamini–Hochberg rejects at false-discovery rate `q` (adjusted p ≤ q).
    public static func discoveries(_ p: [Double], q: Double = 0.05) -> [Bool] {
        benjaminiHochberg(p).map { $0 <= q }
    }
}
