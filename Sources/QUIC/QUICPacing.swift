/// The pacing gains of a QUIC sender under cubic or reno: the rate is gain × cwnd/smoothed RTT, one
/// gain for slow start and one after it; an infinite gain is no pacing in that phase (cwnd and the
/// ACK clock alone). BBR paces at its own rate whatever these say.
public struct QUICPacing: Sendable, Equatable, CustomStringConvertible {
    public var slowStart: Double
    public var congestionAvoidance: Double

    public init(slowStart: Double, congestionAvoidance: Double) {
        self.slowStart = slowStart
        self.congestionAvoidance = congestionAvoidance
    }

    /// netbench's default: 2 in slow start (Chromium's QUIC, Linux's `tcp_pacing_ss_ratio`), then
    /// ngtcp2's 1.25 (RFC 9002 §7.7's example; Chromium's QUIC also paces at 1.25 after slow start).
    public static let standard = QUICPacing(slowStart: 2, congestionAvoidance: 1.25)
    /// No pacing at all, as Linux TCP cubic sends without the fq qdisc.
    public static let off = QUICPacing(slowStart: .infinity, congestionAvoidance: .infinity)

    /// Parses `off`, or `SS,CA` where each is a gain from 1 to 100 or `off`: `2,1.25`, `2,off`.
    public init?(parsing text: String) {
        let t = text.lowercased()
        if t == "off" { self = .off; return }
        let parts = t.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let ss = Self.gain(parts[0]), let ca = Self.gain(parts[1]) else { return nil }
        self.init(slowStart: ss, congestionAvoidance: ca)
    }

    private static func gain(_ s: Substring) -> Double? {
        if s == "off" { return .infinity }
        guard let g = Double(s), g.isFinite, (1...100).contains(g) else { return nil }
        return g
    }

    /// The form `init(parsing:)` reads and results record (`runs[].server.quic.pacing`).
    public var description: String {
        if slowStart.isInfinite && congestionAvoidance.isInfinite { return "off" }
        return "\(Self.text(slowStart)),\(Self.text(congestionAvoidance))"
    }

    private static func text(_ g: Double) -> String {
        if g.isInfinite { return "off" }
        return g == g.rounded() ? String(Int(g)) : String(g)
    }
}

extension QUICConfiguration {
    /// Both pacing gains as one value (`slowStartPacingGain`, `congestionAvoidancePacingGain`).
    public var pacing: QUICPacing {
        get { QUICPacing(slowStart: slowStartPacingGain, congestionAvoidance: congestionAvoidancePacingGain) }
        set {
            slowStartPacingGain = newValue.slowStart
            congestionAvoidancePacingGain = newValue.congestionAvoidance
        }
    }
}
