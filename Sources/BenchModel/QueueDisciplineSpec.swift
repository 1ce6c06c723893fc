import Foundation
import BenchCore

/// A profile's queue discipline with its parameters: the object form of the `queue` key
/// (`{"discipline": "fq_codel", "target": "5ms"}`). Names and defaults follow the Linux qdiscs
/// (`tc-codel(8)`, `tc-fq_codel(8)`, `tc-pie(8)`) and RFCs 8289, 8290 and 8033; `Profile.load`
/// fills every default in, so `results.json` records the parameters that were in force.
public struct QueueDisciplineSpec: Hashable, Sendable {
    public enum Name: String, CaseIterable, Sendable {
        case droptail, drophead, codel, fq_codel, pie

        /// The parameters this discipline takes (besides `discipline`).
        public var parameters: [String] {
            switch self {
            case .droptail, .drophead: return ["limit"]
            case .codel: return ["limit", "target", "interval", "ecn", "ceThreshold"]
            case .fq_codel:
                return [
                    "limit", "flows", "quantum", "target", "interval", "memoryLimit", "ecn", "ceThreshold", "dropBatch",
                ]
            case .pie: return ["limit", "target", "tupdate", "alpha", "beta", "maxBurst", "ecn", "bytemode",
                "dqRateEstimator"]
            }
        }

        /// Whether it can mark CE (drop-tail and drop-head cannot).
        public var canMark: Bool { self != .droptail && self != .drophead }
    }

    /// As written; `name` is nil when it is not one of `Name` (validation says so).
    public var discipline: String
    public var name: Name? { Name(rawValue: discipline) }
    /// Drop-tail / drop-head: "bdp" (default), a size or packets. CoDel, PIE: packets (1000) or a
    /// size. FQ-CoDel: packets (10240).
    public var limit: Profile.QueueSpec?
    public var target: DurationValue?
    public var interval: DurationValue?
    public var tupdate: DurationValue?
    public var maxBurst: DurationValue?
    public var ceThreshold: DurationValue?
    public var alpha: Double?
    public var beta: Double?
    public var flows: Int?
    public var quantum: Int?
    public var dropBatch: Int?
    public var memoryLimit: Int64?
    public var ecn: Bool?
    public var bytemode: Bool?
    public var dqRateEstimator: Bool?
    /// Keys that are not parameters of any discipline, with their values (validation names them).
    public var unknown: [String: String] = [:]

    public init(discipline: String) { self.discipline = discipline }

    /// The keys given (besides `discipline`), for validation.
    public var givenParameters: [String] {
        var keys: [String] = []
        func given(_ k: String, _ v: Any?) { if v != nil { keys.append(k) } }
        given("limit", limit); given("target", target); given("interval", interval); given("tupdate", tupdate)
        given("maxBurst", maxBurst); given("ceThreshold", ceThreshold); given("alpha", alpha); given("beta", beta)
        given("flows", flows); given("quantum", quantum); given("dropBatch", dropBatch)
        given("memoryLimit", memoryLimit); given("ecn", ecn); given("bytemode", bytemode)
        given("dqRateEstimator", dqRateEstimator)
        return keys
    }

    /// Every parameter of the discipline set: the given ones, the defaults for the rest.
    public func withDefaults() -> QueueDisciplineSpec {
        var s = self
        switch name {
        case .droptail?, .drophead?:
            s.limit = s.limit ?? .bandwidthDelayProduct
        case .codel?:
            s.limit = s.limit ?? .packets(1000)
            s.target = s.target ?? .ms(5)
            s.interval = s.interval ?? .ms(100)
            s.ecn = s.ecn ?? false
        case .fq_codel?:
            s.limit = s.limit ?? .packets(10240)
            s.flows = s.flows ?? 1024
            s.quantum = s.quantum ?? 1514
            s.target = s.target ?? .ms(5)
            s.interval = s.interval ?? .ms(100)
            s.memoryLimit = s.memoryLimit ?? 32 << 20
            s.ecn = s.ecn ?? true
            s.dropBatch = s.dropBatch ?? 64
        case .pie?:
            s.limit = s.limit ?? .packets(1000)
            s.target = s.target ?? .ms(15)
            s.tupdate = s.tupdate ?? .ms(15)
            s.alpha = s.alpha ?? 0.125
            s.beta = s.beta ?? 1.25
            s.maxBurst = s.maxBurst ?? .ms(150)
            s.ecn = s.ecn ?? false
            s.bytemode = s.bytemode ?? false
            s.dqRateEstimator = s.dqRateEstimator ?? false
        case nil:
            break
        }
        return s
    }

