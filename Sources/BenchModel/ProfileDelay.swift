import BenchCore

extension Profile {
    /// The jitter distribution's name in a profile (netem's names).
    public enum JitterDistributionName: String, Codable, Hashable, Sendable, CaseIterable, NamedValues {
        case uniform, normal, pareto, paretonormal
    }

    /// `jitter` (both directions), `downJitter`, `upJitter`: random variation of the one-way delay.
    /// `{"deviation": "5ms"}` is ±5 ms uniform; `{"distribution": "normal", "deviation": "5ms"}`
    /// has σ = 5 ms. Order is kept unless `"reorder": true` (netem-style; see LinkModel.Jitter).
    public struct JitterSpec: Codable, Hashable, Sendable, CustomStringConvertible {
        /// Default `uniform`.
        public var distribution: JitterDistributionName?
        /// Half-width (uniform), σ (normal) or the scale of netem's pareto and paretonormal tables.
        public var deviation: DurationValue
        /// true: each packet's delay is drawn on its own and packets may overtake each other.
        public var reorder: Bool?

        public init(distribution: JitterDistributionName? = nil, deviation: DurationValue, reorder: Bool? = nil) {
            self.distribution = distribution; self.deviation = deviation; self.reorder = reorder
        }

        public var description: String {
            let d = distribution ?? .uniform
            let scale = d == .uniform ? "±" : d == .normal ? "σ " : "scale "
            return "\(scale)\(deviation) \(d.rawValue)\(reorder == true ? ", reordering" : "")"
        }
    }

    /// `reorder` (both directions), `downReorder`, `upReorder`: explicit reordering.
    /// `{"swap": "1%"}`: with probability 1% a packet is held until the next one has been released
    /// (at most `maxHold`, default 10 ms, beyond its own release). `{"jump": 3, "probability": "1%"}`
    /// or `{"jump": 3, "every": 100}`: a packet is released ahead of the 3 packets before it.
    public struct ReorderSpec: Codable, Hashable, Sendable, CustomStringConvertible {
        public var swap: Fraction?
        public var maxHold: DurationValue?
        public var jump: Int?
        public var probability: Fraction?
        public var every: Int?

        public init(
            swap: Fraction? = nil, maxHold: DurationValue? = nil, jump: Int? = nil, probability: Fraction? = nil,
            every: Int? = nil
        ) {
            self.swap = swap; self.maxHold = maxHold; self.jump = jump; self.probability = probability
            self.every = every
        }

        public static let defaultMaxHold = DurationValue.ms(10)

        public var description: String {
            if let swap { return "swap \(swap)" }
            let trigger = every.map { "every \($0)th" } ?? probability.map { "\($0)" } ?? "?"
            return "jump \(jump ?? 0) ahead, \(trigger)"
        }

        /// Problems as (key below the spec, message).
        func problems() -> [(String, String)] {
            var out: [(String, String)] = []
            switch (swap, jump) {
            case (nil, nil): out.append(("swap", "missing: give swap (a probability) or jump (a packet count)"))
            case (_?, _?): out.append(("jump", "give swap or jump, not both"))
            case (_?, nil):
                if probability != nil || every != nil {
                    out.append(("probability", "belongs to jump; swap is the probability itself"))
                }
            case (nil, let n?):
                if n < 1 { out.append(("jump", "\(n) must be at least 1 packet")) }
                if (probability == nil) == (every == nil) {
                    out.append(("probability", "a jump needs probability or every (not both)"))
                }
                if let e = every, e < 1 { out.append(("every", "\(e) must be at least 1")) }
                if maxHold != nil { out.append(("maxHold", "belongs to swap")) }
            }
            return out
        }
    }

    /// The delay-related keys' problems, as (key path, message).
    func delayProblems() -> [(String, String)] {
        var out: [(String, String)] = []
        let jitters = [("jitter", jitter), ("downJitter", downJitter), ("upJitter", upJitter)]
        for (key, r) in [("reorder", reorder), ("downReorder", downReorder), ("upReorder", upReorder)] {
            guard let r else { continue }
            out += r.problems().map { ("\(key).\($0.0)", $0.1) }
        }
        // A direction's explicit reordering needs order-keeping jitter in that direction.
        for down in [true, false] where jitter(down: down)?.reorder == true && reorder(down: down) != nil {
            let direction = down ? "down" : "up"
            out.append(("\(direction)Reorder", "explicit reordering needs order-keeping jitter (\"reorder\": false)"))
        }
        if !isEmulated {
            for (key, j) in jitters where j != nil { out.append((key, "needs an emulated profile")) }
        }
        return out
    }

    /// Whether any delay key (jitter, delay trace, reordering) is set: the delay then varies by design.
    public var hasDelayVariation: Bool {
        [true, false].contains { jitter(down: $0) != nil || reorder(down: $0) != nil || delayTrace(down: $0) != nil }
    }

    /// One direction's delay keys, resolved (per-direction key or the shared one).
    public func jitter(down: Bool) -> JitterSpec? { (down ? downJitter : upJitter) ?? jitter }
    public func reorder(down: Bool) -> ReorderSpec? { (down ? downReorder : upReorder) ?? reorder }
    public func delayTrace(down: Bool) -> String? { down ? downDelayTrace : upDelayTrace }

    /// The delay keys for `summary`: "; jitter ±5 ms uniform; reorder swap 1%" (empty without them).
    var delaySummary: String {
        var parts: [String] = []
        func both<T: Equatable & CustomStringConvertible>(_ name: String, _ d: T?, _ u: T?) {
            if let d, d == u { parts.append("\(name) \(d)"); return }
            if let d { parts.append("down \(name) \(d)") }
            if let u { parts.append("up \(name) \(u)") }
        }
        both("jitter", jitter(down: true), jitter(down: false))
        both("reorder", reorder(down: true), reorder(down: false))
        both("delay trace", downDelayTrace.map(Self.fileName), upDelayTrace.map(Self.fileName))
        return parts.map { "; " + $0 }.joined()
    }

    private static func fileName(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }
}
