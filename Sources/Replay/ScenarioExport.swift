import BenchCore
import BenchModel

/// A scenario as files for a server of the user's own (nginx, h2o, caddy, a CDN origin): every
/// body at its path with its exact size, one directory per origin host, an nginx configuration
/// that serves them over h1 and h2, a Caddyfile that serves them over h1, h2 and h3, and what a
/// static server cannot reproduce.
///
/// A resource with a recorded body (`netbench record`, `import-har`) is its recorded bytes, byte for byte,
/// served with its recorded content-type; one recorded gzip-encoded is its stored bytes at PATH.gz, sent
/// with `content-encoding: gzip` as `netbench serve` sends it, and their decoding at PATH
/// (`ScenarioExportBodies.swift`). Other bodies are netbench's filler bytes (`BodyFiller`), the same the
/// replay server sends, so a run against either server moves the same bytes.
public struct ScenarioExport: Sendable {
    public struct File: Sendable, Equatable {
        /// Origin host: the directory the file is under, and the name clients ask for.
        public var host: String
        /// Path under the host's directory, no leading slash, percent-decoded ("index.html" for "/").
        public var relativePath: String
        public var bytes: Int64
        /// The scenario resource it serves (`bulk` for a bulk download).
        public var resource: String
        /// The request method the resource is recorded with (GET, POST, PUT, PATCH, DELETE): a static
        /// server answers other methods than GET with 405 unless its configuration says otherwise
        /// (`methodRequests`).
        public var method = "GET"
        /// The URL path the file answers (percent-decoded, no query), as a server's location matches it.
        public var urlPath = "/"
        /// What the file holds: generated filler or a recorded body.
        public var content = Content.generated
        /// The recorded `content-type` of a recorded body; nil: the server's type for the extension.
        public var contentType: String?
    }

    /// A file's bytes.
    public enum Content: Sendable, Equatable {
        /// `bytes` of netbench's filler (`BodyFiller`), as `netbench serve` sends for a resource without a body.
        case generated
        /// A recorded body, written as stored.
        case recorded([UInt8])
        /// A body recorded gzip-encoded: the stored bytes, written at PATH.gz and sent with content-encoding
        /// gzip, and their decoding, written at PATH for servers that send no content-encoding.
        case gzip(stored: [UInt8], decoded: [UInt8])
    }

    /// A request with another method than GET that the export's nginx.conf and Caddyfile answer with
    /// its file's bytes (a static server would answer 405): the method, host and URL path.
    public struct MethodRequest: Sendable, Equatable {
        public var method: String
        public var host: String
        public var urlPath: String
        public var resource: String
        /// The URL path of its file when that is not `urlPath` (`storedMethodsDirectory`): the path is also
        /// requested with another method, whose body is at `urlPath`.
        public var storedPath: String?
    }

    public let files: [File]
    /// What differs when a static server serves these files instead of `netbench serve`.
    public let notes: [String]

