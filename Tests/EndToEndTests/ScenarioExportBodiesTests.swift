import Foundation
import XCTest
import TestSupport

/// `netbench scenario export` of a recorded page (a HAR imported with its content by the built binary):
/// real nginx and real caddy serve the export from its own configurations, and curl gets each recorded
/// body byte for byte with its recorded content-type; a body recorded gzip-encoded comes as the stored
/// gzip bytes with `content-encoding: gzip` (without `--compressed`) and decodes to the recorded content
/// (with it); a recorded POST still answers 200 with its body; `netbench run --server` loads the page
/// from the export with every recorded size.
final class ScenarioExportBodiesTests: XCTestCase {
    static let host = "www.exported.test"
    /// The page asks for the stylesheet and the image without content: a browser loads the whole scenario
    /// without `full`'s resources (Chromium cancels a large image that does not decode, as the binary).
    static let page =
        "<html><head><link rel=stylesheet href=/a.css></head><body>exported<img src=/none.png></body></html>"
    static let css = String(repeating: "body { color: #123456; margin: 0 }\n", count: 60)
    static let json = #"{"saved": true, "id": 42}"#
    static let xpost = String(repeating: #"{"posted": true}"#, count: 50)
    /// 30,000 bytes that no generator makes: every byte value, in a seeded order.
    static let binary: [UInt8] = {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        return (0..<30_000).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }()

    /// A HAR with content: the page, a stylesheet sent gzip-encoded (import-har stores it gzip-encoded), a
    /// binary image and POSTs answered with JSON (`full`), and an image without content (filler).
    static func har(full: Bool) throws -> Data {
        func entry(_ method: String, _ path: String, _ ms: Int, _ headers: [[String: String]], _ content: [String: Any])
            -> [String: Any]
        {
            [
                "startedDateTime": String(format: "2024-10-01T12:00:00.%03dZ", ms), "time": 40,
                "request": ["method": method, "url": "https://\(host)\(path)", "headers": []],
                "response": ["status": 200, "bodySize": 400, "headers": headers, "content": content],
                "timings": ["blocked": 0, "dns": 0, "connect": 8, "ssl": 4, "send": 0, "wait": 12, "receive": 20],
            ]
        }
        func type(_ t: String) -> [String: String] { ["name": "Content-Type", "value": t] }
        let entries = [
            entry(
                "GET", "/", 0, [type("text/html; charset=utf-8")],
                ["size": page.utf8.count, "mimeType": "text/html", "text": page]),
            entry(
                "GET", "/a.css", 60, [type("text/css"), ["name": "Content-Encoding", "value": "gzip"]],
                ["size": css.utf8.count, "mimeType": "text/css", "text": css]),
            entry("GET", "/none.png", 95, [type("image/png")], ["size": 900, "mimeType": "image/png"]),
        ]
        // The binary, a POST, and a GET and a POST of one path, the POST gzip-encoded (.netbench-methods/).
        let extras = [
            entry(
                "GET", "/img/photo.jpg", 80, [type("image/jpeg")],
                [
                    "size": binary.count, "mimeType": "image/jpeg", "encoding": "base64",
                    "text": Data(binary).base64EncodedString(),
                ]),
            entry(
                "POST", "/api/save", 90, [type("application/json")],
                ["size": json.utf8.count, "mimeType": "application/json", "text": json]),
            entry(
                "GET", "/api/x", 96, [type("application/json")],
                ["size": 7, "mimeType": "text/plain", "text": "[1,2,3]"]),
            entry(
                "POST", "/api/x", 97, [type("application/json"), ["name": "Content-Encoding", "value": "gzip"]],
                ["size": xpost.utf8.count, "mimeType": "application/json", "text": xpost]),
        ]
        return try JSONSerialization.data(
            withJSONObject: ["log": ["version": "1.2", "entries": entries + (full ? extras : [])]])
    }

    /// What curl must get: path, method, the bytes on the wire, the decoded bytes, content-type, encoding.
    struct Expected {
        var path: String, method: String, wire: [UInt8], decoded: [UInt8], type: String, encoding: String?
    }

    /// Imports the HAR, exports it on `port`; checks the report's and EXPORT.txt's body counts and the files.
    func importAndExport(_ dir: String, port: UInt16, full: Bool = true) throws -> (
        scenario: String, expected: [Expected]
    ) {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Self.har(full: full).write(to: URL(fileURLWithPath: dir + "/site.har"))
        let imported = try netbenchRun(["import-har", dir + "/site.har", "-o", dir + "/site.json"])
        guard imported.status == 0 else { XCTFail(imported.stderr); throw CocoaError(.fileReadUnknown) }
        let e = try netbenchRun([
            "scenario", "export", dir + "/site.json", "-o", dir + "/export", "--port", String(port),
        ])
        guard e.status == 0 else { XCTFail(e.stderr); throw CocoaError(.fileReadUnknown) }
        let counts = "bodies: \(full ? 4 : 1) written as recorded, \(full ? 2 : 1) recorded gzip-encoded"
        XCTAssertTrue(e.stdout.contains(counts) && e.stdout.contains("1 generated (filler)"), e.stdout)
        let notes = try String(contentsOfFile: dir + "/export/EXPORT.txt", encoding: .utf8)
        XCTAssertTrue(notes.contains(counts), notes)
        // The stored gzip bytes, as import-har wrote them beside the scenario.
        let scenario = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/site.json")))
                as? [String: Any])
        func stored(_ path: String, _ method: String) throws -> [UInt8] {
            let r = try XCTUnwrap(
                (scenario["resources"] as? [[String: Any]])?.first {
                    $0["path"] as? String == path && ($0["method"] as? String ?? "GET") == method
                }, "\(method) \(path)")
            let body = try XCTUnwrap(r["body"] as? [String: Any])
            XCTAssertEqual(body["contentEncoding"] as? String, "gzip")
            return try [UInt8](
                Data(contentsOf: URL(fileURLWithPath: dir + "/site.bodies/" + (body["sha256"] as! String))))
        }
        let gz = try stored("/a.css", "GET")
        XCTAssertNotEqual(gz, Array(Self.css.utf8))
        let root = dir + "/export/www/\(Self.host)/"
        XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: root + "a.css.gz"))), gz)
        XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: root + "a.css"))), Array(Self.css.utf8))
        let expected = [
            Expected(
                path: "/", method: "GET", wire: Array(Self.page.utf8), decoded: Array(Self.page.utf8),
                type: "text/html; charset=utf-8", encoding: nil),
            Expected(
                path: "/a.css", method: "GET", wire: gz, decoded: Array(Self.css.utf8), type: "text/css",
                encoding: "gzip"),
            Expected(
                path: "/api/save", method: "POST", wire: Array(Self.json.utf8), decoded: Array(Self.json.utf8),
                type: "application/json", encoding: nil),
        ]
        guard full else { return (dir + "/site.json", expected.filter { $0.method == "GET" }) }
        XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: root + "img/photo.jpg"))), Self.binary)
        let xpost = try stored("/api/x", "POST")
        XCTAssertEqual(
            try [UInt8](Data(contentsOf: URL(fileURLWithPath: root + ".netbench-methods/POST/api/x.gz"))), xpost)
        let more = [
            Expected(
                path: "/img/photo.jpg", method: "GET", wire: Self.binary, decoded: Self.binary, type: "image/jpeg",
                encoding: nil),
            Expected(
                path: "/api/x", method: "GET", wire: Array("[1,2,3]".utf8), decoded: Array("[1,2,3]".utf8),
                type: "application/json", encoding: nil),
            Expected(
                path: "/api/x", method: "POST", wire: xpost, decoded: Array(Self.xpost.utf8), type: "application/json",
                encoding: "gzip"),
        ]
        return (dir + "/site.json", expected + more)
    }

    /// curl over `versions`, with and without `--compressed`: status 200, the exact bytes, the recorded
    /// content-type and content-encoding.
    func assertBodies(_ expected: [Expected], port: UInt16, dir: String, server: String, versions: [String]) throws {
        for w in expected {
            for version in versions {
                for compressed in [false, true] {
                    let got = dir + "/got", head = dir + "/head"
                    try? FileManager.default.removeItem(atPath: got)
                    var args = [
                        "-s", "-X", w.method, version, "--cacert", dir + "/export/tls/ca.pem", "--resolve",
                        "\(Self.host):\(port):127.0.0.1", "-o", got, "-D", head, "-w", "%{http_code}",
                    ]
                    if w.method == "POST" { args += ["--data-binary", "q=1"] }
                    if compressed { args.append("--compressed") }
                    let r = try execute("/usr/bin/curl", args + ["https://\(Self.host):\(port)\(w.path)"])
                    let what = "\(server): \(w.method) \(w.path) \(version)\(compressed ? " --compressed" : "")"
                    XCTAssertEqual(r.stdout, "200", "\(what): \(r.stderr)")
                    let body = try [UInt8](Data(contentsOf: URL(fileURLWithPath: got)))
                    XCTAssertEqual(body.count, (compressed ? w.decoded : w.wire).count, what)
                    XCTAssertTrue(body == (compressed ? w.decoded : w.wire), "\(what): other bytes than recorded")
                    let headers = try String(contentsOfFile: head, encoding: .utf8).lowercased()
                    XCTAssertTrue(headers.contains("content-type: \(w.type)\r\n"), "\(what): \(headers)")
                    if let e = w.encoding {
                        XCTAssertTrue(headers.contains("content-encoding: \(e)\r\n"), "\(what): \(headers)")
                    } else {
                        XCTAssertFalse(headers.contains("content-encoding"), "\(what): \(headers)")
                    }
                }
            }
        }
    }

    /// `netbench run --server` over `transports`: every run ok, every resource 200 with its recorded size.
    func assertRun(_ scenario: String, port: UInt16, dir: String, transports: String) throws {
        let out = dir + "/out-\(transports)"
        let r = try netbenchRun([
            "run", scenario, "--server", "127.0.0.1:\(port)", "--ca", dir + "/export/tls/ca.pem", "-t", transports,
            "-n", "1", "-o", out, "-q",
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let runs = try resultRuns(out)
        XCTAssertEqual(runs.count, transports.split(separator: ",").count)
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scenario))) as? [String: Any])
        let sizes = Dictionary(
            uniqueKeysWithValues: ((json["resources"] as? [[String: Any]]) ?? []).map {
                ($0["id"] as? String ?? "?", $0["bytes"] as? Int ?? -1)
            })
        for run in runs {
            let t = run["transport"] as? String ?? "?"
            XCTAssertEqual(run["status"] as? String, "ok", "\(t): \(run["error"] ?? "")")
            let requests = (run["requests"] as? [[String: Any]]) ?? []
            for q in requests { XCTAssertEqual(q["status"] as? Int, 200, "\(t) \(q["id"] ?? "")") }
            let got = Dictionary(
                uniqueKeysWithValues: requests.map { ($0["id"] as? String ?? "?", $0["bytes"] as? Int ?? -1) })
            XCTAssertEqual(got, sizes, t)
        }
    }

    func testNginxServesTheExportedRecordedBodiesAsRecorded() throws {
        guard let nginx = executable(["/usr/sbin/nginx", "/usr/bin/nginx"]) else {
            return XCTFail("nginx is not installed (scripts/bootstrap.sh --test installs it)")
        }
        let dir = NSTemporaryDirectory() + "netbench-export-bodies-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try freePort()
        let (scenario, expected) = try importAndExport(dir, port: port)
        let p = try startServer(
            nginx, ["-c", dir + "/export/nginx.conf", "-p", dir + "/export", "-g", "daemon off;"],
            log: dir + "/nginx.out")
        defer { stop(p) }
        let log = { (try? String(contentsOfFile: dir + "/nginx.out", encoding: .utf8)) ?? "" }
        XCTAssertTrue(waitForListener(port: Int(port), udp: false), "nginx did not listen on \(port): \(log())")
        try assertBodies(expected, port: port, dir: dir, server: "nginx", versions: ["--http1.1", "--http2"])
        try assertRun(scenario, port: port, dir: dir, transports: "h1,h2")
    }

    func testCaddyServesTheExportedRecordedBodiesAsRecorded() throws {
        let dir = NSTemporaryDirectory() + "netbench-export-bodies-caddy-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try freePort()
        let (scenario, expected) = try importAndExport(dir, port: port)
        let p = try startCaddy(dir + "/export/Caddyfile", dir: dir, port: Int(port))
        defer { stop(p) }
        // GETs over h1 and h2; the POST over h1 only (caddy 2.6.2 resets some h2 streams of requests with a
        // body to file_server: ScenarioExportMethodsTests).
        try assertBodies(
            expected.filter { $0.method == "GET" }, port: port, dir: dir, server: "caddy",
            versions: ["--http1.1", "--http2"])
        try assertBodies(
            expected.filter { $0.method != "GET" }, port: port, dir: dir, server: "caddy", versions: ["--http1.1"])
        try assertRun(scenario, port: port, dir: dir, transports: "h1,h2,h3")
    }
}

