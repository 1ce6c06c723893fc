import Foundation
import XCTest
import TestSupport

/// A HAR saved with content, imported by the built binary: its bodies land beside the scenario, the
/// built-in client loads the page over h1, h2 and h3 on loopback with every recorded size, and
/// `netbench serve` sends the recorded bytes exactly (curl over h1 and h2, ngtcp2's client over h3).
final class RecordedBodiesEndToEndTests: XCTestCase {
    static let page = "<html><head><link rel=stylesheet href=/a.css></head><body>recorded</body></html>"
    static let css = "body { color: #123456 }"

    /// 70,000 bytes that no generator makes: every byte value, in a seeded order.
    static let binary: [UInt8] = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<70_000).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }()

    static func har() throws -> Data {
        func entry(_ url: String, _ ms: Int, _ mime: String, _ content: [String: Any]) -> [String: Any] {
            [
                "startedDateTime": String(format: "2024-10-01T12:00:00.%03dZ", ms), "time": 40,
                "request": ["method": "GET", "url": url, "headers": []],
                "response": [
                    "status": 200, "bodySize": 500, "headers": [["name": "Content-Type", "value": mime]],
                    "content": content,
                ],
                "timings": ["blocked": 0, "dns": 0, "connect": 8, "ssl": 4, "send": 0, "wait": 12, "receive": 20],
            ]
        }
        let entries = [
            entry(
                "https://www.recorded.test/", 0, "text/html; charset=utf-8",
                ["size": page.utf8.count, "mimeType": "text/html", "text": page]),
            entry("https://www.recorded.test/a.css", 60, "text/css", ["size": css.utf8.count, "text": css]),
            entry(
                "https://img.recorded.test/photo.jpg", 80, "image/jpeg",
                ["size": binary.count, "encoding": "base64", "text": Data(binary).base64EncodedString()]),
            entry("https://img.recorded.test/none.png", 90, "image/png", ["size": 900, "mimeType": "image/png"]),
        ]
        return try JSONSerialization.data(withJSONObject: ["log": ["version": "1.2", "entries": entries]])
    }

    func testRecordedBodiesAreServedExactlyOverEveryTransport() throws {
        let dir = NSTemporaryDirectory() + "netbench-bodies-e2e-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.har().write(to: URL(fileURLWithPath: dir + "/site.har"))

        let imported = try execute(NetbenchBinary.path, ["import-har", dir + "/site.har", "-o", dir + "/site.json"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stdout.contains("bodies: 3 of 4 real"), imported.stdout)
        let bodies = try FileManager.default.contentsOfDirectory(atPath: dir + "/site.bodies")
        XCTAssertEqual(bodies.count, 3)

        let run = try execute(
            NetbenchBinary.path,
            ["run", dir + "/site.json", "-t", "h1,h2,h3", "--runs", "1", "-p", "loopback", "--out", dir + "/out"],
            timeout: 180)
        XCTAssertEqual(run.status, 0, run.stderr)
        let results = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: dir + "/out/results.json")))
        let runs = try XCTUnwrap((results as? [String: Any])?["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.count, 3)
        let expected = [
            "document": Self.page.utf8.count, "a.css": Self.css.utf8.count, "photo.jpg": 70_000, "none.png": 500,
        ]
        for r in runs {
            XCTAssertEqual(r["status"] as? String, "ok", "\(r["transport"] ?? "?"): \(r["error"] ?? "")")
            let got = Dictionary(
                uniqueKeysWithValues: ((r["requests"] as? [[String: Any]]) ?? []).map {
                    ($0["id"] as? String ?? "?", $0["bytes"] as? Int ?? -1)
                })
            XCTAssertEqual(got, expected, "\(r["transport"] ?? "?")")
        }

        try checkExactBytes(dir)
        try checkBadInput(dir, bodies: bodies)
    }

    /// A missing body file (run, serve) and content that is not base64 (import-har): exit 65 naming them.
    private func checkBadInput(_ dir: String, bodies: [String]) throws {
        let gone = dir + "/site.bodies/" + bodies.sorted()[0]
        try FileManager.default.removeItem(atPath: gone)
        for args in [
            ["run", dir + "/site.json", "-t", "h1", "-p", "loopback", "--out", dir + "/bad"],
            ["serve", dir + "/site.json", "-t", "h1", "-l", "127.0.0.1:0"],
        ] {
            let r = try execute(NetbenchBinary.path, args, timeout: 60)
            XCTAssertEqual(r.status, 65, "\(args[0]): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("body file \(gone) does not exist"), r.stderr)
        }
        var har = try XCTUnwrap(try JSONSerialization.jsonObject(with: Self.har()) as? [String: Any])
        var log = try XCTUnwrap(har["log"] as? [String: Any])
        var entries = try XCTUnwrap(log["entries"] as? [[String: Any]])
        var response = try XCTUnwrap(entries[2]["response"] as? [String: Any])
        response["content"] = ["size": 3, "encoding": "base64", "text": "@@@"]
        entries[2]["response"] = response
        log["entries"] = entries
        har["log"] = log
        try JSONSerialization.data(withJSONObject: har).write(to: URL(fileURLWithPath: dir + "/bad.har"))
        let r = try execute(NetbenchBinary.path, ["import-har", dir + "/bad.har", "-o", dir + "/bad.json"])
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertTrue(r.stderr.contains("bad.har: log.entries[2].response.content.text: not valid base64"), r.stderr)
    }

    /// `netbench serve` of the imported scenario; each body fetched by a peer and compared byte for byte.
    private func checkExactBytes(_ dir: String) throws {
        let serve = Process()
        serve.executableURL = URL(fileURLWithPath: try NetbenchBinary.path)
        serve.arguments = [
            "serve", dir + "/site.json", "-t", "h1,h2,h3", "-l", "127.0.0.1:0", "--ca-out", dir + "/ca.pem",
        ]
        let out = Pipe()
        serve.standardOutput = out
        serve.standardError = FileHandle.nullDevice
        try serve.run()
        defer { serve.interrupt(); serve.waitUntilExit() }
        var banner = ""
        let deadline = Date().addingTimeInterval(30)
        while !banner.contains("Ctrl-C") && Date() < deadline {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            banner += String(decoding: chunk, as: UTF8.self)
        }
        let range = try XCTUnwrap(banner.range(of: #"127\.0\.0\.1:\d+"#, options: .regularExpression), banner)
        let port = String(banner[range].split(separator: ":")[1])

        let wanted: [(host: String, path: String, bytes: [UInt8], type: String)] = [
            ("www.recorded.test", "/", Array(Self.page.utf8), "text/html; charset=utf-8"),
            ("www.recorded.test", "/a.css", Array(Self.css.utf8), "text/css"),
            ("img.recorded.test", "/photo.jpg", Self.binary, "image/jpeg"),
        ]
        for version in ["--http1.1", "--http2"] {
            for w in wanted {
                let file = dir + "/got"
                let r = try curl([
                    version, "--cacert", dir + "/ca.pem", "--resolve", "\(w.host):\(port):127.0.0.1",
                    "-o", file, "-w", "%{content_type}", "https://\(w.host):\(port)\(w.path)",
                ])
                XCTAssertEqual(r.status, 0, r.stderr)
                XCTAssertEqual(r.stdout, w.type, "\(version) \(w.path)")
                XCTAssertEqual(
                    [UInt8](try Data(contentsOf: URL(fileURLWithPath: file))), w.bytes, "\(version) \(w.path)")
            }
        }
        guard let client = executable(["/usr/bin/gtlsclient"]) else {
            try missingPrerequisite("ngtcp2's gtlsclient is not installed (scripts/bootstrap.sh --test)")
        }
        for w in wanted {
            let download = dir + "/h3-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: download, withIntermediateDirectories: true)
            let r = try execute(
                client,
                [
                    "-q", "--exit-on-all-streams-close", "--download", download, "--sni=\(w.host)", "127.0.0.1", port,
                    "https://\(w.host):\(port)\(w.path)",
                ], timeout: 30)
            XCTAssertEqual(r.status, 0, r.stderr)
            let name = w.path == "/" ? "index.html" : String(w.path.dropFirst())
            let got = FileManager.default.contents(atPath: download + "/" + name)
            XCTAssertEqual(got.map { [UInt8]($0) }, w.bytes, "h3 \(w.path)")
        }
    }
}
