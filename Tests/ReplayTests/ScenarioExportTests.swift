import XCTest
import BenchModel
@testable import Replay
import TestSupport

/// `netbench scenario export`: files at their paths with exact sizes, per origin, and the notes on
/// what a static server cannot reproduce.
final class ScenarioExportTests: XCTestCase {
    func testShippedPageExportsEveryResourceOncePerOrigin() throws {
        let scenario = try Scenario.load(from: packageRoot + "/Scenarios/pages/small-page.json")
        let export = ScenarioExport(scenario: scenario)
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
    func testCaddyfileServesEveryOriginOverH1H2AndH3() {
        let s = Scenario(
            name: "two", origins: [.init(id: "b", host: "b.test"), .init(id: "a", host: "a.test")],
            resources: [
                .init(id: "doc", origin: "b", path: "/", bytes: 100, type: .document),
                .init(id: "img", origin: "a", path: "/i.png", bytes: 10, type: .image, parent: "doc"),
            ])
        let text = ScenarioExport(scenario: s).caddyfile(
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
        XCTAssertEqual(ScenarioExport(scenario: shipped).pathsOnSeveralOrigins, [])
        let s = Scenario(
            name: "two", origins: [.init(id: "a", host: "a.test"), .init(id: "b", host: "b.test")],
            resources: [
                .init(id: "doc", origin: "a", path: "/", bytes: 100, type: .document),
                .init(id: "other", origin: "b", path: "/", bytes: 10, type: .document, parent: "doc"),
                .init(id: "img", origin: "b", path: "/i.png", bytes: 10, type: .image, parent: "doc"),
            ])
        XCTAssertEqual(ScenarioExport(scenario: s).pathsOnSeveralOrigins, ["index.html"])
    }

    func testQueriesAndPercentEncodingMapToFilesAndSaySo() {
        let s = Scenario(
            name: "q", origins: [.init(id: "o", host: "o.test")],
            resources: [
                .init(id: "doc", origin: "o", path: "/", bytes: 100, type: .document),
                .init(id: "a", origin: "o", path: "/api/c?id=42", bytes: 10, type: .other, parent: "doc"),
                .init(id: "b", origin: "o", path: "/api/c?id=43", bytes: 20, type: .other, parent: "doc"),
                .init(id: "u", origin: "o", path: "/caf%C3%A9/menu.json", bytes: 30, type: .other, parent: "doc"),
            ])
        let export = ScenarioExport(scenario: s)
        XCTAssertEqual(export.files.map(\.relativePath), ["index.html", "api/c", "café/menu.json"])
        XCTAssertTrue(export.notes.contains { $0.hasPrefix("b: ") && $0.contains("not exported") })
        XCTAssertTrue(export.notes.contains { $0.hasPrefix("a: ") && $0.contains("query") })
    }

    func testBulkDownloadIsOneFileAndUploadIsExplained() {
        var s = Scenario(name: "bulk", origins: [.init(id: "b", host: "bulk.test")], resources: [])
        s.bulk = .init(direction: .download, bytes: 1_000_000)
        XCTAssertEqual(ScenarioExport(scenario: s).files.map(\.bytes), [1_000_000])
        s.bulk = .init(direction: .upload, bytes: 1_000_000)
        XCTAssertTrue(ScenarioExport(scenario: s).files.isEmpty)
        XCTAssertTrue(ScenarioExport(scenario: s).notes.contains { $0.contains("upload") })
    }

    /// Resources with other methods than GET: listed by method, host and path, answered by nginx.conf
    /// (`error_page 405 =200 $uri` in an exact location) and the Caddyfile (`method` to GET before
    /// file_server); of a GET and a POST of one path, the POST's file is under .netbench-methods/POST/,
    /// where nginx and caddy rewrite a POST of the path to.
    func testOtherMethodsGetNginxLocationsAndCaddyRewrites() {
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
        let export = ScenarioExport(scenario: s)
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
            export.nginxMethodLocations(host: "p.test"),
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
        XCTAssertEqual(export.nginxMethodLocations(host: "none.test"), "")
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
}
