import Foundation
import XCTest
import TLS
import TestSupport

/// `netbench load` run as the built binary with request bodies: a scenario's POST resource over h1,
/// h2 and h3 (the in-process replay server answers a POST only as a POST: sent as a GET it would be
/// a 404, a status error), and quic-perf streams with `--upload`, against netbench's perf server and
/// against the aioquic perf peer (Tests/Support/aioquic_perf.py), which logs each stream's upload.
final class LoadRequestBodyCommandTests: XCTestCase {
    static let form = "user=load&items=1%2C2%2C3"

    func tempDir() throws -> String {
        let dir = NSTemporaryDirectory() + "netbench-load-body-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        return dir
    }

    func results(_ dir: String) throws -> [String: Any] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/load.json")))
        return try XCTUnwrap(json as? [String: Any])
    }

    func loads(_ dir: String) throws -> [[String: Any]] { try XCTUnwrap(try results(dir)["loads"] as? [[String: Any]]) }

    func testScenarioPostOverH1H2H3AndQUICPerf() throws {
        let dir = try tempDir()
        try """
        {"schemaVersion": 1, "name": "load-post", "origins": [{"id": "a", "host": "localhost"}],
         "resources": [
           {"id": "doc", "origin": "a", "path": "/", "bytes": 2000, "type": "document"},
           {"id": "api", "origin": "a", "path": "/api/cart?v=2", "bytes": 500, "type": "xhr", "parent": "doc",
            "method": "POST",
            "requestBody": {"text": "\(Self.form)", "contentType": "application/x-www-form-urlencoded"}}
         ]}
        """.write(toFile: dir + "/post.json", atomically: true, encoding: .utf8)
        let r = try netbenchRun([
            "load", dir + "/post.json", "-t", "h1,h2,h3,quic-perf", "--rate", "100/s", "--duration", "1s", "-c", "2",
            "-o", dir + "/out",
        ])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("uploaded"), r.stdout)
        let targets = try XCTUnwrap(try results(dir + "/out")["targets"] as? [String])
        XCTAssertEqual(targets, ["https://localhost/", "POST https://localhost/api/cart?v=2"])
        let all = try loads(dir + "/out")
        // quic-perf: each resource's size on a stream of its own, the POST's uploading its body's length.
        XCTAssertEqual(all.map { $0["transport"] as? String }, ["h1", "h2", "h3", "quic-perf"])
        for l in all {
            let t = l["transport"] as? String ?? "?"
            XCTAssertEqual(l["scheduled"] as? Int, 100, t)
            XCTAssertEqual(l["ok"] as? Int, 100, "\(t): \(l["errorExamples"] ?? "")")
            XCTAssertEqual((l["errors"] as? [String: Int])?.isEmpty, true, "\(t): \(l["errorExamples"] ?? "")")
            XCTAssertEqual(l["bytes"] as? Int, 50 * 2000 + 50 * 500, t)
            XCTAssertEqual(l["bytesUploaded"] as? Int, 50 * Self.form.utf8.count, t)
            XCTAssertNil(l["upload"], t)
        }
    }

    /// URL targets with --method/--body-file against `netbench serve` of a scenario whose URL is a POST:
    /// as GETs (no option) every request is a 404 status error; as POSTs with the body, all are ok.
    func testURLTargetsWithMethodAndBodyFile() throws {
        let dir = try tempDir()
        try """
        {"schemaVersion": 1, "name": "serve-post", "origins": [{"id": "a", "host": "localhost"}],
         "resources": [
           {"id": "doc", "origin": "a", "path": "/", "bytes": 2000, "type": "document"},
           {"id": "api", "origin": "a", "path": "/api/cart", "bytes": 500, "type": "xhr", "parent": "doc",
            "method": "POST", "requestBody": {"text": "{}", "contentType": "application/json"}}
         ]}
        """.write(toFile: dir + "/served.json", atomically: true, encoding: .utf8)
        let body = #"{"items": [1, 2, 3], "note": "netbench load"}"#
        try body.write(toFile: dir + "/body.json", atomically: true, encoding: .utf8)
        let (serve, port) = try startServe(dir + "/served.json", dir: dir)
        defer { stop(serve) }
        let url = "https://localhost:\(port)/api/cart"
        let common = ["--ca", dir + "/ca.pem", "-t", "h2", "--rate", "50/s", "--duration", "1s", "-c", "1"]
        let asGet = try netbenchRun(["load", url] + common)
        XCTAssertEqual(asGet.status, 2, asGet.stdout + asGet.stderr)
        XCTAssertTrue(asGet.stdout.contains("errors status 50"), asGet.stdout)
        let r = try netbenchRun(
            ["load", url, "--body-file", dir + "/body.json", "--content-type", "application/json", "-o", dir + "/out"]
                + common)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let out = try results(dir + "/out")
        XCTAssertEqual(out["targets"] as? [String], ["POST " + url.replacingOccurrences(of: ":\(port)", with: "")])
        let load = try XCTUnwrap(try loads(dir + "/out").first)
        XCTAssertEqual(load["ok"] as? Int, 50, "\(load["errorExamples"] ?? "")")
        XCTAssertEqual(load["bytes"] as? Int, 50 * 500)
        XCTAssertEqual(load["bytesUploaded"] as? Int, 50 * body.utf8.count)
        let put = try netbenchRun(["load", url, "--method", "put", "--body-file", dir + "/body.json"] + common)
        XCTAssertEqual(put.status, 2, put.stdout + put.stderr)
        XCTAssertTrue(put.stdout.contains("PUT /api/cart: status 404"), put.stdout)
    }

    /// `--upload` against the in-process perf server: every stream answered, the upload size and the
    /// bytes uploaded in load.json and the summary.
    func testQUICPerfUploadInProcess() throws {
        let dir = try tempDir()
        let r = try netbenchRun([
            "load", "-t", "quic-perf", "--upload", "30KB", "--size", "1KB", "--rate", "100/s", "--duration", "1s",
            "-c", "2", "-m", "4", "-o", dir,
        ])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains(" MB uploaded, 30") && r.stdout.contains(" KB upload per stream"), r.stdout)
        let load = try XCTUnwrap(try loads(dir).first)
        XCTAssertEqual(load["ok"] as? Int, 100, "\(load["errorExamples"] ?? "")")
        XCTAssertEqual((load["errors"] as? [String: Int])?.isEmpty, true)
        XCTAssertEqual(load["upload"] as? Int, 30_000)
        XCTAssertEqual(load["bytesUploaded"] as? Int, 100 * 30_000)
        XCTAssertEqual(load["bytes"] as? Int, 100 * 1000)
    }

    func testUploadIsRefusedForHTTP() throws {
        for t in ["h2", "h1,quic-perf", "h3"] {
            let r = try netbenchRun(["load", "-t", t, "--upload", "1KB", "--duration", "1s"])
            XCTAssertEqual(r.status, 64, "\(t): " + r.stderr)
            XCTAssertTrue(r.stderr.contains("--upload"), r.stderr)
            XCTAssertTrue(r.stderr.contains("only for -t quic-perf"), r.stderr)
            // One line of its own (then the pointer to --help every usage error ends with).
            let first = r.stderr.split(separator: "\n").first.map(String.init) ?? ""
            XCTAssertTrue(first.contains("--upload") && first.contains("only for -t quic-perf"), r.stderr)
        }
        let misuse: [([String], String)] = [
            (["--method", "POST"], "--method applies to URL targets"),
            (["https://localhost:1/x", "--method", "GET", "--body-file", "/etc/hostname"], "a GET request has no body"),
            (["https://localhost:1/x", "--content-type", "text/plain"], "needs --body-file"),
            (["https://localhost:1/x", "--method", "TRACE"], "--method 'TRACE'"),
        ]
        for (args, text) in misuse {
            let r = try netbenchRun(["load"] + args)
            XCTAssertEqual(r.status, 64, "\(args): " + r.stderr)
            XCTAssertTrue(r.stderr.contains(text), "\(args): " + r.stderr)
        }
        let missing = try netbenchRun(["load", "https://localhost:1/x", "--body-file", "/nonexistent/body"])
        XCTAssertEqual(missing.status, 65, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("--body-file /nonexistent/body"), missing.stderr)
        let help = try netbenchRun(["load", "--help"])
        XCTAssertTrue(help.stdout.contains("--upload"), help.stdout)
        XCTAssertTrue(help.stdout.contains("its own method"), help.stdout)
    }

    /// The aioquic perf peer, written from the draft: it logs each stream's size and upload; every
    /// stream asked for 2,000 bytes and uploaded 50,001.
    func testQUICPerfUploadToTheAioquicPeer() throws {
        let dir = try tempDir()
        let server = try startAioquicPerfServer(caName: "load upload interop CA", in: dir)
        defer { server.stop() }
        let r = try netbenchRun([
            "load", "-t", "quic-perf", "--server", "localhost:\(server.port)", "--ca", dir + "/ca.pem",
            "--size", "2000", "--upload", "50001", "--rate", "20/s", "--duration", "1s", "-c", "2", "-m", "2",
            "-o", dir + "/out",
        ])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let load = try XCTUnwrap(try loads(dir + "/out").first)
        XCTAssertEqual(load["ok"] as? Int, 20, "\(load["errorExamples"] ?? "")")
        XCTAssertEqual(load["upload"] as? Int, 50_001)
        XCTAssertEqual(load["bytesUploaded"] as? Int, 20 * 50_001)
        let log = server.stop()
        let answered = log.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(answered.count, 20, log)
        XCTAssertTrue(
            answered.allSatisfy { $0["requested"] as? Int == 2000 && $0["uploaded"] as? Int == 50_001 }, log)
    }
}