    /// Throws a data error naming `file` (the scenario's file), the resource and the body file when a
    /// resource's recorded body was not read with the scenario, or one stored gzip-encoded does not decode.
    public init(scenario: Scenario, file scenarioFile: String = "scenario") throws {
        var files: [File] = []
        var notes: [String] = []
        var seen: [String: String] = [:]
        let hosts = Dictionary(scenario.origins.map { ($0.id, $0.host) }, uniquingKeysWith: { a, _ in a })
        // The methods each file path is requested with: a path with several keeps the GET's (or none) at its
        // place and the others' under `storedMethodsDirectory`.
        var methodsAt: [String: Set<String>] = [:]
        for r in scenario.resources {
            let path = r.path.prefix { $0 != "?" }
            let key = (hosts[r.origin] ?? r.origin) + "/" + Self.filePath(forURLPath: String(path))
            methodsAt[key, default: []].insert(r.httpMethod.uppercased())
        }
        for (index, r) in scenario.resources.enumerated() {
            let host = hosts[r.origin] ?? r.origin
            var path = r.path
            if let q = path.firstIndex(of: "?") {
                notes.append(
                    "\(r.id): \(r.path) has a query; a static server ignores it and serves \(path[..<q]) (resources "
                        + "that differ only in their query are one file)"
                )
                path = String(path[..<q])
            }
            let method = r.httpMethod.uppercased()
            var file = Self.filePath(forURLPath: path)
            if method != "GET", methodsAt[host + "/" + file, default: []].count > 1 {
                file = Self.storedMethodsDirectory + "/" + method + "/" + file
            }
            if let other = seen[host + "/" + file] {
                notes.append(
                    "\(r.id)\(r.method == nil ? "" : " (\(method))"): \(host)/\(file) is already \(other)'s file; "
                        + "\(r.id) is not exported (\(r.bytes) B)")
                continue
            }
            seen[host + "/" + file] = r.id
            var f = File(host: host, relativePath: file, bytes: r.bytes, resource: r.id)
            f.method = method
            f.urlPath = ReplayCatalog.percentDecoded(path)
            if let note = try Self.readBody(of: r, at: index, in: scenario, file: scenarioFile, into: &f) {
                notes.append(note)
            }
            files.append(f)
        }
        let methods = files.filter { $0.method != "GET" }
        if !methods.isEmpty {
            notes.append(
                "\(methods.count) request(s) with another method than GET (\(methods[0].method) \(methods[0].urlPath)"
                    + (methods.count > 1 ? ", …" : "") + ") are answered with their files by nginx.conf and the "
                    + "Caddyfile only: their request bodies are not checked, and a server with one root (gtlsserver) "
                    + "answers them 405")
        }
        let gzipped = files.filter { if case .gzip = $0.content { true } else { false } }.count
        if gzipped > 0 {
            notes.append(
                "\(gzipped) body(ies) recorded gzip-encoded are PATH.gz (sent with content-encoding gzip by "
                    + "nginx.conf's gzip_static always and the Caddyfile's rewrites) and PATH decoded: a server "
                    + "without such a rule (gtlsserver on merged/) sends the decoded bytes without content-encoding")
        }
        if files.contains(where: { $0.content != .generated }) {
            notes.append(
                "recorded bodies are sent with their content-type and encoding only: no access-control-allow-origin "
                    + "or timing-allow-origin (netbench serve sends both to browsers), nor other recorded headers")
        }
        let thinking = scenario.resources.filter { ($0.thinkTimeMs ?? 0) > 0 }
        if !thinking.isEmpty {
            let total = thinking.reduce(0.0) { $0 + ($1.thinkTimeMs ?? 0) }
            notes.append(
                "server think times are not reproduced: \(thinking.count) resource(s) wait \(Units.format(total, 1)) "
                    + "ms in all before answering on netbench serve, none on a static server"
            )
        }
        if scenario.resources.contains(where: { $0.revealAfterBytes != nil }) {
            notes.append(
                "reveal offsets are the client's: netbench's loader asks for a child once that many bytes of its "
                    + "parent arrived, whichever server it talks to"
            )
        }
        if let bulk = scenario.bulk {
            let host = scenario.origins.first?.host ?? "bulk"
            if bulk.direction == .download {
                files.append(
                    File(
                        host: host, relativePath: Self.filePath(forURLPath: Scenario.bulkPath), bytes: bulk.bytes,
                        resource: "bulk"))
            } else {
                notes.append(
                    "bulk upload: a static configuration has no endpoint that accepts a \(bulk.bytes)-byte POST at "
                        + "\(Scenario.bulkPath)"
                )
            }
        }
        self.files = files
        self.notes = notes
    }

    /// Where the file of a request with another method than GET goes when its path is also requested with
    /// another method (a GET and a POST of `/api/x`): `<this>/POST/api/x` under the host's directory.
    public static let storedMethodsDirectory = ".netbench-methods"

    /// The exported resources requested with another method than GET, in the scenario's order.
    public var methodRequests: [MethodRequest] {
        files.filter { $0.method != "GET" }.map {
            var m = MethodRequest(method: $0.method, host: $0.host, urlPath: $0.urlPath, resource: $0.resource)
            if $0.relativePath.hasPrefix(Self.storedMethodsDirectory + "/") { m.storedPath = "/" + $0.relativePath }
            return m
        }
    }

