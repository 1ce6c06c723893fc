import BenchCore
import Runner
import BenchModel
import Testbed
import LinkModel

/// A queue for `netbench responsiveness`, relative to the profile's link: a drop-tail size, as a
/// multiple of its bandwidth-delay product (`bdp`, `4bdp`) or the time the queue takes to drain at
/// the downlink rate (`1s`: a bloated buffer), both directions the same size in bytes; a drop-head
/// queue of such a size (`drophead:4bdp`); or an AQM with its defaults (`codel`, `fq_codel`, `pie`).
/// `droptail:SIZE` is the same as `SIZE`.
public enum ResponsivenessQueue: Equatable, Sendable, CustomStringConvertible {
    case bdp(multiple: Double)
    case drainTime(Nanoseconds)
    /// Drop-head at a size (`bdp` or `drainTime`).
    indirect case dropHead(ResponsivenessQueue)
    /// CoDel, FQ-CoDel or PIE with the defaults of the Linux qdiscs.
    case aqm(QueueDisciplineSpec.Name)

    public init?(_ text: String) {
        let t = text.lowercased().trimmingCharacters(in: .whitespaces)
        if let colon = t.firstIndex(of: ":") {
            let name = String(t[..<colon]), size = String(t[t.index(after: colon)...])
            guard let q = ResponsivenessQueue(size: size) else { return nil }
            switch name {
            case "droptail": self = q
            case "drophead": self = .dropHead(q)
            default: return nil
            }
            return
        }
        if let name = QueueDisciplineSpec.Name(rawValue: t) {
            switch name {
            case .codel, .fq_codel, .pie: self = .aqm(name)
            case .droptail: self = .bdp(multiple: 1)
            case .drophead: self = .dropHead(.bdp(multiple: 1))
            }
            return
        }
        guard let q = ResponsivenessQueue(size: t) else { return nil }
        self = q
    }

    private init?(size t: String) {
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
        case .dropHead(let q): return "drophead \(q)"
        case .aqm(let name): return name.rawValue
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
        case .dropHead(let q):
            return q.bytes(bitsPerSecond: bitsPerSecond, roundTrip: roundTrip)
        case .aqm:
            return 0
        }
    }

    /// `profile` with this queue (its downlink rate and RTT decide the bytes); nil when the profile
    /// has no constant downlink rate or RTT to size it by.
    public func applied(to profile: Profile) -> Profile? {
        guard let rate = profile.down?.bitsPerSecond, let rtt = profile.rtt?.nanoseconds, profile.paths == nil else {
            return nil
        }
        var p = profile
        p.upQueue = nil
        p.downQueue = nil
        switch self {
        case .bdp, .drainTime:
            p.queue = .bytes(bytes(bitsPerSecond: rate, roundTrip: rtt))
        case .dropHead:
            var spec = QueueDisciplineSpec(discipline: QueueDisciplineSpec.Name.drophead.rawValue)
            spec.limit = .bytes(bytes(bitsPerSecond: rate, roundTrip: rtt))
            p.queue = .discipline(spec)
        case .aqm(let name):
            p.queue = .discipline(QueueDisciplineSpec(discipline: name.rawValue).withDefaults())
        }
        p.name = "\(profile.name)-\(description.replacingOccurrences(of: " ", with: ""))"
        return p
    }
}
