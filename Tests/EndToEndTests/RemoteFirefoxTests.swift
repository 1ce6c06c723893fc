import Foundation
import XCTest
#if canImport(Glibc)
    import Glibc
#endif
import TestSupport

/// `netbench run --server --client firefox` (the built binary): headless Firefox loads a scenario's
/// pages from `netbench serve --pages` running in another process, and from caddy serving `scenario
/// export`, over h1, h2 and h3 on one port, each origin name resolved to the server's address, its
/// certificate trusted through --ca; without --ca, Firefox's own roots. Every Firefox the runs start
/// is gone afterwards, and its profile too.
final class RemoteFirefoxTests: XCTestCase {
    override func setUpWithError() throws {
        let candidates = [
            ProcessInfo.processInfo.environment["NETBENCH_FIREFOX"], "/usr/lib/firefox-esr/firefox-esr",
            "/usr/bin/firefox-esr", "/usr/lib/firefox/firefox", "/usr/bin/firefox",
        ]
        guard candidates.compactMap({ $0 }).contains(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            try missingPrerequisite("Firefox is not installed: scripts/bootstrap.sh --firefox")
        }
        guard executable(["/usr/bin/certutil"]) != nil else {
            try missingPrerequisite("certutil is not installed (libnss3-tools): scripts/bootstrap.sh --firefox")
        }
    }

