import Foundation
import BenchCore

/// The shape of a jitter distribution: netem's names and tables (iproute2 `netem/*.c`), each a
/// quantile function of one uniform draw, clipped like netem's 16-bit tables to ±4 × deviation.
public enum JitterDistribution: String, Sendable, Equatable, CaseIterable {
    /// Uniform on [−deviation, +deviation] (netem's default without a table).
    case uniform
    /// Normal with standard deviation `deviation`.
    case normal
    /// netem's `pareto`: (x − 1.5)·4/3 × deviation for x Pareto-distributed with shape 3 and
    /// x_m = 1, so mean 0, standard deviation 1.155 × deviation, at least −2/3 × deviation, and a
    /// long tail of late packets.
    case pareto
    /// netem's `paretonormal`: (normal + 3 × pareto) / 4 of the same uniform draw (the two
    /// quantiles added, as netem's table does), × deviation.
    case paretoNormal = "paretonormal"

    /// The unit value at the uniform draw u ∈ [0, 1]: the inverse of the distribution's CDF.
    public func quantile(_ u: Double) -> Double {
        let clip = { (x: Double) in min(4, max(-4, x)) }
        let pareto = { min(4, (pow(max(1 - u, 0x1p-60), -1.0 / 3) - 1.5) * 4 / 3) }
        switch self {
        case .uniform: return 2 * u - 1
        case .normal: return clip(Self.inverseNormal(u))
        case .pareto: return pareto()
        case .paretoNormal: return clip((clip(Self.inverseNormal(u)) + 3 * pareto()) / 4)
        }
    }

    /// Φ⁻¹(p) by Acklam's rational approximation (relative error below 1.2e-9); ±∞ at 0 and 1.
    static func inverseNormal(_ p: Double) -> Double {
        if p <= 0 { return -.infinity }
        if p >= 1 { return .infinity }
        let a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.3577518672690,
                 -30.66479806614716, 2.506628277459239]
        let b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572]
        let c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
                 4.374664141464968, 2.938163982698783]
        let d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
        func tail(_ q: Double) -> Double {
            (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        if p < 0.02425 { return tail((-2 * log(p)).squareRoot()) }
        if p > 1 - 0.02425 { return -tail((-2 * log(1 - p)).squareRoot()) }
        let q = p - 0.5, r = q * q
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    }
}

/// Random variation added to each packet's one-way delay.
public struct Jitter: Sendable, Equatable {
    public var distribution: JitterDistribution
    /// Half-width (uniform) or the scale of netem's table (σ for normal; see `JitterDistribution`).
    public var deviation: Nanoseconds
    /// false (default): order-keeping, as a real queue: a packet is never released before the
    /// packet ahead of it on this direction (release = max(departure + delay + jitter, previous
    /// release)). true: each packet's release is departure + delay + jitter on its own, so packets
    /// whose jitter differs by more than their spacing are reordered (netem's behaviour).
    public var mayReorder: Bool

    public init(distribution: JitterDistribution = .uniform, deviation: Nanoseconds, mayReorder: Bool = false) {
        self.distribution = distribution
        self.deviation = max(0, deviation)
        self.mayReorder = mayReorder
    }

    /// The lowest offset a draw can give (the quantile at 0, × deviation, rounded down).
    public var lowestOffset: Nanoseconds {
        Nanoseconds((distribution.quantile(0) * Double(deviation)).rounded(.down))
    }

    /// One draw of the offset, in nanoseconds (may be negative).
    public func offset(using random: inout SeededRandom) -> Nanoseconds {
        guard deviation > 0 else { return 0 }
        let u = (Double(random.next() >> 11) + 0.5) * 0x1p-53  // (0, 1)
        return Nanoseconds((distribution.quantile(u) * Double(deviation)).rounded())
    }

    /// The distribution's CDF at an offset of `x` nanoseconds (before the delay's clamp at 0): the
    /// quantile function inverted by bisection (it is non-decreasing). For tests and calibration.
    public func cdf(_ x: Double) -> Double {
        let d = Double(deviation)
        guard d > 0 else { return x >= 0 ? 1 : 0 }
        let z = x / d
        var lo = 0.0, hi = 1.0
        if distribution.quantile(0) > z { return 0 }
        if distribution.quantile(1) <= z { return 1 }
        for _ in 0..<60 {
            let mid = (lo + hi) / 2
            if distribution.quantile(mid) <= z { lo = mid } else { hi = mid }
        }
        return lo
    }
}

/// Explicit reordering on top of the order-keeping delay stage (independent of jitter).
public enum Reordering: Sendable, Equatable {
    /// With probability `probability` a packet is held back until the next packet on this
    /// direction has been released and goes out right after it (the pair is swapped). A held
    /// packet that no later packet reaches within `maxHold` of its own release leaves then, in order.
    case swap(probability: Double, maxHold: Nanoseconds)
    /// A chosen packet jumps ahead of the `distance` packets before it still in the delay stage
    /// (of all of them when fewer wait) and is released at the release time of the first packet it
    /// passes, just before it. Chosen with probability `probability`, or every `every`-th packet.
    case jump(distance: Int, trigger: JumpTrigger)

    public enum JumpTrigger: Sendable, Equatable {
        case probability(Double)
        case every(Int)
    }
}

/// Everything about one direction's delay beyond a constant: a delay trace replacing the constant,
/// jitter on top, and explicit reordering. `.none` is the plain constant delay.
public struct DelayVariation: Sendable, Equatable {
    public var trace: DelayTrace?
    public var jitter: Jitter?
    public var reordering: Reordering?

    public init(trace: DelayTrace? = nil, jitter: Jitter? = nil, reordering: Reordering? = nil) {
        self.trace = trace
        self.jitter = jitter
        self.reordering = reordering
    }

    public static let none = DelayVariation()

    public var isNone: Bool { trace == nil && jitter == nil && reordering == nil }

    /// Whether this variation can release packets out of arrival order.
    public var reorders: Bool { reordering != nil || jitter?.mayReorder == true }
}
