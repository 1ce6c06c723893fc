import XCTest
import BenchModel
@testable import Replay
@testable import BenchModel
import BenchCore
import Foundation
import TestSupport

/// `netbench scenario export`: files at their paths with exact sizes, per origin, and the notes on
/// what a static server cannot reproduce.
final class ScenarioExportTests: XCTestCase {
    func testShippedPageExportsEveryResourceOncePerOrigin() throws {
        let scenario = try Scenario.load(from: packageRoot + "/Scenarios/pages/small-page.json")
        let export = try ScenarioExport(scenario: scenario)
        XCTAssertEqual(export.files.count, scenario.resources.count)
        XCTAssertEqual(export.files.reduce(0) { $0 + $1.bytes }, scenario.totalBytes)
        let root = try XCTUnwrap(export.files.first { $0.resource == scenario.root?.id })
        XCTAssertEqual(root.relativePath, "index.html", "the document at / is the directory's index")
        XCTAssertEqual(root.host, "www.blog.test")
        XCTAssertTrue(export.notes.contains { $0.contains("think times are not reproduced") })
        let conf = export.nginxConfiguration(root: "/srv/nb", port: 8443, certificate: "/c.pem", key: "/k.pem")
        XCTAssertTrue(conf.contains("server_name www.tagmanager.test;"))
        XCTAssertTrue(conf.contains("root /srv/nb/www.blog.test;"))
        XCTAssertTrue(conf.contains("listen 8443 ssl http2;"))
    }

    /// The Caddyfile, whole: h1, h2 and h3 on the port, one site per origin host with the export's
    /// certificate, paths quoted, nothing written to the user's home or trust store but the autosave.
    func testCaddyfileServesEveryOriginOverH1H2AndH3() throws {
        let s = Scenario(
            name: "two", origins: [.init(id: "b", host: "b.test"), .init(id: "a", host: "a.test")],
            resources: [
                .init(id: "doc", origin: "b", path: "/", bytes: 100, type: .document),
                .init(id: "img", origin: "a", path: "/i.png", bytes: 10, type: .image, parent: "doc"),
            ])
        let text = try ScenarioExport(scenario: s).caddyfile(
            root: "/srv/my nb/www", port: 8443, certificate: "/t/cert.pem", key: "/t/key.pem", storage: "/srv/c\"d")
        let expected = """
            # Caddyfile for the files netbench exported (`netbench scenario export`): h1, h2 and h3 on port 8443.
            # Run: caddy run --config <this file> --adapter caddyfile; point netbench at it with
            #   netbench run SCENARIO --server 127.0.0.1:8443 --ca CA.pem -t h1,h2,h3
            {
            \tadmin off
            \tauto_https off
            \tskip_install_trust
            \tstorage file_system "/srv/c\\"d"
            \tgrace_period 1s
            \tservers {
            \t\tprotocols h1 h2 h3
            \t}
            }

            https://a.test:8443 {
            \ttls "/t/cert.pem" "/t/key.pem"
            \troot * "/srv/my nb/www/a.test"
            \tfile_server
            \theader cache-control no-store
            }

            https://b.test:8443 {
            \ttls "/t/cert.pem" "/t/key.pem"
            \troot * "/srv/my nb/www/b.test"
            \tfile_server
            \theader cache-control no-store
            }

            """
        XCTAssertEqual(text, expected)
    }

    /// A server with one document root (gtlsserver) can serve the merged tree only when no two origins share a path.
    func testPathsOnSeveralOrigins() throws {
        let shipped = try Scenario.load(from: packageRoot + "/Scenarios/pages/mobile-median.json")
        XCTAssertEqual(try ScenarioExport(scenario: shipped).pathsOnSeveralOrigins, [])
        let s = Scenario(
            name: "two", origins: [.init(id: "a", host: "a.test"), .init(id: "b", host: "b.test")],
            resources: [
                .init(id: "doc", origin: "a", path: "/", bytes: 100, type: .document),
                .init(id: "other", origin: "b", path: "/", bytes: 10, type: .document, parent: "doc"),
                .init(id: "img", origin: "b", path: "/i.png", bytes: 10, type: .image, parent: "doc"),
            ])
        XCTAssertEqual(try ScenarioExport(scenario: s).pathsOnSeveralOrigins, ["index.html"])
    }