extension ScenarioExportBodiesTests {
    /// Chromium loads the exported recorded page from the real nginx: every resource 200 with its recorded
    /// size (the gzip stylesheet's stored length: Chromium's byte check), trusted through the export's
    /// CA-and-certificate file (the CA alone: net::ERR_CERT_AUTHORITY_INVALID).
    func testChromiumLoadsTheExportedRecordedPageFromNginx() throws {
        let candidates = [
            ProcessInfo.processInfo.environment["NETBENCH_CHROMIUM"], "/usr/bin/chromium", "/usr/bin/chromium-browser",
        ]
        guard candidates.compactMap({ $0 }).contains(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            try missingPrerequisite("Chromium is not installed: scripts/bootstrap.sh --chromium")
        }
        guard let nginx = executable(["/usr/sbin/nginx", "/usr/bin/nginx"]) else {
            return XCTFail("nginx is not installed (scripts/bootstrap.sh --test installs it)")
        }
        let dir = NSTemporaryDirectory() + "netbench-export-bodies-chromium-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try freePort()
        // Without the POST: Chromium's run of a recorded page's fetch() POST is not counted even from netbench
        // serve (1 of 5 resources not loaded), which is no export's doing.
        let (scenario, _) = try importAndExport(dir, port: port, full: false)
        let p = try startServer(
            nginx, ["-c", dir + "/export/nginx.conf", "-p", dir + "/export", "-g", "daemon off;"],
            log: dir + "/nginx.out")
        defer { stop(p) }
        XCTAssertTrue(waitForListener(port: Int(port), udp: false), "nginx did not listen on \(port)")
        let out = dir + "/out"
        let r = try netbenchRun([
            "run", scenario, "--server", "127.0.0.1:\(port)", "--ca", dir + "/export/tls/ca-and-cert.pem",
            "--client", "chromium", "-t", "h1,h2", "-n", "1", "-o", out, "-q",
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scenario))) as? [String: Any])
        let resources = (json["resources"] as? [[String: Any]]) ?? []
        for run in try resultRuns(out) {
            let t = run["transport"] as? String ?? "?"
            XCTAssertEqual(run["status"] as? String, "ok", "\(t): \(run["error"] ?? "")")
            let got = Dictionary(
                uniqueKeysWithValues: ((run["requests"] as? [[String: Any]]) ?? []).map {
                    ($0["id"] as? String ?? "?", ($0["status"] as? Int ?? -1, $0["bytes"] as? Int ?? -1))
                })
            for res in resources {
                let id = res["id"] as? String ?? "?"
                XCTAssertEqual(got[id]?.0, 200, "\(t) \(id)")
                XCTAssertEqual(got[id]?.1, res["bytes"] as? Int, "\(t) \(id)")
            }
        }
    }
}
