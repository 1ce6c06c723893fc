import Foundation
import XCTest
#if canImport(Glibc)
    import Glibc
#endif
import TestSupport

/// `run --server` (the built binary) refusing a server before the first run: netbench serve of
/// another scenario is a data error (65) naming both scenarios, whether or not its certificate
/// covers the plan's names; a server that is not netbench with a certificate for other names is a
/// run failure (2) naming the name.
final class OtherScenarioRefusalTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "netbench-refusal-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// `netbench serve SCENARIO` (h1, h2, h3 on one port, its CA written to DIR/TAG-ca.pem) until `stop`.
    func serve(_ scenario: String, tag: String) throws -> (Process, String) {
        let port = Int(try freePort())
        let p = try startServer(
            NetbenchBinary.path,
            ["serve", scenario, "-t", "h1,h2,h3", "-l", "127.0.0.1:\(port)", "--ca-out", "\(dir)/\(tag)-ca.pem"],
            log: "\(dir)/\(tag).log")
        XCTAssertTrue(waitFor("Ctrl-C", in: "\(dir)/\(tag).log"), "netbench serve \(scenario) did not start")
        return (p, "127.0.0.1:\(port)")
    }

    func run(_ scenario: String, at server: String, ca: String, _ transports: String, out: String) throws
        -> ToolOutcome
    {
        try netbenchRun([
            "run", scenario, "--server", server, "--ca", ca, "-t", transports, "-n", "1", "-o", "\(dir)/\(out)", "-q",
        ])
    }

    /// small-page's server (www.blog.test, ...) asked for the two-origin scenario (a.example, b.example):
    /// its certificate covers none of the names, its description says what it serves.
    func testOtherScenarioWithOtherNamesIsNamed() throws {
        let smallPage = packageRoot + "/Scenarios/pages/small-page.json"
        let (server, address) = try serve(smallPage, tag: "small")
        defer { stop(server) }
        let twoOrigins = try writeTwoOriginScenario(dir, name: "two-origins")
        let smallDigest = try execute("/usr/bin/sha256sum", [smallPage]).stdout.prefix(64)
        // h3 alone too: the description is read over TCP, where netbench serve also listens.
        for transports in ["h2", "h1,h2", "h3"] {
            let r = try run(twoOrigins, at: address, ca: dir + "/small-ca.pem", transports, out: transports)
            XCTAssertEqual(r.status, 65, "\(transports): \(r.stderr)")
            for part in [
                "two-origins.json", "'remote'", "'small-page'", String(smallDigest), "'a.example'", "does not verify",
            ] {
                XCTAssertTrue(r.stderr.contains(part), "\(transports): '\(part)' missing in \(r.stderr)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: "\(dir)/\(transports)/runs.jsonl"), "a run was made")
        }
        // The plan's own scenario on the same server still loads.
        let ok = try run(smallPage, at: address, ca: dir + "/small-ca.pem", "h2", out: "ok")
        XCTAssertEqual(ok.status, 0, ok.stderr)
    }

    /// Names covered, content different (one byte more in one resource): 65 as before, no certificate word.
    func testOtherScenarioWithSameNamesIsNamed() throws {
        let scenario = try writeTwoOriginScenario(dir)
        let wrong = try writeTwoOriginScenario(dir, name: "wrong", imageBytes: 150_001)
        let (server, address) = try serve(scenario, tag: "two")
        defer { stop(server) }
        let digest = try execute("/usr/bin/sha256sum", [scenario]).stdout.prefix(64)
        let r = try run(wrong, at: address, ca: dir + "/two-ca.pem", "h2,h3", out: "wrong")
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertTrue(r.stderr.contains("wrong.json") && r.stderr.contains(String(digest)), r.stderr)
        XCTAssertFalse(r.stderr.contains("certificate"), r.stderr)
    }

    /// nginx (not netbench: its description path answers 404) with small-page's certificate, asked
    /// for the two-origin scenario: the certificate failure stands, exit 2.
    func testServerNotNetbenchWithOtherNamesIsRunFailure() throws {
        guard let nginx = executable(["/usr/sbin/nginx", "/usr/bin/nginx"]) else {
            try missingPrerequisite("nginx is not installed (scripts/bootstrap.sh --test installs it)")
        }
        let port = Int(try freePort())
        let export = dir + "/export"
        let smallPage = packageRoot + "/Scenarios/pages/small-page.json"
        let exported = try netbenchRun(["scenario", "export", smallPage, "-o", export, "--port", String(port)])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        try FileManager.default.createDirectory(atPath: export + "/logs", withIntermediateDirectories: true)
        let p = try startServer(
            nginx, ["-c", export + "/nginx.conf", "-p", export, "-g", "daemon off;"], log: dir + "/nginx.out")
        defer { stop(p) }
        XCTAssertTrue(waitForListener(port: port, udp: false), "nginx did not listen on \(port)")
        let twoOrigins = try writeTwoOriginScenario(dir, name: "two-origins")
        let r = try run(twoOrigins, at: "127.0.0.1:\(port)", ca: export + "/tls/ca.pem", "h2", out: "nginx")
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(
            r.stderr.contains("certificate for 'a.example'") && r.stderr.contains("does not verify"), r.stderr)
        XCTAssertFalse(r.stderr.contains("does not serve this scenario"), r.stderr)
    }
}
