import BenchCore
import BenchModel
import Transport

/// What the replay server serves: each origin's resources by path, chosen by Host/:authority, with a
/// path-only fallback when the host is not one of the scenario's (an IP address, say).
public struct ReplayCatalog: Sendable {
    public let scenario: Scenario
    private let byOriginPath: [String: Scenario.Resource]
    private let byPath: [String: Scenario.Resource]
    private let originByHost: [String: String]
    /// Pages for browsers (see `PageRenderer`), by origin + path; nil: filler bodies for everyone.
    private let rendered: [String: PageRenderer.Body]?
    /// An `Alt-Svc` value sent with every resource (e.g. `h3=":8443"; ma=86400` when the same port
    /// also serves HTTP/3), so browsers switch to h3 as they do with real sites; nil: none.
    public var altSvc: String?
    /// What `GET /.well-known/netbench` answers (`netbench serve`); nil: that path is a 404 as any other.
    public var serverDescription: ServerDescription?

    /// `renderingPagesFor`: the port browsers reach the server at; given, browsers get real pages
    /// (bulk transfers stay filler: they are no page).
    public init(scenario: Scenario, renderingPagesFor port: UInt16? = nil) {
        self.scenario = scenario
        var op: [String: Scenario.Resource] = [:]
        var p: [String: Scenario.Resource] = [:]
        for r in scenario.resources {
            op[r.origin + "\u{0}" + r.path] = r
            if p[r.path] == nil { p[r.path] = r }
        }
        byOriginPath = op
        byPath = p
        originByHost = Dictionary(scenario.origins.map { ($0.host.lowercased(), $0.id) }, uniquingKeysWith: { a, _ in a })
        if let port, scenario.bulk == nil {
            let bodies = PageRenderer(scenario: scenario, port: port).renderAll()
            rendered = Dictionary(uniqueKeysWithValues: scenario.resources.compactMap { r in
                bodies[r.id].map { (r.origin + "\u{0}" + r.path, $0) }
            })
        } else {
            rendered = nil
        }
    }

    /// The resource a request names, or nil (404).
    ///
    /// A path keeps its query: `/api/comments?id=42` and `?id=43` are two resources (as an imported
    /// HAR has them). The request's path is tried as sent, then percent-decoded (a browser asks for
    /// the encoded form `PageRenderer` wrote), then without its query for scenarios whose paths
    /// have none (a cache-busting parameter).
    public func resource(host: String, path: String) -> Scenario.Resource? {
        let h = host.split(separator: ":").first.map { $0.lowercased() } ?? host.lowercased()
        let origin = originByHost[h]
        for key in Self.lookupKeys(path) {
            if let origin { if let r = byOriginPath[origin + "\u{0}" + key] { return r } } else if let r = byPath[key] { return r }
        }
        return nil
    }

    /// The forms of a request path to look up, most exact first.
    static func lookupKeys(_ path: String) -> [String] {
        let noFragment = path.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? path
        var keys = [noFragment]
        if noFragment.contains("%") { keys.append(percentDecoded(noFragment)) }
        if let q = noFragment.firstIndex(of: "?") {
            let bare = String(noFragment[..<q])
            keys.append(bare)
            if bare.contains("%") { keys.append(percentDecoded(bare)) }
        }
        return keys
    }

