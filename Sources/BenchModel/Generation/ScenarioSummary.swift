/// What `netbench scenario show` reports about a scenario: origins, requests and bytes per type,
/// tree depth and the critical path.
///
/// The critical path is the dependency chain that ends last in a simple model of the load: every
/// request costs one round trip plus its think time plus its serialization at the reference rate;
/// a child is discovered when its parent has delivered `revealAfterBytes` (or all) of its body.
/// Handshakes and competition for the link are left out on purpose: the chain is a property of the
/// page, not of a transport (`IdealPageLoad` adds those for the physical lower bound).
public struct ScenarioSummary: Sendable {
    public typealias ResourceType = Scenario.ResourceType

    public struct OriginLine: Sendable, Hashable {
        public var id: String
        public var host: String
        public var requests: Int
        public var bytes: Int64
        /// A different registrable domain (last two labels) than the root document's host.
        public var thirdParty: Bool
    }

    public var requests: Int
    public var totalBytes: Int64
    public var origins: [OriginLine]
    public var countByType: [ResourceType: Int]
    public var bytesByType: [ResourceType: Int64]
    public var depth: Int
    public var renderBlocking: Int
    /// Resource ids from the root to the resource that finishes last.
    public var criticalPath: [String]
    /// When the critical path ends in the reference model, in ms.
    public var criticalPathMs: Double
    public var referenceRttMs: Double
    public var referenceBitsPerSecond: Double

    public init(_ s: Scenario, rttMs: Double = 100, bitsPerSecond: Double = 10_000_000) {
        requests = s.resources.count
        totalBytes = s.totalBytes
        depth = s.depth
        renderBlocking = s.resources.filter { $0.renderBlocking == true }.count
        referenceRttMs = rttMs
        referenceBitsPerSecond = bitsPerSecond
        var counts: [ResourceType: Int] = [:]
        var bytes: [ResourceType: Int64] = [:]
        for r in s.resources { counts[r.type, default: 0] += 1; bytes[r.type, default: 0] += r.bytes }
        countByType = counts
        bytesByType = bytes
        let rootDomain = s.root.flatMap { s.origin(id: $0.origin) }.map { Self.registrableDomain($0.host) }
        origins = s.origins.map { o in
            let mine = s.resources.filter { $0.origin == o.id }
            return OriginLine(
                id: o.id, host: o.host, requests: mine.count, bytes: mine.reduce(0) { $0 + $1.bytes },
                thirdParty: rootDomain.map { Self.registrableDomain(o.host) != $0 } ?? false)
        }
        (criticalPath, criticalPathMs) = Self.criticalPath(s, rttMs: rttMs, bitsPerSecond: bitsPerSecond)
    }

    /// `www.shop.test` → `shop.test` (the last two labels; enough for `.test` hosts, not a
    /// public-suffix list).
    public static func registrableDomain(_ host: String) -> String {
        host.split(separator: ".").suffix(2).joined(separator: ".")
    }

    static func criticalPath(_ s: Scenario, rttMs: Double, bitsPerSecond: Double) -> ([String], Double) {
        let byID = Dictionary(s.resources.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        func ser(_ b: Int64) -> Double { bitsPerSecond > 0 ? Double(b) * 8 / bitsPerSecond * 1000 : 0 }
        var firstByte: [String: Double] = [:]
        var finish: [String: Double] = [:]
        var visiting = Set<String>()
        func solve(_ id: String) -> (Double, Double) {
            if let f = finish[id], let fb = firstByte[id] { return (fb, f) }
            guard let r = byID[id], !visiting.contains(id) else { return (0, 0) }  // cycles: validation reports them
            visiting.insert(id)
            var discovered = 0.0
            if let p = r.parent, byID[p] != nil {
                let (pfb, pend) = solve(p)
                discovered = r.revealAfterBytes.map { pfb + ser($0) } ?? pend
            }
            let fb = discovered + rttMs + (r.thinkTimeMs ?? 0)
            firstByte[id] = fb
            finish[id] = fb + ser(r.bytes)
            visiting.remove(id)
            return (fb, fb + ser(r.bytes))
        }
        var last: (id: String, end: Double)?
        for r in s.resources {
            let end = solve(r.id).1
            if last == nil || end > last!.end { last = (r.id, end) }
        }
        guard let last else { return ([], 0) }
        var chain = [last.id]
        var cur = byID[last.id]?.parent
        while let c = cur, !chain.contains(c), byID[c] != nil { chain.append(c); cur = byID[c]?.parent }
        return (chain.reversed(), last.end)
    }
}
