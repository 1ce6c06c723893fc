import BenchCore
import BenchModel
import Foundation
import CommandLineKit
import HTTPCodec
import Replay
import TLS

/// `netbench scenario export`: the scenario as files for a server of the user's own.
struct ScenarioExportCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "export",
            abstract:
                "write a scenario's bodies as files per origin, with nginx and caddy configurations and a certificate",
            discussion: """
                Writes DIR/www/<host>/<path> for every resource (exact sizes; "/" becomes index.html): a resource \
                with a recorded body (netbench record, import-har) as its recorded bytes, byte for byte, served with \
                its recorded content-type (nginx: an exact location with `types { } default_type TYPE;`, caddy: a \
                route with `header Content-Type`); a body stored gzip-encoded as PATH.gz (the stored bytes) plus PATH \
                decoded, with `gzip_static always;` in its nginx location and a caddy route that sets \
                `Content-Encoding: gzip` and rewrites to PATH.gz, so both send the stored gzip bytes with \
                content-encoding gzip to every client, as netbench serve does; any other resource as the filler \
                bytes netbench serve sends. The report and EXPORT.txt count the bodies written as recorded, gzip \
                and generated. Not exported: access-control-allow-origin and timing-allow-origin (netbench serve \
                sends them to browsers) and other recorded headers; gtlsserver sends no content-encoding (it \
                serves the decoded PATH). Also DIR/tls/ca.pem with a certificate and key for every origin host \
                (DIR/tls/cert.pem, key.pem), DIR/nginx.conf serving them over h1 and h2 on --port, DIR/Caddyfile \
                serving them over h1, h2 and h3 on --port (caddy keeps its state in DIR/caddy, installs no CA), \
                DIR/EXPORT.txt saying what a static server cannot reproduce (think times, queries), which file a \
                query or percent-encoded path became and how to start each server, and DIR/merged/ with every \
                origin's files under one root (hard links) for servers with one document root, unless two origins \
                share a path. A resource recorded with another method than GET (a POST, PUT, PATCH or DELETE \
                from import-har or record) is exported as the file at its path too; a static server answers such \
                a request 405, so nginx.conf gets for each a `location = PATH { error_page 405 =200 $uri; }` \
                (nginx's internal redirect makes it a GET of the file, answered 200 with the stored bytes) and \
                the Caddyfile a `method` rewrite to GET before file_server (Debian's caddy 2.6.2 answers any \
                method with the file anyway). The report and EXPORT.txt list them \
                by method, host and path, with those lines to paste into a configuration of your own. The \
                request body is not checked. A path requested with several methods (a GET and a POST of /api/x, \
                each with its own body) keeps the GET's file at the path and the others' at \
                .netbench-methods/METHOD/PATH, where nginx.conf (`if ($request_method = POST) { rewrite ... }`) \
                and the Caddyfile (a `route` with `rewrite` and `method GET`) send each method. Then:
                  nginx -c DIR/nginx.conf -p DIR
                  caddy run --config DIR/Caddyfile --adapter caddyfile                      (h1, h2, h3; Debian caddy)
                  gtlsserver -q -d DIR/merged ADDR PORT DIR/tls/key.pem DIR/tls/cert.pem    (h3, Debian ngtcp2-server)
                  netbench run SCENARIO --server 127.0.0.1:PORT --ca DIR/tls/ca.pem
                  netbench run SCENARIO --server 127.0.0.1:PORT --ca DIR/tls/ca-and-cert.pem --client chromium
                DIR/tls/ca-and-cert.pem is the CA and the server's certificate in one file: Chromium trusts --ca by \
                pinning its keys, and the CA's key alone does not cover the server's certificate.
                """,
            examples: ["netbench scenario export Scenarios/pages/mobile-median.json -o /srv/netbench --port 8443"],
            exitCodes: [
                ExitCodeDoc(.success, "exported"), Netbench.usageExit,
                ExitCodeDoc(
                    .dataError,
                    "bad scenario, a missing recorded body file (named with the scenario and resource), "
                        + "or DIR is not writable"),
            ])
    }

    @Argument("SCENARIO", help: "the scenario file", completion: .file(extensions: ["json"])) var scenarios: [String]
    @Option(
        "--output", "-o", value: "DIR", help: "the directory to write (created; existing files are replaced)",
        parse: .directory) var output: String?
    @Option(
        "--port", value: "PORT", default: 8443, help: "the port nginx.conf and the Caddyfile listen on",
        parse: .int(1...65535))
    var port: Int

    func validate() throws {
        guard scenarios.count == 1 else {
            throw BenchError.usage("give exactly one scenario file (got \(scenarios.count))")
        }
        guard output != nil else { throw BenchError.usage("--output DIR is required") }
    }

    func run() throws -> ExitCode {
        let path = scenarios[0], dir = URL(fileURLWithPath: output!).standardizedFileURL.path
        let scenario = try Scenario.load(from: path)
        let export = try ScenarioExport(scenario: scenario, file: path)
        let fm = FileManager.default
        func makeDirectory(_ d: String) throws {
            do { try fm.createDirectory(atPath: d, withIntermediateDirectories: true) } catch {
                throw BenchError.data("\(d): cannot create the directory: \(error.localizedDescription)")
            }
        }
        for f in export.files {
            let file = dir + "/www/" + f.host + "/" + f.relativePath
            try makeDirectory((file as NSString).deletingLastPathComponent)
            switch f.content {
            case .generated: try writeBody(f.bytes, to: file)
            case .recorded(let stored): try write(stored, to: file)
            case .gzip(let stored, let decoded):
                try write(stored, to: file + ".gz")
                try write(decoded, to: file)
            }
        }
        let shared = export.pathsOnSeveralOrigins
        if shared.isEmpty {
            // One document root for every origin (hard links, no second copy), for h3 from gtlsserver -d.
            for f in export.files {
                let file = dir + "/merged/" + f.relativePath
                try makeDirectory((file as NSString).deletingLastPathComponent)
                try? fm.removeItem(atPath: file)
                do { try fm.linkItem(atPath: dir + "/www/" + f.host + "/" + f.relativePath, toPath: file) } catch {
                    throw BenchError.data("\(file): cannot link: \(error.localizedDescription)")
                }
            }
        }
        let ca = try CertificateAuthority(commonName: "netbench export CA", validDays: 365)
        let identity = try ca.issue(
            hostNames: Array(Set(export.files.map(\.host))).sorted() + ["localhost", "127.0.0.1"])
        try makeDirectory(dir + "/tls")
        try write(ca.certificatePEM, to: dir + "/tls/ca.pem")
        try write(identity.certificateChainPEM, to: dir + "/tls/cert.pem")
        try write(identity.privateKeyPEM, to: dir + "/tls/key.pem")
        // Chromium trusts --ca by pinning its keys (--ignore-certificate-errors-spki-list), and a pin of the CA
        // alone does not cover the server's certificate: `run --client chromium` needs the certificate too.
        try write(ca.certificatePEM + identity.certificateChainPEM, to: dir + "/tls/ca-and-cert.pem")
        try makeDirectory(dir + "/logs")
        try write(
            export.nginxConfiguration(
                root: dir + "/www", port: UInt16(port), certificate: dir + "/tls/cert.pem",
                key: dir + "/tls/key.pem", pidFile: dir + "/nginx.pid"), to: dir + "/nginx.conf")
        try write(
            export.caddyfile(
                root: dir + "/www", port: UInt16(port), certificate: dir + "/tls/cert.pem", key: dir + "/tls/key.pem",
                storage: dir + "/caddy"), to: dir + "/Caddyfile")
        let notes =
            export.notes.isEmpty
            ? "nothing: a static server reproduces this scenario\n"
            : export.notes.map { "- " + $0 }.joined(separator: "\n") + "\n"
        let counts = export.bodyCounts
        let bodies =
            "bodies: \(counts.recorded) written as recorded, \(counts.gzip) recorded gzip-encoded (PATH.gz as stored, "
            + "sent with content-encoding gzip, and PATH decoded), \(counts.generated) generated (filler)"
        try write(
            bodies + "\n\n" + "What a static server cannot reproduce of \(scenario.name):\n" + notes + "\n"
                + methodInstructions(export) + startInstructions(dir: dir, merged: shared.isEmpty),
            to: dir + "/EXPORT.txt")
        let total = export.files.reduce(Int64(0)) { $0 + $1.bytes }
        print(
            "wrote \(export.files.count) file(s), \(Units.formatBytes(total)), for "
                + "\(Set(export.files.map(\.host)).count) origin(s) under \(dir)/www"
        )
        print(bodies)
        print("nginx: nginx -c \(dir)/nginx.conf -p \(dir)    (h1 + h2 on port \(port); CA: \(dir)/tls/ca.pem)")
        print("chromium: netbench run ... --client chromium --ca \(dir)/tls/ca-and-cert.pem    (CA + certificate)")
        print("caddy: caddy run --config \(dir)/Caddyfile --adapter caddyfile    (h1 + h2 + h3 on port \(port))")
        if shared.isEmpty {
            print(
                "h3:    gtlsserver -q -d \(dir)/merged ADDR PORT \(dir)/tls/key.pem \(dir)/tls/cert.pem    (ngtcp2's "
                    + "server; every origin under one root)"
            )
        } else {
            print(
                "note: \(shared.count) path(s) are on several origins (\(shared.prefix(3).joined(separator: ", "))): "
                    + "no merged/ root for one-root servers such as gtlsserver"
            )
        }
        let methods = export.methodRequests
        if !methods.isEmpty {
            let list = methods.map { "\($0.method) \($0.host)\($0.urlPath)" }
            print(
                "methods: \(methods.count) request(s) other than GET answered 200 with their file by nginx.conf and "
                    + "the Caddyfile (a static server says 405): "
                    + list.prefix(5).joined(separator: ", ") + (list.count > 5 ? ", … (EXPORT.txt)" : ""))
        }
        for n in export.notes.prefix(5) { print("note: " + n) }
        if export.notes.count > 5 { print("note: … and \(export.notes.count - 5) more in \(dir)/EXPORT.txt") }
        return .success
    }

    /// The requests with other methods than GET, and the nginx and caddy lines that answer them with their
    /// files, for a configuration of the user's own (part of EXPORT.txt; empty without such requests).
    private func methodInstructions(_ export: ScenarioExport) -> String {
        let methods = export.methodRequests
        guard !methods.isEmpty else { return "" }
        var s = "Requests with another method than GET (a static server answers them 405 unless told otherwise):\n"
        for m in methods { s += "  \(m.method) \(m.host)\(m.urlPath)    (\(m.resource))\n" }
        s += "nginx.conf answers them with their files; in a server { } of your own, per host:\n"
        for host in Set(methods.map(\.host)).sorted() {
            s += "  # \(host)\n" + export.nginxLocations(host: host)
        }
        s += "The Caddyfile does the same; in a site block of your own, before file_server:\n"
        for host in Set(methods.map(\.host)).sorted() {
            s += "  # \(host)\n" + export.caddyMethodRewrites(host: host)
        }
        return s + "\n"
    }

    /// How to start each server on the export, and to point netbench at it (the end of EXPORT.txt).
    private func startInstructions(dir: String, merged: Bool) -> String {
        var s = """
            Start a server on these files (port \(port), certificate \(dir)/tls/cert.pem):
              nginx -c \(dir)/nginx.conf -p \(dir)    (h1, h2)
              caddy run --config \(dir)/Caddyfile --adapter caddyfile    (h1, h2, h3)

            """
        if merged {
            s += "  gtlsserver -q -d \(dir)/merged ADDR \(port) \(dir)/tls/key.pem \(dir)/tls/cert.pem    (h3)\n"
        }
        return s + "Then: netbench run SCENARIO --server 127.0.0.1:\(port) --ca \(dir)/tls/ca.pem -t h1,h2,h3\n"
            + "Chromium: netbench run SCENARIO --server 127.0.0.1:\(port) --ca \(dir)/tls/ca-and-cert.pem --client "
            + "chromium (Chromium pins the keys of --ca: the file holds the server's certificate too)\n"
    }

    private func write(_ bytes: [UInt8], to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw BenchError.data("\(path): cannot write \(bytes.count) bytes")
        }
    }

    private func write(_ text: String, to path: String) throws {
        do { try text.write(toFile: path, atomically: true, encoding: .utf8) } catch {
            throw BenchError.data("\(path): cannot write: \(error.localizedDescription)")
        }
    }

    /// The body netbench serve would send: `bytes` filler bytes, written in 64 KiB chunks.
    private func writeBody(_ bytes: Int64, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let h = FileHandle(forWritingAtPath: path)
        else {
            throw BenchError.data("\(path): cannot create the file")
        }
        defer { try? h.close() }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var offset: Int64 = 0
        while offset < bytes {
            let n = Int(min(Int64(chunk.count), bytes - offset))
            chunk.withUnsafeMutableBytes {
                BodyFiller.fill(UnsafeMutableRawBufferPointer(rebasing: $0[0..<n]), offset: offset)
            }
            do { try h.write(contentsOf: chunk[0..<n]) } catch {
                throw BenchError.data("\(path): cannot write: \(error.localizedDescription)")
            }
            offset += Int64(n)
        }
    }
}