    func testFirefoxLoadsFromServeOverH1H2AndH3() throws {
        let dir = NSTemporaryDirectory() + "netbench-remote-firefox-\(UUID().uuidString)"
        // The runs' TMPDIR: where their Firefox profiles are made (and must be gone from).
        let tmp = dir + "/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenario = try writeTwoOriginScenario(dir)
        let port = Int(try freePort())
        let serve = try startServer(
            NetbenchBinary.path,
            [
                "serve", scenario, "-t", "h1,h2,h3", "-l", "127.0.0.1:\(port)", "--ca-out", dir + "/ca.pem",
                "--pages",
            ], log: dir + "/serve.log")
        defer { stop(serve) }
        XCTAssertTrue(waitFor("Ctrl-C", in: dir + "/serve.log"), "netbench serve did not start")
        let server = "127.0.0.1:\(port)"
        // Another CA first in the --ca file: Firefox must trust every certificate of it, not the first only.
        XCTAssertEqual(try netbenchRun(["scenario", "export", scenario, "-o", dir + "/other"]).status, 0)
        let bundle = dir + "/bundle.pem"
        try (String(contentsOfFile: dir + "/other/tls/ca.pem", encoding: .utf8)
            + String(contentsOfFile: dir + "/ca.pem", encoding: .utf8)).write(
                toFile: bundle, atomically: true, encoding: .utf8)

        let r = try netbenchRun(
            [
                "run", scenario, "--server", server, "--ca", bundle, "-t", "h1,h2,h3", "--client", "firefox", "-n",
                "1", "-o", dir + "/out", "-q",
            ], environment: ["TMPDIR": tmp])
        XCTAssertEqual(r.status, 0, r.stderr)
        assertNoFirefoxLeft(tmp)
        let results = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: dir + "/out/results.json"))) as? [String: Any]
        XCTAssertEqual((results?["suite"] as? [String: Any])?["client"] as? String, "firefox")
        let runs = try resultRuns(dir + "/out")
        XCTAssertEqual(runs.map { $0["transport"] as? String }, ["h1", "h2", "h3"])
        for run in runs { try checkRun(run, bytes: ["doc": 30_000, "img": 150_000], server: "netbench serve") }

        // No --ca: netbench's own checks take SSL_CERT_FILE, Firefox only its built-in roots (no import).
        let own = try netbenchRun(
            [
                "run", scenario, "--server", server, "-t", "h2", "--client", "firefox", "-n", "1", "-o",
                dir + "/own", "-q",
            ], environment: ["SSL_CERT_FILE": dir + "/ca.pem", "TMPDIR": tmp])
        XCTAssertEqual(own.status, 2, "the only run failed: \(own.stderr)")
        assertNoFirefoxLeft(tmp)
        let refused = try XCTUnwrap(try resultRuns(dir + "/own").first)
        XCTAssertEqual(refused["client"] as? String, "firefox")
        XCTAssertEqual(refused["status"] as? String, "failed")
        XCTAssertTrue(
            (refused["error"] as? String ?? "").contains("SEC_ERROR_UNKNOWN_ISSUER"), "\(refused["error"] ?? "")")
    }

    /// Caddy (Debian's; HTTP/3 from quic-go) serving the export of a page whose document is written by
    /// hand (a recorded body, which the export serves as is) and whose stylesheet is generated: Firefox
    /// loads it from a server that is not netbench's over h1, h2 and h3, the document at its recorded size.
    func testFirefoxLoadsFromCaddyOverH1H2AndH3() throws {
        let dir = NSTemporaryDirectory() + "netbench-remote-firefox-caddy-\(UUID().uuidString)"
        let tmp = dir + "/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = Int(try freePort())
        let (scenario, documentBytes) = try writeHandWrittenPage(dir, port: port)
        let export = try netbenchRun(["scenario", "export", scenario, "-o", dir + "/export", "--port", String(port)])
        XCTAssertEqual(export.status, 0, export.stderr)
        let p = try startCaddy(dir + "/export/Caddyfile", dir: dir, port: port)
        defer { stop(p) }
        let r = try netbenchRun(
            [
                "run", scenario, "--server", "127.0.0.1:\(port)", "--ca", dir + "/export/tls/ca.pem", "-t", "h1,h2,h3",
                "--client", "firefox", "-n", "1", "-o", dir + "/out", "-q",
            ], environment: ["TMPDIR": tmp])
        XCTAssertEqual(r.status, 0, r.stderr)
        assertNoFirefoxLeft(tmp)
        let runs = try resultRuns(dir + "/out")
        XCTAssertEqual(runs.map { $0["transport"] as? String }, ["h1", "h2", "h3"])
        for run in runs {
            try checkRun(run, bytes: ["doc": documentBytes, "css": 150_000], server: "not identified")
        }
    }

    /// DIR/page.json: a.example's document, written by hand and stored as a recorded body (smaller than
    /// the page netbench would render for it), links b.example's stylesheet, whose bytes are generated.
    func writeHandWrittenPage(_ dir: String, port: Int) throws -> (path: String, documentBytes: Int) {
        let html = """
            <!doctype html><html><head><link rel="stylesheet" href="https://b.example:\(port)/s.css"></head>\
            <body><p>written by hand</p></body></html>

            """
        try FileManager.default.createDirectory(atPath: dir + "/bodies", withIntermediateDirectories: true)
        try html.write(toFile: dir + "/document.html", atomically: true, encoding: .utf8)
        let sha = String(try execute("/usr/bin/sha256sum", [dir + "/document.html"]).stdout.prefix(64))
        XCTAssertEqual(sha.count, 64)
        try FileManager.default.moveItem(atPath: dir + "/document.html", toPath: dir + "/bodies/" + sha)
        let path = dir + "/page.json"
        try """
        {"schemaVersion":1,"name":"hand-written","bodies":"bodies",
         "origins":[{"id":"a","host":"a.example"},{"id":"b","host":"b.example"}],
         "resources":[{"id":"doc","origin":"a","path":"/","bytes":\(html.utf8.count),"type":"document",
                       "body":{"sha256":"\(sha)","contentType":"text/html"}},
                      {"id":"css","origin":"b","path":"/s.css","bytes":150000,"type":"stylesheet","parent":"doc"}]}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return (path, html.utf8.count)
    }

    /// One run: Firefox's, over the protocol asked for, every resource (`bytes`: id → its exact size)
    /// answered 200 with its bytes, Firefox's own timings recorded, the server identified as `server`.
    func checkRun(
        _ run: [String: Any], bytes expected: [String: Int], server: String, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let t = run["transport"] as? String ?? "?"
        let nextHop = ["h1": "http/1.1", "h2": "h2", "h3": "h3"][t]
        XCTAssertEqual(run["client"] as? String, "firefox", t, file: file, line: line)
        XCTAssertEqual(run["status"] as? String, "ok", "\(t): \(run["error"] ?? "")", file: file, line: line)
        XCTAssertEqual(run["profile"] as? String, "network", t, file: file, line: line)
        let identity = (run["server"] as? [String: Any])?["identity"] as? String ?? ""
        XCTAssertTrue(identity.hasPrefix(server), "\(t): \(identity)", file: file, line: line)
        let requests = (run["requests"] as? [[String: Any]]) ?? []
        let got = Dictionary(
            requests.map { ($0["id"] as? String ?? "?", $0) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(requests.count, expected.count, "\(t): \(requests)", file: file, line: line)
        let metrics = try XCTUnwrap(run["metrics"] as? [String: Any], t, file: file, line: line)
        let plt = try XCTUnwrap(metrics["pltMs"] as? Double, "\(t): pltMs", file: file, line: line)
        for (id, bytes) in expected.sorted(by: { $0.key < $1.key }) {
            let r = got[id]
            XCTAssertEqual(r?["protocol"] as? String, nextHop, "\(t) \(id): the protocol", file: file, line: line)
            XCTAssertEqual(r?["status"] as? Int, 200, "\(t) \(id)", file: file, line: line)
            XCTAssertEqual(r?["bytes"] as? Int, bytes, "\(t) \(id): exact bytes", file: file, line: line)
            let first = r?["firstByte"] as? Double ?? -1, last = r?["lastByte"] as? Double ?? -1
            XCTAssertTrue(0 < first && first <= last && last <= plt, "\(t) \(id): \(r ?? [:])", file: file, line: line)
        }
        XCTAssertEqual(metrics["bytes"] as? Int, expected.values.reduce(0, +), t, file: file, line: line)
        let ttfb = try XCTUnwrap(metrics["ttfbMs"] as? Double, "\(t): ttfbMs", file: file, line: line)
        let load = try XCTUnwrap(metrics["loadEventMs"] as? Double, "\(t): loadEventMs", file: file, line: line)
        XCTAssertTrue(0 < ttfb && ttfb <= plt && ttfb <= load, "\(t): \(metrics)", file: file, line: line)
        XCTAssertNotNil(metrics["firstContentfulPaintMs"], "\(t): Firefox's paint timing", file: file, line: line)
        XCTAssertNil(metrics["connections"], "\(t): BiDi names no connection", file: file, line: line)
    }

    /// No process runs a Firefox profile under `tmp`, and no profile directory is left there.
    func assertNoFirefoxLeft(_ tmp: String, file: StaticString = #filePath, line: UInt = #line) {
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).filter {
            guard Int32($0) != nil, let d = FileManager.default.contents(atPath: "/proc/\($0)/cmdline") else {
                return false
            }
            return String(decoding: d.map { $0 == 0 ? 32 : $0 }, as: UTF8.self).contains(tmp + "/netbench-firefox-")
        }
        XCTAssertEqual(pids, [], "Firefox processes outlived their run", file: file, line: line)
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).filter {
            $0.hasPrefix("netbench-firefox-")
        }
        XCTAssertEqual(left, [], "Firefox profiles left in \(tmp)", file: file, line: line)
    }
}