    func testQueriesAndPercentEncodingMapToFilesAndSaySo() throws {
        let s = Scenario(
            name: "q", origins: [.init(id: "o", host: "o.test")],
            resources: [
                .init(id: "doc", origin: "o", path: "/", bytes: 100, type: .document),
                .init(id: "a", origin: "o", path: "/api/c?id=42", bytes: 10, type: .other, parent: "doc"),
                .init(id: "b", origin: "o", path: "/api/c?id=43", bytes: 20, type: .other, parent: "doc"),
                .init(id: "u", origin: "o", path: "/caf%C3%A9/menu.json", bytes: 30, type: .other, parent: "doc"),
            ])
        let export = try ScenarioExport(scenario: s)
        XCTAssertEqual(export.files.map(\.relativePath), ["index.html", "api/c", "café/menu.json"])
        XCTAssertTrue(export.notes.contains { $0.hasPrefix("b: ") && $0.contains("not exported") })
        XCTAssertTrue(export.notes.contains { $0.hasPrefix("a: ") && $0.contains("query") })
    }

    func testBulkDownloadIsOneFileAndUploadIsExplained() throws {
        var s = Scenario(name: "bulk", origins: [.init(id: "b", host: "bulk.test")], resources: [])
        s.bulk = .init(direction: .download, bytes: 1_000_000)
        XCTAssertEqual(try ScenarioExport(scenario: s).files.map(\.bytes), [1_000_000])
        s.bulk = .init(direction: .upload, bytes: 1_000_000)
        XCTAssertTrue(try ScenarioExport(scenario: s).files.isEmpty)
        XCTAssertTrue(try ScenarioExport(scenario: s).notes.contains { $0.contains("upload") })
    }

    /// Resources with other methods than GET: listed by method, host and path, answered by nginx.conf
    /// (`error_page 405 =200 $uri` in an exact location) and the Caddyfile (`method` to GET before
    /// file_server); of a GET and a POST of one path, the POST's file is under .netbench-methods/POST/,
    /// where nginx and caddy rewrite a POST of the path to.
    func testOtherMethodsGetNginxLocationsAndCaddyRewrites() throws {
        let s = Scenario(
            name: "m", origins: [.init(id: "o", host: "o.test"), .init(id: "p", host: "p.test")],
            resources: [
                .init(id: "doc", origin: "o", path: "/", bytes: 100, type: .document),
                .init(
                    id: "save", origin: "o", path: "/api/save?x=1", bytes: 10, type: .xhr, parent: "doc",
                    method: "POST"),
                .init(id: "get", origin: "p", path: "/api/x", bytes: 20, type: .xhr, parent: "doc"),
                .init(id: "post", origin: "p", path: "/api/x", bytes: 30, type: .xhr, parent: "doc", method: "POST"),
                .init(
                    id: "del", origin: "p", path: "/a%20%22b", bytes: 5, type: .other, parent: "doc", method: "DELETE"),
            ])
        let export = try ScenarioExport(scenario: s)
        XCTAssertEqual(
            export.methodRequests,
            [
                .init(method: "POST", host: "o.test", urlPath: "/api/save", resource: "save"),
                .init(
                    method: "POST", host: "p.test", urlPath: "/api/x", resource: "post",
                    storedPath: "/.netbench-methods/POST/api/x"),
                .init(method: "DELETE", host: "p.test", urlPath: "/a \"b", resource: "del"),
            ])
        XCTAssertEqual(
            export.files.filter { $0.host == "p.test" }.map(\.relativePath),
            ["api/x", ".netbench-methods/POST/api/x", "a \"b"])
        XCTAssertFalse(export.notes.contains { $0.contains("not exported") }, "\(export.notes)")
        XCTAssertTrue(export.notes.contains { $0.hasPrefix("3 request(s) with another method than GET") })
        XCTAssertEqual(
            export.nginxLocations(host: "p.test"),
            """
                    # POST /api/x (post): the stored body, not 405
                    location = "/api/x" {
                        if ($request_method = POST) { rewrite ^ "/.netbench-methods/POST/api/x" last; }
                    }
                    # DELETE /a "b (del): the stored body, not 405
                    location = "/a \\"b" { error_page 405 =200 $uri; }
                    location ^~ /.netbench-methods/ { error_page 405 =200 $uri; }

            """)
        let conf = export.nginxConfiguration(root: "/srv", port: 8443, certificate: "/c", key: "/k")
        XCTAssertTrue(conf.contains("location = \"/api/save\" { error_page 405 =200 $uri; }\n    }\n"), conf)
        XCTAssertEqual(export.nginxLocations(host: "none.test"), "")
        let caddy = export.caddyfile(root: "/srv", port: 8443, certificate: "/c", key: "/k", storage: "/s")
        XCTAssertTrue(
            caddy.contains(
                "\troot * \"/srv/o.test\"\n\t@netbench_method0 {\n\t\tmethod POST\n\t\tpath \"/api/save\"\n\t}\n"
                    + "\tmethod @netbench_method0 GET\n\tfile_server\n"), caddy)
        XCTAssertTrue(
            caddy.contains(
                "\t@netbench_method1 {\n\t\tmethod POST\n\t\tpath \"/api/x\"\n\t}\n\troute @netbench_method1 {\n"
                    + "\t\trewrite * \"/.netbench-methods/POST/api/x\"\n\t\tmethod GET\n\t}\n"), caddy)
        XCTAssertTrue(caddy.contains("\t@netbench_method2 {\n\t\tmethod DELETE\n\t\tpath \"/a \\\"b\"\n"), caddy)
        XCTAssertEqual(ScenarioExport.percentEncoded("/.n/POST/a b%/café?"), "/.n/POST/a%20b%25/caf%C3%A9%3F")
    }

