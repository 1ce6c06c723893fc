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
    /// The bottleneck queue of each direction: a drop-tail limit (`"bdp"`, the default; a size,
    /// `"64KB"`; or `"25 packets"`), or a discipline with its parameters
    /// (`{"discipline": "fq_codel", "target": "5ms"}`; see `QueueDisciplineSpec`).
    public var queue: QueueSpec?
    /// The uplink's (client → server) queue, when it differs from `queue`.
    public var upQueue: QueueSpec?
    /// The downlink's queue, when it differs from `queue`.
    public var downQueue: QueueSpec?
    /// Mahimahi trace files (relative to this profile's file) that replace `down` / `up`.
    public var downTrace: String?
    public var upTrace: String?
    /// Jitter of the one-way delay, both directions (`downJitter`/`upJitter` override it per direction).
    public var jitter: JitterSpec?
    public var downJitter: JitterSpec?
    public var upJitter: JitterSpec?
    /// Delay traces (relative to this profile's file; lines `TIME_MS DELAY_MS`, see LinkModel.DelayTrace)
    /// that replace `rtt / 2` as the one-way delay of their direction.
    public var downDelayTrace: String?
    public var upDelayTrace: String?
    /// Explicit reordering, both directions (`downReorder`/`upReorder` override it per direction).
    public var reorder: ReorderSpec?
    public var downReorder: ReorderSpec?
    public var upReorder: ReorderSpec?
    /// Periods when the link is down in both directions.
    public var outages: [Outage]?
    /// Several client paths (each described by another profile), for path-change runs; the first
    /// is active at the start. With `paths`, `rtt`/`down`/`up` of this profile are not used.
    public var paths: [PathSpec]?
    /// Timed changes of the client's network during each run (offsets from navigation start).
    public var events: [PathEventSpec]?
    /// What TCP connections do when their path goes away: `abort` (default: the phone's OS aborts
    /// the sockets of a lost interface and the client reconnects on the new path at once) or
    /// `timeout` (the naive baseline: the path silently dies and TCP waits on its retransmission
    /// timer until `tcpUserTimeout` fails the connection).
    public var tcpMigration: TCPMigration?
    /// TCP_USER_TIMEOUT for the `timeout` mode (default 10 s; the kernel default is ~15 minutes),
    /// with 1 s keepalive probes so that a client that is only receiving notices too.
    public var tcpUserTimeout: DurationValue?
    /// Competing bulk flows on the same bottleneck during every page load (see `CrossFlowSpec`).
    public var crossTraffic: [CrossFlowSpec]?

    public init(
        name: String, description: String? = nil, source: String? = nil, emulated: Bool? = nil,
        rtt: DurationValue? = nil, down: BitrateValue? = nil, up: BitrateValue? = nil, loss: Fraction? = nil,
        queue: QueueSpec? = nil, downTrace: String? = nil, upTrace: String? = nil
    ) {
        self.schemaVersion = Profile.currentSchemaVersion
        self.name = name; self.description = description; self.source = source; self.emulated = emulated
        self.rtt = rtt; self.down = down; self.up = up; self.loss = loss; self.queue = queue
        self.downTrace = downTrace; self.upTrace = upTrace
    }

    /// Loopback without emulation: the baseline every machine has.
    public static let loopback = Profile(
        name: "loopback", description: "Loopback, no emulation (RTT as measured)",
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

    public struct PathSpec: Codable, Hashable, Sendable {
        /// The path's name in events and results ("wifi", "cell").
        public var name: String
        /// The profile (name or file) that describes this path's link.
        public var profile: String
        public init(name: String, profile: String) { self.name = name; self.profile = profile }
    }

    public enum PathEventType: String, Codable, Hashable, Sendable, CaseIterable, NamedValues {
        /// The active path changes to `to`; the old path goes down (Wi-Fi → cellular).
        case `switch`
        /// NAT rebinding: the client's port changes on the same path.
        case rebindPort = "rebind-port"
        /// NAT rebinding: the client's address changes on the same path.
        case rebindAddr = "rebind-addr"
        /// No path for `duration`.
        case outage
    }

    public struct PathEventSpec: Codable, Hashable, Sendable {
        public var at: DurationValue
        public var type: PathEventType
        public var to: String?
        public var duration: DurationValue?
        public init(at: DurationValue, type: PathEventType, to: String? = nil, duration: DurationValue? = nil) {
            self.at = at; self.type = type; self.to = to; self.duration = duration
        }
    }

    public enum TCPMigration: String, Codable, Hashable, Sendable, CaseIterable, NamedValues { case abort, timeout }

    public var hasPathEvents: Bool { !(events ?? []).isEmpty }

    public struct Outage: Codable, Hashable, Sendable {
        public var start: DurationValue
        public var end: DurationValue
    }

    public enum QueueSpec: Codable, Hashable, Sendable, CustomStringConvertible {
        case bandwidthDelayProduct
        case bytes(Int64)
        case packets(Int)
        /// A queue discipline with its parameters (the object form).
        indirect case discipline(QueueDisciplineSpec)

        public init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let n = try? c.decode(Int64.self) { self = .bytes(n); return }
            if (try? c.decode(String.self)) == nil, let d = try? c.decode(QueueDisciplineSpec.self) {
                self = .discipline(d); return
            }
            if (try? c.decode(String.self)) == nil {
                // An object that is not a discipline: decode again for the error naming the key.
                self = .discipline(try c.decode(QueueDisciplineSpec.self)); return
            }
            let s = try c.decode(String.self).trimmingCharacters(in: .whitespaces)
            if s.lowercased() == "bdp" { self = .bandwidthDelayProduct; return }
            let lower = s.lowercased()
            for suffix in ["packets", "packet", "pkts", "p"] where lower.hasSuffix(suffix) {
                if let n = Int(lower.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)), n > 0 {
                    self = .packets(n); return
                }
            }
            if let b = Units.parseBytes(s), b > 0 { self = .bytes(b); return }
            throw DecodingError.dataCorruptedError(
                in: c, debugDescription: "'\(s)' is not a queue limit (\"bdp\", \"64KB\" or \"25 packets\")")
        }

        public func encode(to encoder: Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .bandwidthDelayProduct: try c.encode("bdp")
            case .bytes(let b): try c.encode(b)
            case .packets(let n): try c.encode("\(n) packets")
            case .discipline(let d): try c.encode(d)
            }
        }

        public var description: String {
            switch self {
            case .bandwidthDelayProduct: return "BDP"
            case .bytes(let b): return Units.formatBytes(b)
            case .packets(let n): return "\(n) pkts"
            case .discipline(let d): return d.summary
            }
        }

        /// The spec with a discipline's defaults filled in (a plain limit is left as it is).
        public var withDefaults: QueueSpec {
            if case .discipline(let d) = self { return .discipline(d.withDefaults()) }
            return self
        }
    }

    /// The queue of the uplink (`up: true`) or the downlink: its own key, else `queue`.
    public func queue(up: Bool) -> QueueSpec? { (up ? upQueue : downQueue) ?? queue }

    /// The queue for tables: one description, or both directions' when they differ.
    public var queueSummary: String {
        let down = queue(up: false)?.description ?? "BDP", up = queue(up: true)?.description ?? "BDP"
        return down == up ? down : "down \(down), up \(up)"
    }

    /// Checks ranges and completeness; messages name the file, key and value.
    public func validate(file: String) throws {
        var problems = ValidationProblems(file: file, schemaVersion: schemaVersion, reads: Profile.currentSchemaVersion)
        func bad(_ keyPath: String, _ what: String) { problems.add(keyPath, what) }
        if name.isEmpty || name.contains(",") || name.contains("/") {
            bad("name", "'\(name)' must be non-empty without ',' or '/'")
        }
        if let ps = paths {
            if ps.isEmpty { bad("paths", "must list at least one path") }
            var names = Set<String>()
            for (i, p) in ps.enumerated() {
                if p.name.isEmpty || !names.insert(p.name).inserted {
                    bad("paths[\(i)].name", "'\(p.name)' is empty or a duplicate")
                }
                if p.profile.isEmpty { bad("paths[\(i)].profile", "must name a profile") }
            }
        }
        let pathNames = (paths ?? []).map(\.name)
        for (i, e) in (events ?? []).enumerated() {
            switch e.type {
            case .switch:
                guard let to = e.to else {
                    bad("events[\(i)].to", "missing: a switch names the path it switches to"); break
                }
                if !pathNames.contains(to) {
                    bad("events[\(i)].to", "'\(to)' is not one of the paths (\(pathNames.joined(separator: ", ")))")
                }
            case .outage:
                if (e.duration?.nanoseconds ?? 0) <= 0 {
                    bad("events[\(i)].duration", "missing or zero: an outage lasts some time (e.g. \"500ms\")")
                }
            case .rebindPort, .rebindAddr:
                break
            }
        }
        if isEmulated && paths == nil {
            if rtt == nil && (downDelayTrace == nil || upDelayTrace == nil) {
                bad("rtt", "missing: an emulated profile needs a round-trip time (e.g. \"40ms\")")
            }
            if down == nil && downTrace == nil {
                bad("down", "missing: give a rate (e.g. \"10Mbit\") or a downTrace file")
            }
            if up == nil && upTrace == nil { bad("up", "missing: give a rate (e.g. \"5Mbit\") or an upTrace file") }
        }
        if let m = lossModel {
            if m.type != "gilbert-elliott" { bad("lossModel.type", "'\(m.type)' is not 'gilbert-elliott'") }
            for (k, v) in [("p", m.p), ("r", m.r), ("lossInBad", m.lossInBad ?? 1), ("lossInGood", m.lossInGood ?? 0)]
            where !(0...1).contains(v) {
                bad("lossModel.\(k)", "\(v) is outside [0, 1]")
            }
        }
        for (i, f) in (crossTraffic ?? []).enumerated() {
            for (key, what) in f.problems() { bad("crossTraffic[\(i)].\(key)", what) }
        }
        if crossTraffic != nil && !isEmulated {
            bad("crossTraffic", "needs an emulated profile (the flows share its bottleneck)")
        }
        if crossTraffic != nil && (paths != nil || events != nil) {
            bad("crossTraffic", "cannot be combined with paths or events (yet)")
        }
        for (key, spec) in [("queue", queue), ("upQueue", upQueue), ("downQueue", downQueue)] {
            switch spec {
            case .bytes(let b)? where b <= 0: bad(key, "\(b) bytes: a queue holds at least one packet")
            case .discipline(let d)?: for (k, what) in d.problems() { bad("\(key).\(k)", what) }
            default: break
            }
        }
        for (key, what) in delayProblems() { bad(key, what) }
        for (i, o) in (outages ?? []).enumerated() where o.end.nanoseconds <= o.start.nanoseconds {
            bad("outages[\(i)].end", "\(o.end) is not after start \(o.start)")
        }
        try problems.throwIfAny()
    }

    /// Loads and validates a profile file; trace paths become absolute (relative to the file).
    public static func load(from path: String) throws -> Profile {
        var (p, dir) = try Profile.loadValidated(from: path)
        func resolve(_ t: String?, _ key: String) throws -> String? {
            guard let t else { return nil }
            let full = t.hasPrefix("/") ? t : dir.appendingPathComponent(t).standardizedFileURL.path
            guard FileManager.default.fileExists(atPath: full) else {
                throw BenchError.data(
                    "\(path): \(key): trace file '\(t.escapingControlCharacters)' not found (looked at \(full))")
            }
            return full
        }
        p.downTrace = try resolve(p.downTrace, "downTrace")
        p.upTrace = try resolve(p.upTrace, "upTrace")
        p.downDelayTrace = try resolve(p.downDelayTrace, "downDelayTrace")
        p.upDelayTrace = try resolve(p.upDelayTrace, "upDelayTrace")
        // The parameters in force, defaults included, are what results.json records.
        p.queue = p.queue?.withDefaults
        p.upQueue = p.upQueue?.withDefaults
        p.downQueue = p.downQueue?.withDefaults
        return p
    }

    /// One line for `netbench profiles` and report headers.
    public var summary: String {
        // Not emulated: loopback, or a real path (`run --server`: "network") that says what it is.
        guard isEmulated else {
            return name == "loopback" ? "loopback (no emulation)" : (description ?? "no emulation")
        }
        if let ps = paths {
            let ev = (events ?? []).map { e in
                "\(e.type.rawValue)\(e.to.map { " → " + $0 } ?? "") at \(e.at)"
            }.joined(separator: ", ")
            return "paths " + ps.map { "\($0.name) (\($0.profile))" }.joined(separator: ", ")
                + (ev.isEmpty ? "" : "; " + ev)
        }
        let d =
            downTrace.map { "trace " + URL(fileURLWithPath: $0).lastPathComponent } ?? down.map { $0.description }
            ?? "?"
        let u =
            upTrace.map { "trace " + URL(fileURLWithPath: $0).lastPathComponent } ?? up.map { $0.description } ?? "?"
        let r = rtt?.description ?? (downDelayTrace != nil ? "from delay traces" : "?")
        return "down \(d), up \(u), RTT \(r), loss \(loss?.description ?? "0%")\(delaySummary)"
    }
}

extension Profile: ValidatedFile {}