    /// `%XX` sequences decoded (a browser asks for the percent-encoded path `PageRenderer` wrote).
    public static func percentDecoded(_ s: String) -> String {
        var bytes: [UInt8] = []
        var it = Array(s.utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "%"), it.count >= 2, let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(v)
                it = it.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The replay server's answer to a request: the resource's exact size after its think time;
    /// a satisfiable `Range: bytes=N-` gets 206 with the rest; unknown paths 404; other methods 405.
    public func respond(to request: ServerRequest) -> ServerResponse {
        if request.method == "POST", request.path == Scenario.bulkPath, let bulk = scenario.bulk, bulk.direction == .upload {
            // An upload is answered once its whole body arrived; a short body is the client's fault.
            guard request.bodyBytes == bulk.bytes else {
                return ServerResponse(status: 400, headers: [("content-type", "text/plain")], bodyLength: 0)
            }
            return ServerResponse(status: 200, headers: [("content-type", "text/plain")], bodyLength: 0)
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return ServerResponse(status: 405, headers: [("allow", "GET, HEAD"), ("content-type", "text/plain")], bodyLength: 0)
        }
        if let d = serverDescription, ServerDescription.isDescriptionPath(request.path) {
            let body = d.jsonBody()
            var response = ServerResponse(status: 200, headers: [("content-type", "application/json"), ("cache-control", "no-store")] + d.headers,
                                          bodyLength: request.method == "HEAD" ? 0 : Int64(body.count))
            if request.method != "HEAD" { response.prefix = body }
            return response
        }
        guard let r = resource(host: request.authority, path: request.path) else {
            return ServerResponse(status: 404, headers: [("content-type", "text/plain")], bodyLength: 0)
        }
        var headers: [(String, String)] = [("content-type", ReplayCatalog.contentType(r.type)), ("cache-control", "no-store"),
                                           ("accept-ranges", "bytes")]
        if let altSvc { headers.append(("alt-svc", altSvc)) }
        let head = request.method == "HEAD"
        // Browsers send a User-Agent, netbench's own client none: it keeps its filler bodies.
        if let rendered, request.header("user-agent") != nil {
            return browserResponse(r, rendered[r.origin + "\u{0}" + r.path], request: request, headers: headers)
        }
        if let range = request.header("range"), let start = ReplayCatalog.parseOpenRange(range) {
            guard start < r.bytes else {
                headers.append(("content-range", "bytes */\(r.bytes)"))
                return ServerResponse(status: 416, headers: headers, bodyLength: 0, delay: r.thinkTime)
            }
            headers.append(("content-range", "bytes \(start)-\(r.bytes - 1)/\(r.bytes)"))
            return ServerResponse(status: 206, headers: headers, bodyLength: head ? 0 : r.bytes - start, delay: r.thinkTime)
        }
        return ServerResponse(status: 200, headers: headers, bodyLength: head ? 0 : r.bytes, delay: r.thinkTime)
    }

    /// A browser's answer: cross-origin fetches and Resource Timing details allowed, the rendered
    /// page (if the resource has one) as the body, whatever its size.
    private func browserResponse(_ r: Scenario.Resource, _ page: PageRenderer.Body?, request: ServerRequest,
                                 headers base: [(String, String)]) -> ServerResponse {
        var headers = base + [("access-control-allow-origin", "*"), ("timing-allow-origin", "*")]
        let head = request.method == "HEAD"
        let length = page.map { Int64($0.bytes.count) } ?? r.bytes
        var start: Int64 = 0
        var status = 200
        if let range = request.header("range"), let s = ReplayCatalog.parseOpenRange(range) {
            guard s < length else {
                headers.append(("content-range", "bytes */\(length)"))
                return ServerResponse(status: 416, headers: headers, bodyLength: 0, delay: r.thinkTime)
            }
            headers.append(("content-range", "bytes \(s)-\(length - 1)/\(length)"))
            start = s
            status = 206
        }
        var response = ServerResponse(status: status, headers: headers, bodyLength: head ? 0 : length - start, delay: r.thinkTime)
        if let page, !head { response.prefix = start == 0 ? page.bytes : Array(page.bytes[Int(start)...]) }
        return response
    }

    /// `bytes=N-` → N; other range forms are not used by netbench's client and are ignored (200).
    static func parseOpenRange(_ value: String) -> Int64? {
        let v = value.trimmingCharacters(in: " ")
        guard v.hasPrefix("bytes="), v.hasSuffix("-") else { return nil }
        return Int64(v.dropFirst(6).dropLast())
    }

    public static func contentType(_ t: Scenario.ResourceType) -> String {
        switch t {
        case .document: return "text/html; charset=utf-8"
        case .stylesheet: return "text/css"
        case .script: return "text/javascript"
        case .font: return "font/woff2"
        case .image: return "image/webp"
        case .xhr: return "application/json"
        case .other: return "application/octet-stream"
        }
    }
}
