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

    public init(scenario: Scenario) {
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
    }

    /// The resource a request names, or nil (404).
    public func resource(host: String, path: String) -> Scenario.Resource? {
        let bare = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        let h = host.split(separator: ":").first.map { $0.lowercased() } ?? host.lowercased()
        if let origin = originByHost[h] { return byOriginPath[origin + "\u{0}" + bare] }
        return byPath[bare]
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
        guard let r = resource(host: request.authority, path: request.path) else {
            return ServerResponse(status: 404, headers: [("content-type", "text/plain")], bodyLength: 0)
        }
        var headers: [(String, String)] = [("content-type", ReplayCatalog.contentType(r.type)), ("cache-control", "no-store"),
                                           ("accept-ranges", "bytes")]
        let head = request.method == "HEAD"
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

extension String {
    func trimmingCharacters(in c: Character) -> String {
        var s = Substring(self)
        while s.first == c { s.removeFirst() }
        while s.last == c { s.removeLast() }
        return String(s)
    }
}