    /// A scenario directory with recorded bodies, as import-har writes it: an HTML page stored as is, a CSS
    /// file stored gzip-encoded, and an image without a body (filler).
    static let page = Array("<html><link rel=stylesheet href=/s/a.css><body>real</body></html>".utf8)
    static let css = Array(String(repeating: "body { color: #123456 }\n", count: 40).utf8)

    func writeRecorded(_ dir: String, gzipStored: [UInt8]? = nil) throws -> String {
        let gz = try gzipStored ?? XCTUnwrap(HARCompression.gzip(Self.css))
        try FileManager.default.createDirectory(atPath: dir + "/site.bodies", withIntermediateDirectories: true)
        for b in [Self.page, gz] {
            try Data(b).write(to: URL(fileURLWithPath: dir + "/site.bodies/" + SHA256.hex(b)))
        }
        let json = """
            {"schemaVersion": 1, "name": "rec", "bodies": "site.bodies", "origins": [{"id": "o", "host": "o.test"}],
             "resources": [
              {"id": "doc", "origin": "o", "path": "/", "bytes": \(Self.page.count), "type": "document",
               "body": {"sha256": "\(SHA256.hex(Self.page))", "contentType": "text/html; charset=utf-8"}},
              {"id": "css", "origin": "o", "path": "/s/a.css", "bytes": \(gz.count), "type": "stylesheet",
               "parent": "doc",
               "body": {"sha256": "\(SHA256.hex(gz))", "contentType": "text/css", "contentEncoding": "gzip"}},
              {"id": "img", "origin": "o", "path": "/i.png", "bytes": 500, "type": "image", "parent": "doc"}
             ]}
            """
        try json.write(toFile: dir + "/site.json", atomically: true, encoding: .utf8)
        return dir + "/site.json"
    }

    /// Recorded bytes exactly, a gzip body as its stored bytes and their decoding, filler for the rest; the
    /// nginx and caddy lines for those exact paths.
    func testRecordedBodiesAreExportedAsRecordedWithGzipRules() throws {
        let dir = NSTemporaryDirectory() + "netbench-export-bodies-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try writeRecorded(dir)
        let export = try ScenarioExport(scenario: Scenario.load(from: path), file: path)
        let gz = try XCTUnwrap(HARCompression.gzip(Self.css))
        XCTAssertEqual(
            export.files.map(\.content), [.recorded(Self.page), .gzip(stored: gz, decoded: Self.css), .generated])
        XCTAssertEqual(export.bodyCounts, .init(recorded: 1, gzip: 1, generated: 1))
        XCTAssertEqual(export.files.map(\.contentType), ["text/html; charset=utf-8", "text/css", nil])
        XCTAssertEqual(
            export.nginxLocations(host: "o.test"),
            """
                    location = "/index.html" { types { } default_type "text/html; charset=utf-8"; }
                    location = "/s/a.css" { types { } default_type "text/css"; gzip_static always; }

            """)
        XCTAssertEqual(
            export.caddyBodyRoutes(host: "o.test"),
            """
            \t@netbench_body0 path "/"
            \troute @netbench_body0 {
            \t\theader Content-Type "text/html; charset=utf-8"
            \t}
            \t@netbench_body1 path "/s/a.css"
            \troute @netbench_body1 {
            \t\theader Content-Type "text/css"
            \t\theader Content-Encoding gzip
            \t\trewrite * "/s/a.css.gz"
            \t}

            """)
        let caddy = export.caddyfile(root: "/r", port: 8443, certificate: "/c", key: "/k", storage: "/s")
        XCTAssertTrue(caddy.contains("\trewrite * \"/s/a.css.gz\"\n\t}\n\tfile_server\n"), caddy)
        XCTAssertTrue(export.notes.contains { $0.hasPrefix("1 body(ies) recorded gzip-encoded") }, "\(export.notes)")
    }

