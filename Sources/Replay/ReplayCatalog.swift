import BenchCore
import BenchModel
import Transport

/// What the replay server serves: each origin's resources by method and path, chosen by Host/:authority,
/// with a path-only fallback when the host is not one of the scenario's (an IP address, say).
///
/// A class: the server answers every request through a stored catalog, and a call on a struct kept in a
/// class's property copied it first (the scenario, the tables, the heads: ~1,000 instructions and 20
/// retains and releases per request, callgrind of `serve` under h2load). Its `var`s are set while the
/// listeners start, before the first request (`ServerHost`); from then on it is only read, from the
/// servers' threads.
public final class ReplayCatalog: @unchecked Sendable {
    public let scenario: Scenario
    /// Indices into `scenario.resources` by `scope` (origin id, with the method when not GET), then by path.
    private let byOriginPath: [String: [String: Int]]
    /// By `scope(method, "")`, then path: the first resource with that method and path on any origin.
    private let byPath: [String: [String: Int]]
    /// `queryMatch: closest`: resources whose path has a query, by `scope` (of "" for all origins), then bare path.
    private let withQuery: [String: [String: [Int]]]
    private let originByHost: [String: String]
    /// The same GET (and HEAD) tables for the per-request lookup (`getResourceIndex`): the scenario's
    /// hosts; each host's paths as `host` 0 `path`; the paths of any origin (`byPath`'s GET table).
    private let getHosts: ByteKeyTable
    private let getByHostPath: ByteKeyTable
    private let getByPath: ByteKeyTable
    /// Pages for browsers (see `PageRenderer`), by resource index (nil where a resource has none);
    /// nil: filler bodies for everyone.
    private let rendered: [PageRenderer.Body?]?
    /// Recorded bodies (an imported HAR's content) by resource index; nil where generated.
    private let recordedBodies: [[UInt8]?]
    /// An `Alt-Svc` value sent with every resource (e.g. `h3=":8443"; ma=86400` when the same port
    /// also serves HTTP/3), so browsers switch to h3 as they do with real sites; nil: none.
    public var altSvc: String? {
        didSet { heads = Self.heads(scenario.resources, altSvc: altSvc, browserAltSvc: browserAltSvc) }
    }
    /// An `Alt-Svc` value sent to Chromium only (a User-Agent with `Chrome/`), over every protocol: held
    /// to h3 by a command-line flag, it then also knows each origin from an h3 advertisement, as a
    /// browser that reached a real site over h3 does (Chromium throttles low-priority requests to an
    /// origin it knows neither from h2 nor from Alt-Svc). Firefox is held to h3 by an Alt-Svc mapping
    /// of its own, which a second advertisement disturbs (it fetched some images over h1). nil: none
    /// beyond `altSvc`.
    public var browserAltSvc: String? {
        didSet { heads = Self.heads(scenario.resources, altSvc: altSvc, browserAltSvc: browserAltSvc) }
    }
    /// What `GET /.well-known/netbench` answers (`netbench serve`); nil: that path is a 404 as any other.
    public var serverDescription: ServerDescription?
    /// Each resource's response fields for netbench's client and for browsers, built once: a
    /// response then costs no field list of its own (the server's per-request work, issue 13).
    private var heads: [(client: [(String, String)], browser: [(String, String)], chromium: [(String, String)])]

    /// `renderingPagesFor`: the port browsers reach the server at; given, browsers get real pages
    /// (bulk transfers stay filler: they are no page).
    public init(scenario: Scenario, renderingPagesFor port: UInt16? = nil) {
        self.scenario = scenario
        var op: [String: [String: Int]] = [:]
        var p: [String: [String: Int]] = [:]
        for (i, r) in scenario.resources.enumerated() {
            op[Self.scope(r.httpMethod, r.origin), default: [:]][r.path] = i
            if p[Self.scope(r.httpMethod, ""), default: [:]][r.path] == nil {
                p[Self.scope(r.httpMethod, ""), default: [:]][r.path] = i
            }
        }
        byOriginPath = op
        byPath = p
        var q: [String: [String: [Int]]] = [:]
        if scenario.queryMatch == .closest {
            for (i, r) in scenario.resources.enumerated() {
                guard let mark = r.path.firstIndex(of: "?") else { continue }
                let bare = String(r.path[..<mark])
                q[Self.scope(r.httpMethod, r.origin), default: [:]][bare, default: []].append(i)
                q[Self.scope(r.httpMethod, ""), default: [:]][bare, default: []].append(i)
            }
        }
        withQuery = q
        originByHost = Dictionary(
            scenario.origins.map { ($0.host.lowercased(), $0.id) }, uniquingKeysWith: { a, _ in a })
        getHosts = ByteKeyTable(originByHost.keys.map { (Array($0.utf8), 0) })
        getByHostPath = ByteKeyTable(
            originByHost.flatMap { host, origin in
                (op[Self.scope("GET", origin)] ?? [:]).map { (ByteKeyTable.key(host, $0.key), $0.value) }
            })
        getByPath = ByteKeyTable((p[Self.scope("GET", "")] ?? [:]).map { (Array($0.key.utf8), $0.value) })
        if let port, scenario.bulk == nil {
            let bodies = PageRenderer(scenario: scenario, port: port).renderAll()
            rendered = scenario.resources.map { bodies[$0.id] }
        } else {
            rendered = nil
        }
        heads = Self.heads(scenario.resources, altSvc: nil, browserAltSvc: nil)
        recordedBodies = scenario.resources.map { scenario.recordedBody(of: $0) }
    }

