import Foundation
import BenchCore

/// The draws the generator needs, on top of `SeededRandom`'s uniform stream. Every draw consumes a
/// fixed number of uniforms, so the same seed gives the same page on every platform and toolchain
/// (no reliance on the standard library's `random(in:)` algorithms, which may change).
struct GeneratorRandom {
    private var source: SeededRandom

    init(seed: UInt64) { source = SeededRandom(seed: seed) }

    /// Uniform in [0, 1).
    mutating func unit() -> Double { source.nextUnit() }

    /// Uniform in [low, high).
    mutating func uniform(_ low: Double, _ high: Double) -> Double { low + (high - low) * unit() }

    /// Standard normal (Box–Muller, one value per call: two uniforms).
    mutating func normal() -> Double {
        let u1 = 1 - unit()  // (0, 1]: log is finite
        let u2 = unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// Log-normal with the given median and σ of the underlying normal.
    mutating func logNormal(median: Double, sigma: Double) -> Double {
        median * exp(sigma * normal())
    }

    mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// Uniform index in 0..<count (count > 0).
    mutating func index(_ count: Int) -> Int { min(count - 1, Int(unit() * Double(count))) }

    mutating func pick<T>(_ items: [T]) -> T { items[index(items.count)] }

    /// An index drawn with probability proportional to `weights` (not all zero).
    mutating func weighted(_ weights: [Double]) -> Int {
        let total = weights.reduce(0, +)
        var x = unit() * total
        for (i, w) in weights.enumerated() {
            if x < w { return i }
            x -= w
        }
        return weights.lastIndex { $0 > 0 } ?? 0
    }

    /// Eight lowercase hex digits, as a content hash in an asset file name.
    mutating func hex8() -> String {
        let v = source.next() >> 32
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, 8 - s.count)) + s
    }
}

/// The standard-normal quantile function Φ⁻¹(p) for p in (0, 1) (Acklam's rational approximation,
/// relative error below 1.2e-9): places the published percentiles on the normal scale.
func normalQuantile(_ p: Double) -> Double {
    precondition(p > 0 && p < 1, "normalQuantile needs 0 < p < 1")
    let a = [
        -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
        1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00,
    ]
    let b = [
        -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
        6.680131188771972e+01, -1.328068155288572e+01,
    ]
    let c = [
        -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
        -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00,
    ]
    let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
    let low = 0.02425
    if p < low {
        let q = (-2 * log(p)).squareRoot()
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
            / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    }
    if p > 1 - low { return -normalQuantile(1 - p) }
    let q = p - 0.5
    let r = q * q
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
        / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
}
