import BenchCore

/// Gilbert-Elliott two-state loss: a Markov chain over Good and Bad states, stepped once per
/// packet, with a loss probability in each state. With `lossInGood = 0` and `lossInBad = 1`
/// (the simple Gilbert model) losses come in bursts of mean length `1 / badToGood`.
public struct GilbertElliott: Sendable, Equatable {
    public var goodToBad: Double
    public var badToGood: Double
    public var lossInGood: Double
    public var lossInBad: Double

    public init(goodToBad: Double, badToGood: Double, lossInGood: Double = 0, lossInBad: Double = 1) {
        self.goodToBad = goodToBad
        self.badToGood = badToGood
        self.lossInGood = lossInGood
        self.lossInBad = lossInBad
    }

    /// Long-run loss rate: π_bad·lossInBad + π_good·lossInGood.
    public var meanLossRate: Double {
        let sum = goodToBad + badToGood
        guard sum > 0 else { return lossInGood }
        let bad = goodToBad / sum
        return bad * lossInBad + (1 - bad) * lossInGood
    }

    /// The parameters that give a mean loss rate `rate` in bursts of mean length `burst` packets
    /// (simple Gilbert: all losses in Bad). The quic-interop-runner's "30% in bursts of 3" is
    /// `burst(rate: 0.3, meanBurstLength: 3)`.
    public static func burst(rate: Double, meanBurstLength burst: Double) -> GilbertElliott {
        if rate >= 1 { return GilbertElliott(goodToBad: 1, badToGood: 0) }
        let r = 1 / max(1, burst)
        let p = r * max(0, rate) / (1 - rate)
        return GilbertElliott(goodToBad: min(1, p), badToGood: r)
    }
}

/// Random packet loss at the entrance of a link.
public enum LossModel: Sendable, Equatable {
    case none
    /// Each packet is lost independently with this probability.
    case bernoulli(Double)
    case gilbertElliott(GilbertElliott)

    public var meanLossRate: Double {
        switch self {
        case .none: return 0
        case .bernoulli(let p): return p
        case .gilbertElliott(let ge): return ge.meanLossRate
        }
    }
}

/// The running state of a `LossModel`: one seeded generator per link direction, so a `--seed`
/// reproduces the same loss pattern for the same packet sequence.
public struct LossProcess: Sendable {
    public let model: LossModel
    private var random: SeededRandom
    private var inBadState = false

    public init(model: LossModel, seed: UInt64) {
        self.model = model
        self.random = SeededRandom(seed: seed)
    }

    /// Decides the fate of the next packet: true means it is lost.
    public mutating func dropsNextPacket() -> Bool {
        switch model {
        case .none:
            return false
        case .bernoulli(let p):
            if p <= 0 { return false }
            if p >= 1 { return true }
            return random.nextUnit() < p
        case .gilbertElliott(let ge):
            // Step the chain first, then draw in the new state (the netem order).
            let flip = inBadState ? ge.badToGood : ge.goodToBad
            if flip > 0 && random.nextUnit() < flip { inBadState.toggle() }
            let p = inBadState ? ge.lossInBad : ge.lossInGood
            if p <= 0 { return false }
            if p >= 1 { return true }
            return random.nextUnit() < p
        }
    }
}