    /// nginx `location`s (indented for a `server { }` block; empty without such requests or recorded bodies)
    /// that answer `host`'s requests with other methods than GET with their file: nginx's static module
    /// answers them 405, and `error_page 405 =200 $uri` redirects them internally, as a GET, to the file, 200.
    /// A recorded body's location gets its content-type and gzip lines (`nginxBodyDirectives`) too.
    ///
    /// A path also requested with another method (its own file at the path) is rewritten by method to the
    /// file under `storedMethodsDirectory`, which answers every method with its file.
    public func nginxLocations(host: String) -> String {
        let requests = methodRequests.filter { $0.host == host }
        var body: [String: [String]] = [:]
        for f in files where f.host == host { body[servedPath(f)] = nginxBodyDirectives(f) }
        var s = "", done = Set<String>(), taken = Set<String>()
        for m in requests where !done.contains(m.urlPath) {
            done.insert(m.urlPath)
            let same = requests.filter { $0.urlPath == m.urlPath }
            let extra = body[m.urlPath] ?? []
            if !extra.isEmpty { taken.insert(m.urlPath) }
            for r in same { s += "        # \(r.method) \(r.urlPath) (\(r.resource)): the stored body, not 405\n" }
            guard same.contains(where: { $0.storedPath != nil }) else {
                let d = (["error_page 405 =200 $uri;"] + extra).joined(separator: " ")
                s += "        location = \(Self.nginxToken(m.urlPath)) { \(d) }\n"
                continue
            }
            s += "        location = \(Self.nginxToken(m.urlPath)) {\n"
            for r in same {
                if let stored = r.storedPath {
                    let rewrite = "rewrite ^ \(Self.nginxToken(stored)) last;"
                    s += "            if ($request_method = \(r.method)) { \(rewrite) }\n"
                } else {
                    s += "            error_page 405 =200 $uri;\n"
                }
            }
            for d in extra { s += "            \(d)\n" }
            s += "        }\n"
        }
        if requests.contains(where: { $0.storedPath != nil }) {
            s += "        location ^~ /\(Self.storedMethodsDirectory)/ { error_page 405 =200 $uri; }\n"
        }
        return s + nginxBodyLocations(host: host, taken: taken)
    }

    /// Caddyfile lines (indented for a site block; empty without such requests) that make `host`'s
    /// requests with other methods than GET GETs of their file, one named matcher per resource (`method`
    /// runs before `file_server`). Debian's caddy 2.6.2 file_server answers any method with the file anyway;
    /// the rewrite says which requests are meant to be answered, whatever a file_server does with others.
    public func caddyMethodRewrites(host: String) -> String {
        var s = ""
        for (i, m) in methodRequests.enumerated() where m.host == host {
            s += "\t@netbench_method\(i) {\n\t\tmethod \(m.method)\n\t\tpath \(Self.caddyToken(m.urlPath))\n\t}\n"
            guard let stored = m.storedPath else {
                s += "\tmethod @netbench_method\(i) GET\n"
                continue
            }
            // In a route, in this order: the rewrite before the method (`*`: a "/" path would be a matcher).
            s += "\troute @netbench_method\(i) {\n\t\trewrite * \(Self.caddyToken(Self.percentEncoded(stored)))\n"
            s += "\t\tmethod GET\n"
            if let f = files.first(where: { $0.host == host && "/" + $0.relativePath == stored }) {
                s += caddyBodyLines(f)
            }
            s += "\t}\n"
        }
        return s
    }

