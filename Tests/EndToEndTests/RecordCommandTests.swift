import Foundation
import XCTest
import TestSupport

/// `netbench record` with the built binary: two pages of a local nginx site (two host names) and one
/// URL that does not resolve; the recorded scenario replays with the built-in client; bad input
/// (an output directory that cannot be made, a bad --resolve, a missing body file) exits as documented.
final class RecordCommandEndToEndTests: XCTestCase {
    func testRecordTwoPagesAndAnUnreachableURLThenReplay() throws {
        let chromium = ["/usr/lib/chromium/chromium", "/usr/bin/chromium"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        if chromium == nil && ProcessInfo.processInfo.environment["NETBENCH_CHROMIUM"] == nil {
            try missingPrerequisite("Chromium is not installed (scripts/bootstrap.sh --test)")
        }
        let firefox = ["/usr/bin/firefox-esr", "/usr/bin/firefox"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        if firefox == nil && ProcessInfo.processInfo.environment["NETBENCH_FIREFOX"] == nil {
            try missingPrerequisite("Firefox is not installed (scripts/bootstrap.sh --test)")
        }
        let site = try LocalDocSite()
        defer { site.stop() }
        let dir = NSTemporaryDirectory() + "netbench-record-e2e-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let resolve = site.resolve.flatMap { ["--resolve", $0] }
        let r = try execute(
            NetbenchBinary.path,
            ["record", site.url("index.html"), "https://nowhere.invalid/", site.url("templates.html")] + resolve
                + ["--insecure", "--no-think-time", "-o", dir], timeout: 240)
        XCTAssertEqual(r.status, 2, "an unreachable URL makes the exit status 2: \(r.stderr)")
        let lines = r.stderr.split(separator: "\n").filter { $0.contains("nowhere.invalid") }
        XCTAssertEqual(lines.count, 1, r.stderr)
        XCTAssertTrue(lines.first?.contains("ERR_NAME_NOT_RESOLVED") == true, r.stderr)
        let index = "docs.test-\(site.port)-index.html", templates = "docs.test-\(site.port)-templates.html"
        for name in [index, templates] {
            let page = name.split(separator: "-").last!
            XCTAssertTrue(r.stdout.contains("recorded https://docs.test:\(site.port)/\(page)"), r.stdout)
            XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/\(name).har"), name)
            XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/\(name).json"), name)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/nowhere.invalid.json"))
        let scenario = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/\(index).json")))
                as? [String: Any])
        XCTAssertEqual(scenario["bodies"] as? String, "bodies")
        let resources = (scenario["resources"] as? [[String: Any]]) ?? []
        XCTAssertTrue(resources.allSatisfy { $0["thinkTimeMs"] == nil }, "--no-think-time")
        XCTAssertEqual(
            Set(((scenario["origins"] as? [[String: Any]]) ?? []).compactMap { $0["host"] as? String }),
            ["docs.test", "static.test"])
        // Shared, content-addressed bodies: the two pages' common files are stored once.
        let bodies = try FileManager.default.contentsOfDirectory(atPath: dir + "/bodies")
        XCTAssertGreaterThan(bodies.count, 12)

        let run = try execute(
            NetbenchBinary.path,
            ["run", dir + "/\(index).json", "-t", "h2", "--runs", "1", "-p", "loopback", "--out", dir + "/out"],
            timeout: 120)
        XCTAssertEqual(run.status, 0, run.stderr)
        try checkBrowsersFromTheOriginalServer(dir, index: index, site: site)

        try checkBadInput(dir, index: index, resolve: resolve, site: site)
    }

    /// `run --server --client chromium,firefox` loads the recorded page from nginx itself (the original
    /// server), each browser on its own: every resource, the recorded bytes (Firefox reaches the recorded
    /// ports through `network.socket.forcePort`).
    private func checkBrowsersFromTheOriginalServer(_ dir: String, index: String, site: LocalDocSite) throws {
        let common = [
            "run", dir + "/\(index).json", "--server", "127.0.0.1:\(site.port)", "--ca", site.directory + "/cert.pem",
            "--runs", "1",
        ]
        let r = try execute(
            NetbenchBinary.path, common + ["--client", "chromium,firefox", "-t", "h1,h2", "--out", dir + "/remote"],
            timeout: 300)
        XCTAssertEqual(r.status, 0, r.stderr)
        let scenario = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: dir + "/\(index).json"))) as? [String: Any]
        let resources = (scenario?["resources"] as? [[String: Any]]) ?? []
        let results = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: dir + "/remote/results.json"))) as? [String: Any]
        let runs = (results?["runs"] as? [[String: Any]]) ?? []
        XCTAssertEqual(runs.count, 4)
        XCTAssertEqual(
            runs.map { $0["client"] as? String ?? "" }.sorted(), ["chromium", "chromium", "firefox", "firefox"])
        for run in runs {
            XCTAssertEqual(run["status"] as? String, "ok", "\(run["error"] ?? "")")
            let got = Dictionary(
                ((run["requests"] as? [[String: Any]]) ?? []).map { ($0["id"] as? String ?? "", $0["bytes"] as? Int) },
                uniquingKeysWith: { a, _ in a })
            let want = Dictionary(
                resources.map { ($0["id"] as? String ?? "", $0["bytes"] as? Int) }, uniquingKeysWith: { a, _ in a })
            XCTAssertEqual(got, want, "\(run["client"] ?? "") \(run["transport"] ?? "")")
        }
    }

    private func checkBadInput(_ dir: String, index: String, resolve: [String], site: LocalDocSite) throws {
        try "x".write(toFile: dir + "/file", atomically: true, encoding: .utf8)
        let unwritable = try execute(
            NetbenchBinary.path, ["record", site.url("index.html")] + resolve + ["--insecure", "-o", dir + "/file/sub"])
        XCTAssertEqual(unwritable.status, 2, unwritable.stderr)
        XCTAssertTrue(
            unwritable.stderr.contains(dir + "/file/sub: cannot create the output directory"), unwritable.stderr)

        let badResolve = try execute(
            NetbenchBinary.path, ["record", site.url("index.html"), "--resolve", "x", "-o", dir])
        XCTAssertEqual(badResolve.status, 64, badResolve.stderr)
        XCTAssertTrue(badResolve.stderr.contains("--resolve x: expected HOST=ADDR[:PORT]"), badResolve.stderr)
        let noScheme = try execute(NetbenchBinary.path, ["record", "docs.test/", "-o", dir])
        XCTAssertEqual(noScheme.status, 64, noScheme.stderr)

        let bodies = try FileManager.default.contentsOfDirectory(atPath: dir + "/bodies").sorted()
        let scenarioText = try String(contentsOfFile: dir + "/\(index).json", encoding: .utf8)
        let gone = try XCTUnwrap(bodies.first { scenarioText.contains($0) })
        try FileManager.default.removeItem(atPath: dir + "/bodies/" + gone)
        let missing = try execute(
            NetbenchBinary.path, ["run", dir + "/\(index).json", "-t", "h1", "-p", "loopback", "--out", dir + "/bad"])
        XCTAssertEqual(missing.status, 65, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("body file \(dir)/bodies/\(gone) does not exist"), missing.stderr)
    }
}
