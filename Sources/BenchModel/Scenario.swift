import BenchCore

/// A page-load scenario (schema v1): the origins a page talks to and the resources it loads, as a
/// dependency tree. The replay server serves exactly these bytes; the client discovers each
/// resource when its parent reveals it.
public struct Scenario: Codable, Hashable, Sendable {
    public static let currentSchemaVersion = 1

    public var schemaVersion: Int
    public var name: String
    public var description: String?
    public var origins: [Origin]
    public var resources: [Resource]
    /// Throughput scenarios: a bulk transfer instead of a page (see `Bulk`).
    public var bulk: Bulk?

    public init(name: String, description: String? = nil, origins: [Origin], resources: [Resource], bulk: Bulk? = nil) {
        self.schemaVersion = Scenario.currentSchemaVersion
        self.name = name
        self.description = description
        self.origins = origins
        self.resources = resources
        self.bulk = bulk
    }

    public struct Origin: Codable, Hashable, Sendable {
        public var id: String
        /// The host name the client asks for (SNI, Host, :authority) and the certificate names.
        public var host: String
        public init(id: String, host: String) { self.id = id; self.host = host }
    }

    public enum ResourceType: String, Codable, Hashable, Sendable, CaseIterable {
        case document, stylesheet, script, font, image, xhr, other
    }

    public struct Resource: Codable, Hashable, Sendable {
        public var id: String
        public var origin: String
        public var path: String
        /// Response body size in bytes.
        public var bytes: Int64
        public var type: ResourceType
        /// The resource whose body reveals this one; nil for the root document.
        public var parent: String?
        /// The parent reveals this resource after this many of its body bytes; nil: at its end.
        public var revealAfterBytes: Int64?
        /// Server think time before the response head is sent, in milliseconds.
        public var thinkTimeMs: Double?
        /// Whether the page cannot render before this resource arrives (CSS, sync scripts).
        public var renderBlocking: Bool?

        public init(
            id: String, origin: String, path: String, bytes: Int64, type: ResourceType,
            parent: String? = nil, revealAfterBytes: Int64? = nil, thinkTimeMs: Double? = nil,
            renderBlocking: Bool? = nil
        ) {
            self.id = id; self.origin = origin; self.path = path; self.bytes = bytes; self.type = type
            self.parent = parent; self.revealAfterBytes = revealAfterBytes; self.thinkTimeMs = thinkTimeMs
            self.renderBlocking = renderBlocking
        }

        public var thinkTime: Nanoseconds { .milliseconds(thinkTimeMs ?? 0) }
    }

    /// A bulk transfer on one connection, reported as goodput (the interop runner's measurement).
    public struct Bulk: Codable, Hashable, Sendable {
        public enum Direction: String, Codable, Sendable { case download, upload }
        public var direction: Direction
        public var bytes: Int64
        public init(direction: Direction, bytes: Int64) { self.direction = direction; self.bytes = bytes }
    }

    /// The path a bulk scenario's transfer uses.
    public static let bulkPath = "/bulk"

    /// A bulk scenario without resources gets one: `GET /bulk` of `bulk.bytes` on its first origin,
    /// so the same server and loader carry page loads and transfers.
    public func withBulkResource() -> Scenario {
        guard let b = bulk, resources.isEmpty, let origin = origins.first else { return self }
        var s = self
        s.resources = [
            Resource(
                id: "bulk", origin: origin.id, path: Scenario.bulkPath,
                bytes: b.direction == .download ? b.bytes : 0, type: .document)
        ]
        return s
    }

    // MARK: Queries

    public var root: Resource? { resources.first { $0.parent == nil } }
    public var totalBytes: Int64 { resources.reduce(0) { $0 + $1.bytes } }
    public func origin(id: String) -> Origin? { origins.first { $0.id == id } }
    public func children(of id: String) -> [Resource] { resources.filter { $0.parent == id } }