    /// A URL path with what a URI cannot hold as is (spaces, `%`, `?`, `#`, non-ASCII) percent-encoded.
    static func percentEncoded(_ path: String) -> String {
        var out = ""
        for b in path.utf8 {
            let c = Character(UnicodeScalar(b))
            if b < 0x80, c.isLetter || c.isNumber || "/-._~!$&'()*+,;=:@".contains(c) {
                out.append(c)
            } else {
                out += "%" + String(b, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// A string as one nginx token: quoted, quotes and backslashes escaped.
    static func nginxToken(_ s: String) -> String { caddyToken(s) }

    /// Relative paths that two or more origins export: a server with one document root for every
    /// host (ngtcp2's gtlsserver, for h3) cannot serve both; empty when the merged tree is faithful.
    public var pathsOnSeveralOrigins: [String] {
        var hosts: [String: Set<String>] = [:]
        for f in files { hosts[f.relativePath, default: []].insert(f.host) }
        return hosts.filter { $0.value.count > 1 }.keys.sorted()
    }

    /// The file for a URL path: percent-decoded as a server maps it, "index.html" for a directory.
    static func filePath(forURLPath path: String) -> String {
        var p = ReplayCatalog.percentDecoded(path)
        while p.hasPrefix("/") { p.removeFirst() }
        if p.isEmpty || p.hasSuffix("/") { p += "index.html" }
        return p
    }

    /// An nginx `http { }` configuration serving every origin over TLS on `port`, h1 and h2 by
    /// ALPN, each origin by its `server_name` from `root/<host>`. `certificate`/`key` name PEM
    /// files valid for every host (for instance from `netbench serve --ca-out` or your own CA).
    public func nginxConfiguration(root: String, port: UInt16, certificate: String, key: String, pidFile: String? = nil)
        -> String
    {
        var s = """
            # nginx configuration for the files netbench exported (`netbench scenario export`).
            # Run: nginx -c <this file> -p <a writable prefix>; point netbench at it with
            #   netbench run SCENARIO --server 127.0.0.1:\(port) --ca CA.pem
            worker_processes 1;
            error_log stderr warn;
            \(pidFile.map { "pid \($0);" } ?? "")
            events { worker_connections 1024; }
            http {
                access_log off;
                default_type application/octet-stream;
                sendfile on;
                keepalive_requests 100000;
                client_body_temp_path /tmp/netbench-nginx-body;
                proxy_temp_path /tmp/netbench-nginx-proxy;
                fastcgi_temp_path /tmp/netbench-nginx-fastcgi;
                uwsgi_temp_path /tmp/netbench-nginx-uwsgi;
                scgi_temp_path /tmp/netbench-nginx-scgi;

            """
        for host in Set(files.map(\.host)).sorted() {
            s += """
                    server {
                        listen \(port) ssl http2;
                        server_name \(host);
                        ssl_certificate \(certificate);
                        ssl_certificate_key \(key);
                        ssl_protocols TLSv1.2 TLSv1.3;
                        root \(root)/\(host);
                        add_header cache-control no-store;
                \(nginxLocations(host: host))    }

                """
        }
        s += "}\n"
        return s
    }

    /// A Caddyfile serving every origin over TLS on `port` with h1, h2 and h3 (quic-go), each origin
    /// from `root/<host>`, with the certificate and key given. Caddy keeps its storage (its own local
    /// CA, which it creates anyway) under `storage` instead of the user's home, obtains no certificate
    /// (`auto_https off`), installs no CA in the system's trust store, opens no admin endpoint, and
    /// stops within a second of SIGTERM (`grace_period`) whatever connections a client left open.
    /// (Caddy 2.6 still autosaves the configuration to `$XDG_CONFIG_HOME/caddy`: it has no option
    /// that turns this off.) Run: `caddy run --config <this file> --adapter caddyfile`.
    public func caddyfile(root: String, port: UInt16, certificate: String, key: String, storage: String) -> String {
        var s = """
            # Caddyfile for the files netbench exported (`netbench scenario export`): h1, h2 and h3 on port \(port).
            # Run: caddy run --config <this file> --adapter caddyfile; point netbench at it with
            #   netbench run SCENARIO --server 127.0.0.1:\(port) --ca CA.pem -t h1,h2,h3
            {
            \tadmin off
            \tauto_https off
            \tskip_install_trust
            \tstorage file_system \(Self.caddyToken(storage))
            \tgrace_period 1s
            \tservers {
            \t\tprotocols h1 h2 h3
            \t}
            }

            """
        // One site per origin, each after a blank line and none after the last (as `caddy fmt` writes).
        for host in Set(files.map(\.host)).sorted() {
            s +=
                "\n" + """
                    https://\(host):\(port) {
                    \ttls \(Self.caddyToken(certificate)) \(Self.caddyToken(key))
                    \troot * \(Self.caddyToken(root + "/" + host))
                    \(caddyMethodRewrites(host: host))\(caddyBodyRoutes(host: host))\tfile_server
                    \theader cache-control no-store
                    }

                    """
        }
        return s
    }

    /// A path as one Caddyfile token: quoted, so that a directory with spaces stays one argument.
    static func caddyToken(_ path: String) -> String {
        var quoted = "\""
        for c in path {
            if c == "\"" || c == "\\" { quoted.append("\\") }
            quoted.append(c)
        }
        return quoted + "\""
    }
}