    /// A recorded POST with a gzip body at a path also requested with GET: the body's lines go in the method's
    /// stored location (nginx: exact, with its error_page; caddy: in the method's route, after its rewrite).
    func testRecordedGzipBodyOfAStoredMethod() throws {
        let gz = try XCTUnwrap(HARCompression.gzip(Self.css))
        var s = Scenario(
            name: "m", origins: [.init(id: "o", host: "o.test")],
            resources: [
                .init(id: "get", origin: "o", path: "/api/x", bytes: 20, type: .xhr),
                .init(id: "post", origin: "o", path: "/api/x", bytes: Int64(gz.count), type: .xhr, method: "POST"),
            ])
        s.resources[1].body = .init(sha256: SHA256.hex(gz), contentType: "application/json", contentEncoding: "gzip")
        s.bodies = "b"
        s.recordedBodies = RecordedBodies(directory: "/b", bytes: [SHA256.hex(gz): gz])
        let export = try ScenarioExport(scenario: s)
        XCTAssertTrue(
            export.nginxLocations(host: "o.test").contains(
                "location = \"/.netbench-methods/POST/api/x\" { error_page 405 =200 $uri; types { } default_type "
                    + "\"application/json\"; gzip_static always; }\n"), export.nginxLocations(host: "o.test"))
        // In the method's route, after its rewrite: caddy runs a route with a lone longer path matcher first.
        XCTAssertEqual(export.caddyBodyRoutes(host: "o.test"), "")
        XCTAssertEqual(
            export.caddyMethodRewrites(host: "o.test"),
            "\t@netbench_method0 {\n\t\tmethod POST\n\t\tpath \"/api/x\"\n\t}\n\troute @netbench_method0 {\n"
                + "\t\trewrite * \"/.netbench-methods/POST/api/x\"\n\t\tmethod GET\n"
                + "\t\theader Content-Type \"application/json\"\n\t\theader Content-Encoding gzip\n"
                + "\t\trewrite * \"/.netbench-methods/POST/api/x.gz\"\n\t}\n")
    }

    /// A body that was not read (its file missing) and a "gzip" body that is not gzip: errors naming the
    /// scenario file, the resource and the body file.
    func testMissingOrUndecodableBodyIsAnErrorNamingTheFile() throws {
        var s = Scenario(
            name: "m", origins: [.init(id: "o", host: "o.test")],
            resources: [.init(id: "doc", origin: "o", path: "/", bytes: 3, type: .document)])
        s.resources[0].body = .init(sha256: String(repeating: "a", count: 64), contentEncoding: "gzip")
        s.bodies = "/nowhere"
        XCTAssertThrowsError(try ScenarioExport(scenario: s, file: "x.json")) {
            XCTAssertEqual(
                "\($0)",
                "x.json: resources[0] (doc): recorded body /nowhere/\(String(repeating: "a", count: 64)) was "
                    + "not read: a missing body file")
        }
        s.recordedBodies = RecordedBodies(directory: "/b", bytes: [String(repeating: "a", count: 64): [1, 2, 3]])
        XCTAssertThrowsError(try ScenarioExport(scenario: s, file: "x.json")) {
            XCTAssertTrue("\($0)".hasPrefix("x.json: resources[0] (doc).body.contentEncoding: gzip, but body file /b/"))
        }
    }
}