    /// Depth of the dependency tree (the root is depth 1).
    public var depth: Int {
        var depthOf: [String: Int] = [:]
        let byID = Dictionary(resources.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        func d(_ r: Resource, _ guardCount: Int) -> Int {
            if let v = depthOf[r.id] { return v }
            guard guardCount < resources.count, let p = r.parent, let parent = byID[p] else { return 1 }
            let v = d(parent, guardCount + 1) + 1
            depthOf[r.id] = v
            return v
        }
        return resources.map { d($0, 0) }.max() ?? 0
    }
}

// MARK: - Validation

extension Scenario {
    /// Checks what Codable cannot: references, cycles, uniqueness and ranges. Each problem names the
    /// JSON key path and the value at fault; `file` prefixes every message.
    public func validate(file: String) throws {
        var problems = ValidationProblems(
            file: file, schemaVersion: schemaVersion, reads: Scenario.currentSchemaVersion)
        func bad(_ keyPath: String, _ what: String) { problems.add(keyPath, what) }
        if name.isEmpty { bad("name", "must not be empty") }
        if origins.isEmpty { bad("origins", "must list at least one origin") }
        var originIDs = Set<String>()
        for (i, o) in origins.enumerated() {
            if !originIDs.insert(o.id).inserted { bad("origins[\(i)].id", "duplicate origin id '\(o.id)'") }
            if !Scenario.isValidHost(o.host) { bad("origins[\(i)].host", "'\(o.host)' is not a host name") }
        }
        if resources.isEmpty && bulk == nil { bad("resources", "must list at least one resource") }
        var ids = Set<String>()
        for (i, r) in resources.enumerated() {
            if r.id.isEmpty { bad("resources[\(i)].id", "must not be empty") }
            if !ids.insert(r.id).inserted { bad("resources[\(i)].id", "duplicate resource id '\(r.id)'") }
            if !originIDs.contains(r.origin) { bad("resources[\(i)].origin", "unknown origin '\(r.origin)'") }
            if r.bytes < 0 { bad("resources[\(i)].bytes", "negative size \(r.bytes)") }
            if r.bytes > Scenario.largestBody { bad("resources[\(i)].bytes", "\(r.bytes) is above 1 TB") }
            if !r.path.hasPrefix("/") { bad("resources[\(i)].path", "'\(r.path)' must start with '/'") }
            if ServerDescription.isDescriptionPath(r.path) {
                bad(
                    "resources[\(i)].path",
                    "'\(r.path)' is reserved for netbench serve's description (\(ServerDescription.path))")
            }
            if let t = r.thinkTimeMs, !(t >= 0 && t.isFinite) { bad("resources[\(i)].thinkTimeMs", "\(t) must be ≥ 0") }
            if let t = r.thinkTimeMs, t > Scenario.longestThinkTimeMs {
                bad("resources[\(i)].thinkTimeMs", "\(t) is above one hour (\(Int(Scenario.longestThinkTimeMs)) ms)")
            }
            if let n = r.revealAfterBytes, n < 0 { bad("resources[\(i)].revealAfterBytes", "negative offset \(n)") }
        }
        let byID = Dictionary(resources.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var roots: [Int] = []
        var pathsSeen: [String: Int] = [:]
        for (i, r) in resources.enumerated() {
            let key = r.origin + " " + r.path
            if let j = pathsSeen[key] {
                bad("resources[\(i)].path", "'\(r.path)' on origin '\(r.origin)' is also resources[\(j)].path")
            } else {
                pathsSeen[key] = i
            }
            guard let p = r.parent else { roots.append(i); continue }
            guard let parent = byID[p] else { bad("resources[\(i)].parent", "unknown resource '\(p)'"); continue }
            if p == r.id { bad("resources[\(i)].parent", "'\(p)' is the resource itself (a cycle)") }
            if let n = r.revealAfterBytes, n > parent.bytes {
                bad(
                    "resources[\(i)].revealAfterBytes",
                    "\(n) is beyond the end of parent '\(p)' (\(parent.bytes) bytes)")
            }
        }
        if !resources.isEmpty {
            if roots.isEmpty { bad("resources", "no root resource (one resource must have no parent)") }
            if roots.count > 1 {
                bad(
                    "resources[\(roots[1])].parent",
                    "missing: only one root resource is allowed (resources[\(roots[0])] is the root)")
            }
            if let r = roots.first, resources[r].type != .document {
                bad("resources[\(r)].type", "the root resource must be a document, not '\(resources[r].type.rawValue)'")
            }
        }
        // Cycles: follow parents from every resource; a path longer than the resource count loops.
        var reported = Set<String>()
        for (i, r) in resources.enumerated() {
            var seen: [String] = [r.id]
            var cur = r.parent
            while let c = cur, let next = byID[c] {
                if seen.contains(c) {
                    let cycle = (seen.drop { $0 != c } + [c]).joined(separator: " → ")
                    if reported.insert(Set(seen).sorted().joined()).inserted {
                        bad("resources[\(i)].parent", "dependency cycle \(cycle)")
                    }
                    break
                }
                seen.append(c)
                cur = next.parent
            }
        }
        if let b = bulk, b.bytes <= 0 { bad("bulk.bytes", "\(b.bytes) must be > 0") }
        if let b = bulk, b.bytes > Scenario.largestBody { bad("bulk.bytes", "\(b.bytes) is above 1 TB") }
        try problems.throwIfAny()
    }

    /// The largest body a file may give (1 TB): sums over a page's resources then stay far from
    /// `Int64`'s end, and no benchmark moves more.
    public static let largestBody: Int64 = 1_000_000_000_000
    /// The longest server think time (one hour); the client gives up long before.
    public static let longestThinkTimeMs = 3_600_000.0

    static func isValidHost(_ h: String) -> Bool {
        guard !h.isEmpty, h.count <= 253 else { return false }
        return h.allSatisfy { $0.isLetter && $0.isASCII || $0.isNumber && $0.isASCII || $0 == "-" || $0 == "." }
            && !h.hasPrefix(".") && !h.hasSuffix(".") && !h.hasPrefix("-")
    }
}

extension Scenario: ValidatedFile {}
