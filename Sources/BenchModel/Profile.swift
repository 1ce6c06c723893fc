import Foundation
import BenchCore

/// A network profile (schema v1): what the link emulator makes of the path between client and server.
///
/// RTT convention: `rtt` is the round-trip time; each direction gets `rtt / 2` of one-way delay.
/// (WebPageTest uses the same convention; sitespeed.io/Browsertime name the same profiles with half
/// these RTTs.) A profile with `"emulated": false` is plain loopback: no emulator, no namespaces.
public struct Profile: Codable, Hashable, Sendable {
    public static let currentSchemaVersion = 1

    public var schemaVersion: Int
    public var name: String
    public var description: String?
    /// Where the figures come from (e.g. "WebPageTest connectivity.ini").
    public var source: String?
    /// false: loopback without emulation.
    public var emulated: Bool?
    public var rtt: DurationValue?
    public var down: BitrateValue?
    public var up: BitrateValue?
    /// Random loss in each direction (Bernoulli), unless `downLoss`/`upLoss`/`lossModel` say otherwise.
    public var loss: Fraction?
    public var downLoss: Fraction?
    public var upLoss: Fraction?
    /// Bursty loss (Gilbert-Elliott), applied to both directions.
    public var lossModel: LossModelSpec?
    /// Drop-tail queue limit per direction: `"bdp"` (default), a size (`"64KB"`) or `"25 packets"`.
    public var queue: QueueSpec?
    /// Mahimahi trace files (relative to this profile's file) that replace `down` / `up`.
    public var downTrace: String?
    public var upTrace: String?
    /// Periods when the link is down in both directions.
    public var outages: [Outage]?

    public init(name: String, description: String? = nil, source: String? = nil, emulated: Bool? = nil,
                rtt: DurationValue? = nil, down: BitrateValue? = nil, up: BitrateValue? = nil, loss: Fraction? = nil,
                queue: QueueSpec? = nil, downTrace: String? = nil, upTrace: String? = nil) {
        self.schemaVersion = Profile.currentSchemaVersion
        self.name = name; self.description = description; self.source = source; self.emulated = emulated
        self.rtt = rtt; self.down = down; self.up = up; self.loss = loss; self.queue = queue
        self.downTrace = downTrace; self.upTrace = upTrace
    }

    /// Loopback without emulation: the baseline every machine has.
    public static let loopback = Profile(name: "loopback", description: "Loopback, no emulation (RTT as measured)",
                                         source: "built in", emulated: false)

    public var isEmulated: Bool { emulated ?? true }

    public struct LossModelSpec: Codable, Hashable, Sendable {
        /// Only "gilbert-elliott" for now.
        public var type: String
        /// P(good → bad) per packet.
        public var p: Double
        /// P(bad → good) per packet.
        public var r: Double
        /// Loss probability in the bad state (default 1).
        public var lossInBad: Double?
        /// Loss probability in the good state (default 0).
        public var lossInGood: Double?
    }

    public struct Outage: Codable, Hashable, Sendable {
        public var start: DurationValue
        public var end: DurationValue
    }

    public enum QueueSpec: Codable, Hashable, Sendable, CustomStringConvertible {
        case bandwidthDelayProduct
        case bytes(Int64)
        case packets(Int)

        public init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let n = try? c.decode(Int64.self) { self = .bytes(n); return }
            let s = try c.decode(String.self).trimmingCharacters(in: .whitespaces)
            if s.lowercased() == "bdp" { self = .bandwidthDelayProduct; return }
            let lower = s.lowercased()
            for suffix in ["packets", "packet", "pkts", "p"] where lower.hasSuffix(suffix) {
                if let n = Int(lower.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)), n > 0 {
                    self = .packets(n); return
                }
            }
            if let b = Units.parseBytes(s), b > 0 { self = .bytes(b); return }
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "'\(s)' is not a queue limit (\"bdp\", \"64KB\" or \"25 packets\")")
        }

        public func encode(to encoder: Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .bandwidthDelayProduct: try c.encode("bdp")
            case .bytes(let b): try c.encode(b)
            case .packets(let n): try c.encode("\(n) packets")
            }
        }

        public var description: String {
            switch self {
            case .bandwidthDelayProduct: return "BDP"
            case .bytes(let b): return Units.formatBytes(b)
            case .packets(let n): return "\(n) pkts"
            }
        }
    }

    /// Checks ranges and completeness; messages name the file, key and value.
    public func validate(file: String) throws {
        var problems: [String] = []
        func bad(_ key: String, _ what: String) { problems.append("\(file): \(key): \(what)") }
        if schemaVersion != Profile.currentSchemaVersion {
            bad("schemaVersion", "is \(schemaVersion); this netbench reads version \(Profile.currentSchemaVersion)")
        }
        if name.isEmpty || name.contains(",") || name.contains("/") { bad("name", "'\(name)' must be non-empty without ',' or '/'") }
        if isEmulated {
            if rtt == nil { bad("rtt", "missing: an emulated profile needs a round-trip time (e.g. \"40ms\")") }
            if down == nil && downTrace == nil { bad("down", "missing: give a rate (e.g. \"10Mbit\") or a downTrace file") }
            if up == nil && upTrace == nil { bad("up", "missing: give a rate (e.g. \"5Mbit\") or an upTrace file") }
        }
        if let m = lossModel {
            if m.type != "gilbert-elliott" { bad("lossModel.type", "'\(m.type)' is not 'gilbert-elliott'") }
            for (k, v) in [("p", m.p), ("r", m.r), ("lossInBad", m.lossInBad ?? 1), ("lossInGood", m.lossInGood ?? 0)] where !(0...1).contains(v) {
                bad("lossModel.\(k)", "\(v) is outside [0, 1]")
            }
        }
        for (i, o) in (outages ?? []).enumerated() where o.end.nanoseconds <= o.start.nanoseconds {
            bad("outages[\(i)].end", "\(o.end) is not after start \(o.start)")
        }
        if !problems.isEmpty { throw BenchError.data(problems.joined(separator: "\n")) }
    }

    /// Loads and validates a profile file; trace paths become absolute (relative to the file).
    public static func load(from path: String) throws -> Profile {
        var p = try JSONFile.load(Profile.self, from: path)
        try p.validate(file: path)
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent()
        func resolve(_ t: String?, _ key: String) throws -> String? {
            guard let t else { return nil }
            let full = t.hasPrefix("/") ? t : dir.appendingPathComponent(t).standardizedFileURL.path
            guard FileManager.default.fileExists(atPath: full) else {
                throw BenchError.data("\(path): \(key): trace file '\(t)' not found (looked at \(full))")
            }
            return full
        }
        p.downTrace = try resolve(p.downTrace, "downTrace")
        p.upTrace = try resolve(p.upTrace, "upTrace")
        return p
    }

    /// One line for `netbench profiles` and report headers.
    public var summary: String {
        guard isEmulated else { return "loopback (no emulation)" }
        let d = downTrace.map { "trace " + URL(fileURLWithPath: $0).lastPathComponent } ?? down.map { $0.description } ?? "?"
        let u = upTrace.map { "trace " + URL(fileURLWithPath: $0).lastPathComponent } ?? up.map { $0.description } ?? "?"
        return "down \(d), up \(u), RTT \(rtt?.description ?? "?"), loss \(loss?.description ?? "0%")"
    }
}