    /// Problems as (key below `queue`, what is wrong): an unknown discipline or parameter, a
    /// parameter of another discipline, values out of range, ECN on a discipline that cannot mark.
    public func problems() -> [(String, String)] {
        guard let name else {
            let names = Name.allCases.map(\.rawValue).joined(separator: ", ")
            return [("discipline", "'\(discipline)' is not a queue discipline (\(names))")]
        }
        var out: [(String, String)] = []
        for (k, v) in unknown.sorted(by: { $0.key < $1.key }) {
            out.append((k, "'\(v)' is not a parameter of \(discipline) (\(name.parameters.joined(separator: ", ")))"))
        }
        for k in givenParameters where !name.parameters.contains(k) {
            if k == "ecn" && !name.canMark && ecn == true {
                out.append(("ecn", "true: \(discipline) cannot mark CE (use codel, fq_codel or pie)"))
            } else if k != "ecn" || ecn == true {
                out.append((k, "is not a parameter of \(discipline) (\(name.parameters.joined(separator: ", ")))"))
            }
        }
        func positive(_ key: String, _ d: DurationValue?) {
            if let d, d.nanoseconds <= 0 { out.append((key, "\(d) must be above 0")) }
        }
        positive("target", target); positive("interval", interval); positive("tupdate", tupdate)
        positive("ceThreshold", ceThreshold)
        if let t = tupdate, t.nanoseconds > 0, t.nanoseconds < 1_000_000 {
            out.append(("tupdate", "\(t) is below 1 ms (PIE updates its probability on that period)"))
        }
        if let b = maxBurst, b.nanoseconds < 0 { out.append(("maxBurst", "\(b) must not be negative")) }
        if let t = target, let i = interval, t.nanoseconds > i.nanoseconds {
            out.append(("target", "\(t) is above the interval \(i) (CoDel's target is a fraction of it)"))
        }
        if let t = target, interval == nil, name == .codel || name == .fq_codel, t.nanoseconds > 100_000_000 {
            out.append(("target", "\(t) is above the default interval 100ms"))
        }
        if let q = quantum, q <= 0 { out.append(("quantum", "\(q): the round robin needs a quantum above 0 bytes")) }
        if let f = flows, !(1...65536).contains(f) { out.append(("flows", "\(f) is outside 1…65536")) }
        if let b = dropBatch, b <= 0 { out.append(("dropBatch", "\(b) must be at least 1")) }
        if let m = memoryLimit, m <= 0 { out.append(("memoryLimit", "\(m) bytes must be above 0")) }
        for (k, v) in [("alpha", alpha), ("beta", beta)] {
            if let v, !(v >= 0 && v <= 32) { out.append((k, "\(v) is outside 0…32")) }
        }
        switch limit {
        case .bytes(let b)? where b <= 0: out.append(("limit", "\(b) bytes: a queue holds at least one packet"))
        case .bandwidthDelayProduct? where name != .droptail && name != .drophead:
            out.append(("limit", "'bdp' is for droptail and drophead; \(discipline) takes packets or bytes"))
        case .bytes? where name == .fq_codel:
            out.append(("limit", "fq_codel's limit is in packets (e.g. \"10240 packets\"); see memoryLimit"))
        case .discipline?: out.append(("limit", "must be a size or a packet count"))
        default: break
        }
        return out
    }

    /// One line for tables: the discipline and its non-default parameters' short form.
    public var summary: String {
        var parts = [discipline]
        if let t = target { parts.append("target \(t)") }
        if let i = interval, name != .pie { parts.append("interval \(i)") }
        if ecn == true { parts.append("ecn") }
        return parts.joined(separator: " ")
    }
}

extension QueueDisciplineSpec: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        discipline = try c.decode(String.self, forKey: Key("discipline"))
        func d<T: Decodable>(_ k: String) throws -> T? { try c.decodeIfPresent(T.self, forKey: Key(k)) }
        limit = try d("limit")
        target = try d("target"); interval = try d("interval"); tupdate = try d("tupdate")
        maxBurst = try d("maxBurst"); ceThreshold = try d("ceThreshold")
        alpha = try d("alpha"); beta = try d("beta")
        flows = try d("flows"); quantum = try d("quantum"); dropBatch = try d("dropBatch")
        if c.contains(Key("memoryLimit")) {
            if let n = try? c.decode(Int64.self, forKey: Key("memoryLimit")) {
                memoryLimit = n
            } else {
                let s = try c.decode(String.self, forKey: Key("memoryLimit"))
                guard let b = Units.parseBytes(s) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: Key("memoryLimit"), in: c, debugDescription: "'\(s)' is not a size (e.g. \"32MB\")")
                }
                memoryLimit = b
            }
        }
        ecn = try d("ecn"); bytemode = try d("bytemode"); dqRateEstimator = try d("dqRateEstimator")
        let known = Set(["discipline"] + Name.allCases.flatMap(\.parameters))
        for k in c.allKeys where !known.contains(k.stringValue) {
            let raw = (try? c.decode(String.self, forKey: k)) ?? (try? c.decode(Double.self, forKey: k)).map { "\($0)" }
            unknown[k.stringValue] = raw ?? "…"
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(discipline, forKey: Key("discipline"))
        func e<T: Encodable>(_ k: String, _ v: T?) throws { try c.encodeIfPresent(v, forKey: Key(k)) }
        try e("limit", limit); try e("target", target); try e("interval", interval); try e("tupdate", tupdate)
        try e("maxBurst", maxBurst); try e("ceThreshold", ceThreshold); try e("alpha", alpha); try e("beta", beta)
        try e("flows", flows); try e("quantum", quantum); try e("dropBatch", dropBatch)
        try e("memoryLimit", memoryLimit); try e("ecn", ecn); try e("bytemode", bytemode)
        try e("dqRateEstimator", dqRateEstimator)
    }
}
