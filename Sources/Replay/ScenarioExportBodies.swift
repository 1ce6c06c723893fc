import BenchCore
import BenchModel

/// Recorded bodies in an export: which bytes each file holds, and the nginx and caddy lines that send a
/// recorded body as `netbench serve` does, with its recorded content-type and, for one stored
/// gzip-encoded, its stored bytes with `content-encoding: gzip` whatever the client's accept-encoding.
extension ScenarioExport {
    /// How many files hold recorded bytes as stored, a stored gzip body (PATH.gz + PATH), or filler.
    public struct BodyCounts: Sendable, Equatable {
        public var recorded = 0, gzip = 0, generated = 0
    }

    public var bodyCounts: BodyCounts {
        var c = BodyCounts()
        for f in files {
            switch f.content {
            case .generated: c.generated += 1
            case .recorded: c.recorded += 1
            case .gzip: c.gzip += 1
            }
        }
        return c
    }

    /// Sets `f`'s content to `r`'s recorded body, if it has one; a note when the body's encoding is kept
    /// but not sent (anything but gzip, which netbench does not store encoded itself).
    static func readBody(
        of r: Scenario.Resource, at index: Int, in scenario: Scenario, file: String, into f: inout File
    )
        throws -> String?
    {
        guard let body = r.body else { return nil }
        let path = (scenario.recordedBodies?.directory ?? scenario.bodies ?? "bodies") + "/" + body.sha256
        guard let stored = scenario.recordedBody(of: r) else {
            throw BenchError.data(
                "\(file): resources[\(index)] (\(r.id)): recorded body \(path) was not read: a missing body file")
        }
        f.contentType = body.contentType
        guard let encoding = body.contentEncoding, encoding.lowercased() != "identity" else {
            f.content = .recorded(stored)
            return nil
        }
        guard ContentDecoding.isGzip(encoding) else {
            f.content = .recorded(stored)
            return "\(r.id): recorded with content-encoding \(encoding): its stored bytes are written as they are, "
                + "and nginx.conf and the Caddyfile do not send that content-encoding"
        }
        guard let decoded = ContentDecoding.decoded(stored, encoding: encoding) else {
            throw BenchError.data(
                "\(file): resources[\(index)] (\(r.id)).body.contentEncoding: gzip, but body file \(path) does not "
                    + "decode as gzip")
        }
        f.content = .gzip(stored: stored, decoded: decoded)
        return nil
    }

    /// The URL path a file answers after the server mapped it (`/index.html` for `/`, a method's
    /// `.netbench-methods/` path after the rewrite): where its body's lines go.
    func servedPath(_ f: File) -> String { "/" + f.relativePath }

    /// nginx directives that send `f`'s recorded body as recorded, in its exact location: `types { }` empties
    /// the extension map so that `default_type` is the recorded type, and `gzip_static always` sends PATH.gz
    /// with content-encoding gzip to every client (as netbench serve does). Empty for filler.
    func nginxBodyDirectives(_ f: File) -> [String] {
        var d: [String] = []
        if let t = f.contentType { d.append("types { } default_type \(Self.nginxToken(t));") }
        if case .gzip = f.content { d.append("gzip_static always;") }
        return d
    }

    /// Exact nginx `location`s (indented for a `server { }` block) for `host`'s recorded bodies that no
    /// method location took (`taken`), by served path. A stored method's file (`.netbench-methods/`) keeps
    /// `error_page 405 =200 $uri`: its exact location wins over the `^~` prefix one.
    func nginxBodyLocations(host: String, taken: Set<String>) -> String {
        var s = ""
        for f in files where f.host == host && !taken.contains(servedPath(f)) {
            var d = nginxBodyDirectives(f)
            guard !d.isEmpty else { continue }
            if f.relativePath.hasPrefix(Self.storedMethodsDirectory + "/") {
                d.insert("error_page 405 =200 $uri;", at: 0)
            }
            s += "        location = \(Self.nginxToken(servedPath(f))) { \(d.joined(separator: " ")) }\n"
        }
        return s
    }

    /// Caddyfile routes (indented for a site block; empty without recorded bodies) for `host`'s recorded
    /// bodies, after the method rewrites: the recorded `Content-Type` (file_server keeps a type already set)
    /// and, for a gzip body, `Content-Encoding: gzip` and a rewrite to PATH.gz, for every client. A stored
    /// method's body is in its method's route instead (`caddyMethodRewrites`): caddy sorts routes with a
    /// lone path matcher longest path first, so a route of its stored path would run before the rewrite to it.
    public func caddyBodyRoutes(host: String) -> String {
        var s = ""
        for (i, f) in files.enumerated()
        where f.host == host && !f.relativePath.hasPrefix(Self.storedMethodsDirectory + "/") {
            let lines = caddyBodyLines(f)
            guard !lines.isEmpty else { continue }
            s += "\t@netbench_body\(i) path \(Self.caddyToken(f.urlPath))\n\troute @netbench_body\(i) {\n\(lines)\t}\n"
        }
        return s
    }

    /// The lines of a route (indented twice) that send `f`'s recorded body as recorded; empty for filler.
    func caddyBodyLines(_ f: File) -> String {
        var s = ""
        if let t = f.contentType { s += "\t\theader Content-Type \(Self.caddyToken(t))\n" }
        if case .gzip = f.content {
            s += "\t\theader Content-Encoding gzip\n"
            s += "\t\trewrite * \(Self.caddyToken(Self.percentEncoded(servedPath(f) + ".gz")))\n"
        }
        return s
    }
}
