/// Turns drafts into a `Scenario`'s origins and resources: discovery order (breadth first, each
/// parent's children by reveal offset), readable ids (`html`, `css-1`, `js-4`, `img-12`) and paths
/// that look like a real site's (`/assets/js/vendor-3.1f9c2a7e.js`). Ids number resources per type
/// in discovery order, so every path is unique on its origin.
enum ResourceNaming {
    typealias ResourceType = Scenario.ResourceType

    static func finish(
        _ drafts: [DraftResource], origins entries: [OriginCatalog.Entry],
        _ rng: inout GeneratorRandom
    ) -> ([Scenario.Origin], [Scenario.Resource]) {
        let order = discoveryOrder(drafts)
        var ids = [String](repeating: "", count: drafts.count)
        var perType: [ResourceType: Int] = [:]
        for i in order {
            let t = drafts[i].type
            if i == 0 { ids[i] = "html"; continue }
            let k = (perType[t] ?? 0) + 1
            perType[t] = k
            ids[i] = prefix(t) + "-\(k)"
        }
        var resources: [Scenario.Resource] = []
        for i in order {
            let d = drafts[i]
            let k = i == 0 ? 0 : Int(ids[i].split(separator: "-").last!)!
            resources.append(
                Scenario.Resource(
                    id: ids[i], origin: entries[d.origin].id, path: path(d, index: k, root: i == 0, &rng),
                    bytes: d.bytes, type: d.type, parent: d.parent.map { ids[$0] },
                    revealAfterBytes: d.revealAfterBytes, thinkTimeMs: d.thinkTimeMs, renderBlocking: d.renderBlocking))
        }
        let used = Set(drafts.map(\.origin))
        let origins = entries.indices.filter { used.contains($0) }.map {
            Scenario.Origin(id: entries[$0].id, host: entries[$0].host)
        }
        return (origins, resources)
    }

    /// Breadth first from the root; siblings by reveal offset (nil, "at the end", last), then by
    /// draft order.
    static func discoveryOrder(_ d: [DraftResource]) -> [Int] {
        var children = [[Int]](repeating: [], count: d.count)
        for i in d.indices { if let p = d[i].parent { children[p].append(i) } }
        var out: [Int] = []
        var queue = d.indices.filter { d[$0].parent == nil }
        while !queue.isEmpty {
            let i = queue.removeFirst()
            out.append(i)
            queue += children[i].sorted {
                (d[$0].revealAfterBytes ?? Int64.max, $0) < (d[$1].revealAfterBytes ?? Int64.max, $1)
            }
        }
        return out
    }

    static func prefix(_ t: ResourceType) -> String {
        switch t {
        case .document: return "iframe"
        case .stylesheet: return "css"
        case .script: return "js"
        case .font: return "font"
        case .image: return "img"
        case .xhr: return "xhr"
        case .other: return "other"
        }
    }

    static func path(_ d: DraftResource, index k: Int, root: Bool, _ rng: inout GeneratorRandom) -> String {
        let hash = rng.hex8()
        switch d.type {
        case .document:
            return root ? "/" : "/frame/embed-\(k).html"
        case .stylesheet:
            let name = rng.pick(
                d.thirdParty ? ["css", "widget", "theme"] : ["main", "theme", "components", "vendor", "layout"])
            return "/assets/css/\(name)-\(k).\(hash).css"
        case .script:
            let drawn = rng.pick(
                d.thirdParty
                    ? ["loader", "tag", "sdk", "widget", "bundle"] : ["app", "vendor", "runtime", "chunk", "polyfills"])
            let name = d.nameHint ?? drawn
            return "/assets/js/\(name)-\(k).\(hash).js"
        case .font:
            let family = rng.pick(["inter", "roboto", "opensans", "lato", "merriweather"])
            return "/fonts/\(family)-\(rng.pick(["400", "700", "300", "600"]))-\(k).woff2"
        case .image:
            if d.bytes < 200 { return "/pixel-\(k).gif" }
            let ext = ["webp", "jpg", "png", "svg", "gif"][rng.weighted([35, 35, 20, 5, 5])]
            let kind = rng.pick(
                d.bytes < 5_000
                    ? ["icon", "logo", "sprite"]
                    : d.bytes < 60_000
                        ? ["thumb", "product", "photo", "avatar"]
                        : ["hero", "banner", "photo", "product"])
            return "/images/\(kind)-\(k).\(hash).\(ext)"
        case .xhr:
            let endpoint = rng.pick(
                d.thirdParty
                    ? ["collect", "events", "config", "v2/track"]
                    : ["cart", "recommendations", "user", "config", "search", "items"])
            return "/api/\(endpoint)/\(k)"
        case .other:
            if d.bytes > 100_000 { return rng.pick(["/media/clip-\(k).mp4", "/wasm/module-\(k).wasm"]) }
            return rng.pick(["/manifest-\(k).json", "/favicon-\(k).ico", "/data/feed-\(k).json", "/sw-\(k).js"])
        }
    }
}
