import Foundation
import BenchCore

/// The shape of a jitter distribution, all with mean 0 before clamping (netem's names and meanings).
public enum JitterDistribution: String, Sendable, Equatable, CaseIterable {
    /// Uniform on [−deviation, +deviation] (netem's default without a table).
    case uniform
    /// Normal with standard deviation `deviation`.
    case normal
    /// Pareto with shape 3, shifted and scaled to mean 0 and standard deviation `deviation`
    /// (netem's `pareto` table is the same distribution): a long tail of late packets.
    case pareto
    /// netem's `paretonormal`: ¼ of a unit normal plus ¾ of the unit Pareto above, times `deviation`.
    case paretoNormal = "paretonormal"
}

/// Random variation added to each packet's one-way delay.
public struct Jitter: Sendable, Equatable {
    public var distribution: JitterDistribution
    /// Half-width (uniform) or standard-deviation scale (the others).
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

    /// The lowest offset a draw can give (−deviation for uniform; unbounded, so nil, for the others).
    public var lowestOffset: Nanoseconds? {
        switch distribution {
        case .uniform: return -deviation
        case .pareto: return -Nanoseconds((Double(deviation) * Self.paretoMean / Self.paretoSD).rounded(.up))
        case .normal, .paretoNormal: return nil
        }
    }

    /// One draw of the offset, in nanoseconds (may be negative).
    public func offset(using random: inout SeededRandom) -> Nanoseconds {
        guard deviation > 0 else { return 0 }
        let unit: Double
        switch distribution {
        case .uniform: unit = 2 * random.nextUnit() - 1
        case .normal: unit = Self.standardNormal(&random)
        case .pareto: unit = Self.unitPareto(&random)
        case .paretoNormal: unit = 0.25 * Self.standardNormal(&random) + 0.75 * Self.unitPareto(&random)
        }
        return Nanoseconds((unit * Double(deviation)).rounded())
    }

    /// The distribution's CDF at `x` nanoseconds of offset (no clamping; for tests and calibration).
    public func cdf(_ x: Double) -> Double {
        let d = Double(deviation)
        guard d > 0 else { return x >= 0 ? 1 : 0 }
        let z = x / d
        switch distribution {
        case .uniform: return min(1, max(0, (z + 1) / 2))
        case .normal: return 0.5 * erfc(-z / 2.squareRoot())
        case .pareto:
            let v = z * Self.paretoSD + Self.paretoMean + 1  // back to the Pareto's own scale (x_m = 1)
            return v < 1 ? 0 : 1 - pow(v, -Self.paretoShape)
        case .paretoNormal: return Double.nan  // no closed form; compare against samples instead
        }
    }

    static let paretoShape = 3.0
    /// Mean and standard deviation of Pareto(x_m = 1, α = 3) minus 1: 1/2 and √3/2.
    static let paretoMean = 0.5
    static let paretoSD = 3.0.squareRoot() / 2

    /// Box-Muller (one of the pair), from two uniform draws.
    static func standardNormal(_ random: inout SeededRandom) -> Double {
        let u1 = max(random.nextUnit(), 0x1p-53)
        let u2 = random.nextUnit()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// Pareto(x_m = 1, α = 3) by inversion, standardized to mean 0 and standard deviation 1.
    static func unitPareto(_ random: inout SeededRandom) -> Double {
        let u = 1 - random.nextUnit()  // (0, 1]
        return (pow(u, -1 / paretoShape) - 1 - paretoMean) / paretoSD
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