    private static func heads(_ resources: [Scenario.Resource], altSvc: String?, browserAltSvc: String?) -> [(
        client: [(String, String)], browser: [(String, String)], chromium: [(String, String)]
    )] {
        resources.map { r in
            var client: [(String, String)] = [
                ("content-type", r.body?.contentType ?? ReplayCatalog.contentType(r.type)),
                ("cache-control", "no-store"), ("accept-ranges", "bytes"),
            ]
            if let encoding = r.body?.contentEncoding { client.append(("content-encoding", encoding)) }
            if let altSvc { client.append(("alt-svc", altSvc)) }
            let browser = client + [("access-control-allow-origin", "*"), ("timing-allow-origin", "*")]
            var chromium = browser
            if altSvc == nil, let browserAltSvc { chromium.append(("alt-svc", browserAltSvc)) }
            return (client, browser, chromium)
        }
    }

    /// The resource a request names, or nil (404).
    ///
    /// A path keeps its query: `/api/comments?id=42` and `?id=43` are two resources (as an imported
    /// HAR has them). The request's path is tried as sent, then percent-decoded (a browser asks for
    /// the encoded form `PageRenderer` wrote), then without its query for scenarios whose paths
    /// have none (a cache-busting parameter).
    /// A resource answers only its own method (HEAD: GET's).
    public func resource(host: String, path: String, method: String = "GET") -> Scenario.Resource? {
        resourceIndex(host: host, path: path, method: method).map { scenario.resources[$0] }
    }

    /// The key of a table of one method's resources on one origin ("": any origin); GET's is the origin id.
    static func scope(_ method: String, _ origin: String) -> String {
        method == "GET" || method == "HEAD" ? origin : method + "\u{0}" + origin
    }

