/// Outlier flags by the median absolute deviation (Iglewicz & Hoaglin's modified z-score; hyperfine
/// `outlier_detection.rs` uses the same scheme with a looser cut-off).
///
/// A value is flagged when |x − median| > threshold · σ̂, where σ̂ = 1.4826·MAD is the MAD scaled to
/// estimate the standard deviation of normal data (1.4826 = 1/Φ⁻¹(¾); SciPy
/// `median_abs_deviation(scale="normal")`). The default threshold 3.5 is Iglewicz & Hoaglin's
/// (modified z-score 0.6745·(x − median)/MAD > 3.5).
///
/// When more than half the values are equal the MAD is 0; then σ̂ falls back to
/// 1.2533·(mean absolute deviation from the median) (√(π/2), the same normal-consistency scaling),
/// and when that is 0 too, every value equals the median and nothing is flagged.
public enum Outliers {
    public static let defaultThreshold = 3.5
    /// 1/Φ⁻¹(3/4).
    public static let madToSigma = 1.482602218505602
    /// √(π/2).
    public static let meanADToSigma = 1.2533141373155003

    /// One flag per value, in the order given.
    public static func flags(_ xs: [Double], threshold: Double = defaultThreshold) -> [Bool] {
        guard let m = Descriptive.median(xs) else { return [] }
        let deviations = xs.map { abs($0 - m) }
        var scale = madToSigma * (Descriptive.median(deviations) ?? 0)
        if scale == 0 { scale = meanADToSigma * (Descriptive.mean(deviations) ?? 0) }
        guard scale > 0 else { return xs.map { _ in false } }
        return deviations.map { $0 > threshold * scale }
    }

    /// How many values `flags` marks.
    public static func count(_ xs: [Double], threshold: Double = defaultThreshold) -> Int {
        flags(xs, threshold: threshold).filter { $0 }.count
    }
}
