/// The shapes that HARs recorded from real pages have and hand-written ones rarely do, counted
/// per kind with what the importer did with them, so that `import-har` can say in one line per kind
/// what became of every such entry.
public struct HARShapes: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case cached, preflight, afterOnLoad, serviceWorker, pseudoHeaders, notApplicableTimings
        case sizeFromContent, sizeFromTransfer, query, fragment, encodedURL

        /// What the importer does with an entry of this kind.
        public var action: String {
            switch self {
            case .cached:
                "from the browser cache (_fromCache) or 304 Not Modified: not replayed as transfers "
                    + "(the cached load is what a repeat view, run --repeat-view, measures)"
            case .preflight: "CORS preflights (OPTIONS): not replayed; the request each one preceded is imported"
            case .afterOnLoad:
                "started after the page's onLoad (beacons, late fetches): not part of the page load, not imported"
            case .serviceWorker:
                "answered by a service worker when recorded: replayed from the network (a first view has none)"
            case .pseudoHeaders:
                "HTTP/2 pseudo-headers (:authority, :path, …) among the headers: ignored "
                    + "(the URL names the resource; recorded headers are not replayed)"
            case .notApplicableTimings: "timings of -1 (blocked, dns, connect, ssl: not applicable): counted as 0"
            case .sizeFromContent: "bodySize -1 or 0: size from response.content.size"
            case .sizeFromTransfer: "body size only in _transferSize: used as is (it includes the response headers)"
            case .query: "query strings: kept in the path; URLs that differ only in their query are separate resources"
            case .fragment: "fragments (#…): dropped, as browsers do not send them"
            case .encodedURL:
                "non-ASCII characters or spaces in the URL: percent-encoded as UTF-8, as browsers send them"
            }
        }
    }

    /// One kind that occurred: how often, the first entries (indexes) it occurred in, the action.
    public struct Line: Sendable, Hashable, CustomStringConvertible {
        public var kind: Kind
        public var count: Int
        public var entries: [Int]
        public var description: String {
            let shown = entries.prefix(3).map { "log.entries[\($0)]" }.joined(separator: ", ")
            return "\(count) × \(kind.action) (\(shown)\(count > 3 ? ", …" : ""))"
        }
    }

    private var seen: [Kind: [Int]] = [:]

    public init() {}

    mutating func note(_ kind: Kind, entry: Int) {
        if seen[kind]?.last != entry { seen[kind, default: []].append(entry) }
    }

    public func count(_ kind: Kind) -> Int { seen[kind]?.count ?? 0 }

    /// The kinds that occurred, in a fixed order.
    public var lines: [Line] {
        Kind.allCases.compactMap { k in seen[k].map { Line(kind: k, count: $0.count, entries: $0) } }
    }
}

extension HARShapes {
    /// The URL as a browser sends it: characters a URL cannot hold (non-ASCII, spaces, controls,
    /// `"<>\^`{|}`) percent-encoded as UTF-8; existing `%XX` escapes and everything else untouched.
    static func encodedURL(_ url: String) -> String {
        guard url.unicodeScalars.contains(where: needsEncoding) else { return url }
        var out = ""
        for s in url.unicodeScalars {
            guard needsEncoding(s) else { out.unicodeScalars.append(s); continue }
            for b in String(s).utf8 { out += "%" + (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true) }
        }
        return out
    }

    private static func needsEncoding(_ s: Unicode.Scalar) -> Bool {
        !s.isASCII || s.value <= 0x20 || s.value == 0x7F || "\"<>\\^`{|}".unicodeScalars.contains(s)
    }

    /// Whether recorded headers include HTTP/2 or HTTP/3 pseudo-headers.
    static func hasPseudoHeaders(_ e: HARArchive.Entry) -> Bool {
        ((e.request.headers ?? []) + (e.response.headers ?? [])).contains { $0.name.hasPrefix(":") }
    }
}
