/// The ECN field of an IP header (RFC 3168 §5): the two low bits of the IPv4 TOS byte.
/// One vocabulary from the socket's control messages through the QUIC engine to the results.
public enum ECNCodepoint: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case notECT = 0b00
    case ect1 = 0b01
    case ect0 = 0b10
    case ce = 0b11

    /// The codepoint of a TOS byte (the DSCP bits above it are ignored).
    public init(tos: UInt8) { self = ECNCodepoint(rawValue: tos & 0b11)! }

    public var description: String {
        switch self {
        case .notECT: return "Not-ECT"
        case .ect1: return "ECT(1)"
        case .ect0: return "ECT(0)"
        case .ce: return "CE"
        }
    }
}

/// How many packets arrived with each ECN codepoint.
public struct ECNCounts: Codable, Sendable, Hashable {
    public var notECT: Int64 = 0
    public var ect0: Int64 = 0
    public var ect1: Int64 = 0
    public var ce: Int64 = 0

    public init(notECT: Int64 = 0, ect0: Int64 = 0, ect1: Int64 = 0, ce: Int64 = 0) {
        self.notECT = notECT; self.ect0 = ect0; self.ect1 = ect1; self.ce = ce
    }

    public mutating func count(_ codepoint: ECNCodepoint, _ n: Int64 = 1) {
        switch codepoint {
        case .notECT: notECT += n
        case .ect0: ect0 += n
        case .ect1: ect1 += n
        case .ce: ce += n
        }
    }

    public var total: Int64 { notECT + ect0 + ect1 + ce }
    /// Packets that arrived ECN-capable (ECT(0), ECT(1) or CE: a CE mark was ECT before).
    public var capable: Int64 { ect0 + ect1 + ce }
}