    private func resourceIndex(host: String, path: String, method: String = "GET") -> Int? {
        if method == "GET" || method == "HEAD", let found = getResourceIndex(host: host, path: path) { return found }
        let plain = !host.utf8Contains { $0 == UInt8(ascii: ":") || ($0 >= 0x41 && $0 <= 0x5A) }
        let origin = (plain ? originByHost[host] : originByHost[Self.hostKey(host)]).map { Self.scope(method, $0) }
        let any = Self.scope(method, "")
        // A known origin's own table, else the path-only one (no fallback from the first to the second).
        let table = origin.map { byOriginPath[$0] } ?? byPath[any]
        let plainPath = !path.utf8Contains {
            $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "?")
        }
        if plainPath {
            return table?[path] ?? (withQuery.isEmpty ? nil : closestQuery(scope: origin ?? any, path: path))
        }
        for key in Self.lookupKeys(path) {
            if let r = table?[key] { return r }
        }
        return withQuery.isEmpty ? nil : closestQuery(scope: origin ?? any, path: path)
    }

    /// `resourceIndex` of a GET whose host and path need no rewriting (no port, no capital, no
    /// `#`, `%` or `?`), from the byte tables; nil: not found there (the general lookup decides).
    private func getResourceIndex(host: String, path: String) -> Int? {
        var host = host, path = path  // `withUTF8` on a copy: no String is made
        return host.withUTF8 { h -> Int? in
            for b in h where b == UInt8(ascii: ":") || (b >= 0x41 && b <= 0x5A) { return nil }
            return path.withUTF8 { p -> Int? in
                for b in p where b == UInt8(ascii: "#") || b == UInt8(ascii: "%") || b == UInt8(ascii: "?") {
                    return nil
                }
                return getHosts.value(h) != nil ? getByHostPath.value(h, p) : getByPath.value(p)
            }
        }
    }

    /// `queryMatch: closest` (`Scenario.QueryMatch`): the resource with the same path whose query shares
    /// the most `name=value` parameters with the request's, then the most names, then the first.
    private func closestQuery(scope: String, path: String) -> Int? {
        let noFragment = path.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let parts = noFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let bare = String(parts[0])
        let table = withQuery[scope]
        guard let candidates = table?[bare] ?? table?[Self.percentDecoded(bare)] else { return nil }
        let asked = Self.parameters(parts.count > 1 ? String(parts[1]) : "")
        var best: (index: Int, pairs: Int, names: Int)?
        for i in candidates {
            let path = scenario.resources[i].path
            let have = Self.parameters(String(path[path.index(after: path.firstIndex(of: "?")!)...]))
            let pairs = asked.filter { have.contains($0) }.count
            let names = Set(asked.map(\.name)).intersection(have.map(\.name)).count
            if best == nil || (pairs, names) > (best!.pairs, best!.names) { best = (i, pairs, names) }
        }
        return best?.index
    }

    /// A query's `name=value` pairs (a bare `name` has the value ""), percent-decoded.
    static func parameters(_ query: String) -> [Parameter] {
        query.split(separator: "&").map { part in
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return Parameter(
                name: percentDecoded(String(kv[0])), value: kv.count > 1 ? percentDecoded(String(kv[1])) : "")
        }
    }

    struct Parameter: Hashable {
        var name: String
        var value: String
    }

    /// A Host value as `originByHost` has it: without a port, lowercased.
    static func hostKey(_ host: String) -> String {
        host.split(separator: ":").first.map { $0.lowercased() } ?? host.lowercased()
    }

    /// The forms of a request path to look up, most exact first.
    static func lookupKeys(_ path: String) -> [String] {
        let noFragment =
            path.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? path
        var keys = [noFragment]
        if noFragment.utf8.contains(UInt8(ascii: "%")) { keys.append(percentDecoded(noFragment)) }
        if let q = noFragment.firstIndex(of: "?") {
            let bare = String(noFragment[..<q])
            keys.append(bare)
            if bare.utf8.contains(UInt8(ascii: "%")) { keys.append(percentDecoded(bare)) }
        }
        return keys
    }

    /// `%XX` sequences decoded (a browser asks for the percent-encoded path `PageRenderer` wrote).
    public static func percentDecoded(_ s: String) -> String {
        var bytes: [UInt8] = []
        var it = Array(s.utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "%"), it.count >= 2,
                let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(v)
                it = it.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The replay server's answer to a request: the resource's exact size after its think time;
    /// a satisfiable `Range: bytes=N-` gets 206 with the rest; a method and path that are no resource's
    /// 404 (a GET of a URL recorded only as a POST too); a CORS preflight (OPTIONS) of a resource 204;
    /// methods no resource can have 405.
    public func respond(to request: ServerRequest) -> ServerResponse {
        if request.method == "POST", request.path == Scenario.bulkPath, let bulk = scenario.bulk,
            bulk.direction == .upload
        {
            // An upload is answered once its whole body arrived; a short body is the client's fault.
            guard request.bodyBytes == bulk.bytes else {
                return ServerResponse(status: 400, headers: [("content-type", "text/plain")], bodyLength: 0)
            }
            return ServerResponse(status: 200, headers: [("content-type", "text/plain")], bodyLength: 0)
        }
        let get = request.method == "GET" || request.method == "HEAD"
        if !get {
            if request.method == "OPTIONS" { return preflight(request) }
            guard Scenario.Resource.methods.contains(request.method) else {
                return ServerResponse(
                    status: 405,
                    headers: [("allow", (["HEAD", "OPTIONS"] + Scenario.Resource.methods).joined(separator: ", "))],
                    bodyLength: 0)
            }
        }
        if get, let d = serverDescription, ServerDescription.isDescriptionPath(request.path) {
            let body = d.jsonBody()
            var response = ServerResponse(
                status: 200,
                headers: [("content-type", "application/json"), ("cache-control", "no-store")] + d.headers,
                bodyLength: request.method == "HEAD" ? 0 : Int64(body.count))
            if request.method != "HEAD" { response.prefix = body }
            return response
        }
        guard let index = resourceIndex(host: request.authority, path: request.path, method: request.method) else {
            return ServerResponse(status: 404, headers: [("content-type", "text/plain")], bodyLength: 0)
        }
        let length = scenario.resources[index].bytes, thinkTime = scenario.resources[index].thinkTime
        // A recorded body is sent as recorded, to browsers and to netbench's client alike.
        if let recorded = recordedBodies[index] {
            return browserResponse(
                length: length, thinkTime: thinkTime, PageRenderer.Body(bytes: recorded, scenarioBytes: length),
                request: request,
                headers: browserHead(index, request) ?? heads[index].client)
        }
        // Browsers send a User-Agent, netbench's own client none: it keeps its filler bodies.
        if let rendered, request.header("user-agent") != nil {
            return browserResponse(
                length: length, thinkTime: thinkTime, rendered[index], request: request,
                headers: browserHead(index, request) ?? heads[index].browser)
        }
        return rangeResponse(length: length, thinkTime: thinkTime, request: request, headers: heads[index].client)
            .response
    }

    /// The head for a browser's request (nil: netbench's own client, no User-Agent).
    private func browserHead(_ index: Int, _ request: ServerRequest) -> [(String, String)]? {
        guard let agent = request.header("user-agent") else { return nil }
        return agent.contains("Chrome/") ? heads[index].chromium : heads[index].browser
    }

    /// A CORS preflight: allowed (204) when the method it asks about is a resource's at that path, as the
    /// recording's server allowed it (preflights are not recorded); else 404.
    private func preflight(_ request: ServerRequest) -> ServerResponse {
        let asked = request.header("access-control-request-method") ?? "GET"
        guard resourceIndex(host: request.authority, path: request.path, method: asked) != nil else {
            return ServerResponse(status: 404, headers: [("content-type", "text/plain")], bodyLength: 0)
        }
        var headers = [
            ("access-control-allow-origin", "*"), ("access-control-allow-methods", asked),
            ("access-control-max-age", "600"),
        ]
        if let h = request.header("access-control-request-headers") {
            headers.append(("access-control-allow-headers", h))
        }
        return ServerResponse(status: 204, headers: headers, bodyLength: 0)
    }

    /// 200 with the whole body, 206 from the start a `Range: bytes=N-` asks for, or 416 past the end;
    /// `start` is where the body sent begins.
    private func rangeResponse(
        length: Int64, thinkTime: Nanoseconds, request: ServerRequest,
        headers: [(String, String)]
    ) -> (response: ServerResponse, start: Int64) {
        let head = request.method == "HEAD"
        guard let range = request.header("range"), let start = ReplayCatalog.parseOpenRange(range) else {
            return (ServerResponse(status: 200, headers: headers, bodyLength: head ? 0 : length, delay: thinkTime), 0)
        }
        guard start < length else {
            return (
                ServerResponse(
                    status: 416, headers: headers + [("content-range", "bytes */\(length)")], bodyLength: 0,
                    delay: thinkTime), 0
            )
        }
        return (
            ServerResponse(
                status: 206, headers: headers + [("content-range", "bytes \(start)-\(length - 1)/\(length)")],
                bodyLength: head ? 0 : length - start, delay: thinkTime), start
        )
    }

    /// A browser's answer: cross-origin fetches and Resource Timing details allowed, the rendered
    /// page (if the resource has one) as the body, whatever its size.
    private func browserResponse(
        length: Int64, thinkTime: Nanoseconds, _ page: PageRenderer.Body?, request: ServerRequest,
        headers: [(String, String)]
    ) -> ServerResponse {
        let length = page.map { Int64($0.bytes.count) } ?? length
        var (response, start) = rangeResponse(length: length, thinkTime: thinkTime, request: request, headers: headers)
        if let page, response.bodyLength > 0 {
            response.prefix = start == 0 ? page.bytes : Array(page.bytes[Int(start)...])
        }
        return response
    }

    /// `bytes=N-` → N; other range forms are not used by netbench's client and are ignored (200).
    static func parseOpenRange(_ value: String) -> Int64? {
        let v = value.trimmingCharacters(in: " ")
        guard v.hasPrefix("bytes="), v.hasSuffix("-") else { return nil }
        return Int64(v.dropFirst(6).dropLast())
    }

    /// The `content-type` of a generated body: `Scenario.ResourceType.defaultContentType`.
    public static func contentType(_ t: Scenario.ResourceType) -> String { t.defaultContentType }
}
