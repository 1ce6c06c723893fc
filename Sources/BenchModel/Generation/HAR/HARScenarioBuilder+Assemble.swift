import Foundation
import BenchCore

extension HARScenarioBuilder {
    /// Sorts by start, picks the root (the first document), links, names and validates.
    mutating func assemble(_ all: [Candidate], alias: [String: String]) throws -> HARImporter.Result {
        let sorted = all.sorted { ($0.start, $0.index) < ($1.start, $1.index) }
        guard let rootAt = sorted.firstIndex(where: { $0.type == .document && $0.method == nil }) else {
            throw BenchError.data(
                "\(file): no HTML document among the \(har.log.entries.count) entries (the first document is the "
                    + "page's root)"
                    + (skipped.isEmpty
                        ? "" : "; skipped: " + skipped.prefix(5).map(\.description).joined(separator: "; ")))
        }
        for c in sorted[..<rootAt] {
            skipped.append(
                Note(
                    entry: c.index,
                    "started before the root document (log.entries[\(sorted[rootAt].index)]); nothing on the page can "
                        + "reveal it"
                ))
        }
        let kept = Array(sorted[rootAt...])
        var positionByKey: [String: Int] = [:]
        for (p, c) in kept.enumerated() where positionByKey[c.key] == nil { positionByKey[c.key] = p }
        for i in redirects.indices {
            if let k = Self.key(redirects[i].to), let p = positionByKey[Self.resolve(k, alias)] {
                redirects[i].targetEntry = kept[p].index
            }
        }

        let nodes = kept.map { c -> HARDependencies.Node in
            let urls = (c.entry.initiator?.stackURLs ?? []) + [c.entry.initiator?.url].compactMap { $0 }
            return HARDependencies.Node(
                type: c.type, start: c.start, firstByte: c.firstByte, end: c.end, bytes: c.bytes,
                initiatorKeys: urls.compactMap { Self.key($0) }.map { Self.resolve($0, alias) })
        }
        let links = HARDependencies.resolve(nodes) { positionByKey[$0] }
        let rtt = Self.roundTripEstimate(kept.map(\.entry))
        let ids = Self.resourceIDs(kept)

        var origins: [Scenario.Origin] = []
        var resources: [Scenario.Resource] = []
        for (p, c) in kept.enumerated() {
            if !origins.contains(where: { $0.id == c.host }) { origins.append(.init(id: c.host, host: c.host)) }
            var think: Double?
            if let wait = c.entry.timings?.wait {
                let t = options.subtractRoundTrip ? max(0, wait - (rtt ?? 0)) : wait
                think = t >= 0.05 ? (t * 10).rounded() / 10 : nil
            }
            let link = links[p]
            var blocking: Bool?
            if link.parent == 0 {
                if c.type == .stylesheet { blocking = true }
                if c.type == .script, let pr = c.entry.priority?.lowercased(), pr == "high" || pr == "veryhigh" {
                    blocking = true
                }
            }
            resources.append(
                Scenario.Resource(
                    id: ids[p], origin: c.host, path: c.path, bytes: c.bytes, type: c.type,
                    parent: link.parent.map { ids[$0] }, revealAfterBytes: link.revealAfterBytes,
                    thinkTimeMs: think, renderBlocking: blocking, body: c.body, method: c.method,
                    requestBody: c.requestBody))
        }
        let creator = [har.log.creator?.name, har.log.creator?.version].compactMap { $0 }.joined(separator: " ")
        let title = har.log.pages?.first?.title.map { " '\($0)'" } ?? ""
        let name = options.name ?? "imported"
        var scenario = Scenario(
            name: name,
            description: "Imported from \(URL(fileURLWithPath: file).lastPathComponent)\(title)"
                + (creator.isEmpty ? "" : " (\(creator))") + ": \(resources.count) of \(har.log.entries.count) entries",
            origins: origins, resources: resources)
        if resources.contains(where: { $0.body != nil }) { scenario.bodies = options.bodiesDirectory }
        // A recorded site's scripts add cache busters and session ids: match queries as Web Page Replay does.
        scenario.queryMatch = .closest
        // The recording's start: a browser's replay starts the page's clock there (deterministic JavaScript).
        let started = har.log.pages?.first?.startedDateTime ?? kept.first?.entry.startedDateTime
        if let t = started, HARTime.milliseconds(t) != nil { scenario.recordedAt = t }
        try scenario.validate(file: file + " (imported)")
        let report = HARImporter.Report(
            creator: creator.isEmpty ? nil : creator, entries: har.log.entries.count, imported: resources.count,
            skipped: skipped.sorted { ($0.entry ?? -1) < ($1.entry ?? -1) }, notes: notes, redirects: redirects,
            shapes: shapes,
            roundTripMs: options.subtractRoundTrip ? rtt : nil,
            parentsFromInitiator: links.filter(\.fromInitiator).count,
            parentsFromTiming: links.dropFirst().filter { !$0.fromInitiator }.count, bodies: bodies)
        // Only the bodies of imported resources (a skipped duplicate's may differ).
        let used = Set(resources.compactMap { $0.body?.sha256 })
        return HARImporter.Result(
            scenario: scenario, report: report, bodies: bodyBytes.filter { used.contains($0.key) })
    }

    /// The recorded round trip: the fastest TCP handshake (`connect` less `ssl`), else the
    /// shortest `wait` (a cache or CDN hit is about one round trip); nil if neither is known.
    static func roundTripEstimate(_ entries: [HARArchive.Entry]) -> Double? {
        let handshakes = entries.compactMap { e -> Double? in
            guard let c = e.timings?.connect, c > 0 else { return nil }
            let tcp = c - (e.timings?.ssl ?? 0)
            return tcp > 0 ? tcp : nil
        }
        if let m = handshakes.min() { return m }
        return entries.compactMap { $0.timings?.wait }.filter { $0 > 0 }.min()
    }

    /// Readable, unique ids from file names (`main.css`, `app.js`, `logo.png`); the root is
    /// `document`; a name seen before gets `-2`, `-3`, ….
    static func resourceIDs(_ kept: [Candidate]) -> [String] {
        var used = Set<String>()
        var out: [String] = []
        for (p, c) in kept.enumerated() {
            var base: String
            if p == 0 {
                base = "document"
            } else {
                let file = c.path.split(separator: "?").first.map(String.init) ?? c.path
                let last = file.split(separator: "/").last.map(String.init) ?? ""
                base = String(
                    last.unicodeScalars.map {
                        CharacterSet.alphanumerics.contains($0) && $0.isASCII || "._-".unicodeScalars.contains($0)
                            ? Character($0) : "_"
                    }.prefix(48))
                if base.isEmpty || base.allSatisfy({ $0 == "_" || $0 == "." }) {
                    base = c.host.split(separator: ".").first.map(String.init) ?? c.type.rawValue
                }
            }
            var id = base
            var n = 2
            while used.contains(id) { id = "\(base)-\(n)"; n += 1 }
            used.insert(id)
            out.append(id)
        }
        return out
    }
}
