import BenchCore
import Runner
import BenchModel
import Testbed
import LinkModel

/// A queue size for `netbench responsiveness`, relative to the profile's link: a multiple of its
/// bandwidth-delay product (`bdp`, `4bdp`) or the time the queue takes to drain at the downlink
/// rate (`1s`: a bloated buffer). Both directions get the same size in bytes.
public enum ResponsivenessQueue: Equatable, Sendable, CustomStringConvertible {
    case bdp(multiple: Double)
    case drainTime(Nanoseconds)

    public init?(_ text: String) {
        let t = text.lowercased().trimmingCharacters(in: .whitespaces)
        if t.hasSuffix("bdp") {
            let m = t.dropLast(3)
            guard let v = m.isEmpty ? 1 : Double(m), v > 0 else { return nil }
            self = .bdp(multiple: v)
        } else if let ns = Units.parseDuration(t), ns > 0 {
            self = .drainTime(ns)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .bdp(let m): return m == 1 ? "BDP" : "\(Units.format(m, 2))×BDP"
        case .drainTime(let ns): return "\(Units.format(ns.inMilliseconds, 0)) ms"
        }
    }

    /// The queue limit in bytes for a link of `bitsPerSecond` and `roundTrip`: a multiple of one
    /// BDP (never below the emulator's floor of 30 packets), or rate × drain time.
    public func bytes(bitsPerSecond: Double, roundTrip: Nanoseconds) -> Int64 {
        switch self {
        case .bdp(let m):
            let bdp = bitsPerSecond / 8 * Double(roundTrip) / 1e9
            return Int64(max(Double(QueueLimit.floorBytes), (m * bdp).rounded(.up)))
        case .drainTime(let ns):
            return Int64((bitsPerSecond / 8 * Double(ns) / 1e9).rounded(.up))
        }
    }

    /// `profile` with this queue (its downlink rate and RTT decide the bytes); nil when the profile
    /// has no constant downlink rate or RTT to size it by.
    public func applied(to profile: Profile) -> Profile? {
        guard let rate = profile.down?.bitsPerSecond, let rtt = profile.rtt?.nanoseconds, profile.paths == nil else {
            return nil
        }
        var p = profile
        p.queue = .bytes(bytes(bitsPerSecond: rate, roundTrip: rtt))
        p.name = "\(profile.name)-\(description.replacingOccurrences(of: " ", with: ""))"
        return p
    }
}
