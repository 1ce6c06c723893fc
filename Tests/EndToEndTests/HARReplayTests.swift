import Foundation
import XCTest
import TestSupport

/// A HAR with the shapes recorded pages have (cache hits, a 304, a CORS preflight, a beacon after
/// onLoad, pseudo-headers, -1 timings, sizes only in content.size or _transferSize, a service
/// worker, queries, a fragment, non-ASCII and spaces in a path), imported by the built binary and
/// replayed over h1, h2 and h3 on loopback, by the built-in client and by Chromium: every imported resource is found by
/// the server under
/// its path and arrives with its size. And fuzz findings fed to the commands end as one-line
/// errors (one per problem) naming the file, with exit 65.
final class HARReplayEndToEndTests: XCTestCase {
    private let fixture = packageRoot + "/Tests/BenchModelTests/Fixtures/har-shapes/real-world.har"

    func testImportedRealWorldHARReplaysOverEveryTransport() throws {
        try importAndReplay(client: "builtin")
    }

    /// The same pages in a real browser: Chromium asks for the paths the rendered pages reference
    /// (queries, percent-encoded and non-ASCII paths) and the servers find every one.
    func testImportedRealWorldHARReplaysInChromium() throws {
        let candidates = [
            ProcessInfo.processInfo.environment["NETBENCH_CHROMIUM"], "/usr/bin/chromium", "/usr/bin/chromium-browser",
        ]
        guard candidates.compactMap({ $0 }).contains(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            try missingPrerequisite("Chromium is not installed: scripts/bootstrap.sh --chromium")
        }
        try importAndReplay(client: "chromium")
    }

    private func importAndReplay(client: String) throws {
        let dir = NSTemporaryDirectory() + "netbench-har-e2e-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let imported = try runNetbench(["import-har", fixture, "-o", dir + "/page.json"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stdout.hasPrefix("imported 6 of 10 entries"), imported.stdout)
        for line in [
            "2 × from the browser cache (_fromCache) or 304", "1 × CORS preflights (OPTIONS)",
            "1 × started after the page's onLoad", "1 × answered by a service worker",
            "1 × HTTP/2 pseudo-headers", "timings of -1", "1 × bodySize -1 or 0: size from response.content.size",
            "1 × body size only in _transferSize", "2 × query strings", "1 × fragments (#…): dropped",
            "1 × non-ASCII characters or spaces in the URL",
        ] {
            XCTAssertTrue(imported.stdout.contains(line), "report lacks '\(line)':\n\(imported.stdout)")
        }
        let scenario = try json(dir + "/page.json")
        let paths = Dictionary(
            uniqueKeysWithValues: (scenario["resources"] as! [[String: Any]]).map { ($0["id"] as! String, $0) })
        XCTAssertEqual(
            Set(paths.values.map { $0["path"] as! String }),
            [
                "/", "/app.js", "/v1/comments?id=42", "/v1/comments?id=43", "/images/caf%C3%A9%20au%20lait.jpg",
                "/fonts/%E6%96%87.woff2",
            ])

        let run = try runNetbench([
            "run", dir + "/page.json", "--transport", "h1,h2,h3", "--runs", "1", "--profile", "loopback",
            "--client", client, "--out", dir + "/out",
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let runs = try json(dir + "/out/results.json")["runs"] as! [[String: Any]]
        XCTAssertEqual(runs.map { $0["transport"] as! String }.sorted(), ["h1", "h2", "h3"])
        for r in runs {
            let label = "\(client) \(r["transport"]!)"
            XCTAssertEqual(r["status"] as? String, "ok", "\(label): \(r["error"] ?? "")")
            let requests = r["requests"] as! [[String: Any]]
            XCTAssertEqual(requests.count, paths.count, label)
            for q in requests {
                let id = q["id"] as! String
                XCTAssertEqual(q["status"] as? Int, 200, "\(label) \(paths[id]?["path"] ?? id)")
                XCTAssertEqual(q["bytes"] as? Int, paths[id]?["bytes"] as? Int, "\(label) \(paths[id]?["path"] ?? id)")
            }
        }
    }

    /// Inputs the fuzzers found trapping or breaking the one-line rule, through the commands users run.
    func testFuzzFindingsAreOneLineDataErrors() throws {
        let saved = packageRoot + "/Tests/FuzzRegressionTests/Fixtures/"
        let cases: [(String, [String])] = [
            ("har/newline-in-key-path.har", ["import-har"]),
            ("har/sizes-and-status-1e300.har", ["import-har"]),
            ("scenario/bytes-sum-overflow.json", ["scenario", "show"]),
            ("scenario/think-time-1e300.json", ["scenario", "validate"]),
            ("profile/rtt-1e300.json", ["run", Fixture.path("small-page.json"), "--runs", "1", "--profile"]),
        ]
        for (file, command) in cases {
            let r = try runNetbench(command + [saved + file])
            XCTAssertEqual(r.status, 65, "\(file): \(r.stderr)")
            // One line per problem (`scenario validate` prints them on stdout), each naming the file.
            let lines = (r.stdout + r.stderr).split(separator: "\n")
            XCTAssertFalse(lines.isEmpty, file)
            for line in lines {
                XCTAssertTrue(line.contains(saved + file), "\(file): a line does not name the file: \(line)")
            }
        }
    }

    private func json(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
    }

    private func runNetbench(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let r = try execute(NetbenchBinary.path, args, timeout: 120)
        return (r.status, r.stdout, r.stderr)
    }
}
