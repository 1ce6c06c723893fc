import Foundation
import XCTest
#if canImport(Glibc)
    import Glibc
#endif
import TestSupport

/// `netbench serve` in one network namespace, `netbench run --server` in another, joined by a veth
/// pair this test creates (and removes, also when it fails): exact bytes over h1, h2 and h3; another
/// scenario (exit 65); a served file of another size (ngtcp2's gtlsserver, the run names the
/// resource); a certificate that does not verify (exit 2).
final class TwoNamespaceTests: XCTestCase {
    func testServeAndRunInTwoNamespaces() throws {
        try requireRoot("network namespaces need root")
        try require(FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip"), "iproute2 (ip) is not installed")
        guard let gtls = executable(["/usr/sbin/gtlsserver", "/usr/bin/gtlsserver"]) else {
            try missingPrerequisite("gtlsserver is not installed (Debian ngtcp2-server; scripts/bootstrap.sh --test)")
        }
        let dir = NSTemporaryDirectory() + "netbench-2ns-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let net = try TwoNamespaces()
        defer { net.remove() }
        let scenario = try writeTwoOriginScenario(dir)
        let wrong = try writeTwoOriginScenario(dir, name: "wrong", imageBytes: 150_001)
        let server = "\(net.serverAddress):8443"

        let serve = try startServer(
            "/usr/sbin/ip",
            [
                "netns", "exec", net.server, NetbenchBinary.path, "serve", scenario, "-t", "h1,h2,h3",
                "-l", server, "--ca-out", dir + "/ca.pem",
            ], log: dir + "/serve.log")
        defer { stop(serve) }
        XCTAssertTrue(
            waitFor("Ctrl-C", in: dir + "/serve.log"),
            (try? String(contentsOfFile: dir + "/serve.log", encoding: .utf8)) ?? "")

        let ok = try netbenchRun(
            [
                "run", scenario, "--server", server, "--ca", dir + "/ca.pem", "-t", "h1,h2,h3", "-n", "1", "-o",
                dir + "/ok", "-q",
            ],
            namespace: net.client)
        XCTAssertEqual(ok.status, 0, ok.stderr)
        let runs = try resultRuns(dir + "/ok")
        XCTAssertEqual(runs.count, 3)
        for r in runs {
            XCTAssertEqual(r["status"] as? String, "ok", "\(r["transport"] ?? ""): \(r["error"] ?? "")")
            XCTAssertEqual(bodyBytes(r), 180_000)
            XCTAssertEqual((r["server"] as? [String: Any])?["address"] as? String, server)
            // Every connection went to the server namespace's address.
            let remotes = ((r["connections"] as? [[String: Any]]) ?? []).compactMap { $0["remoteAddress"] as? String }
            XCTAssertTrue(!remotes.isEmpty && remotes.allSatisfy { $0.hasPrefix(net.serverAddress) }, "\(remotes)")
        }

        let other = try netbenchRun(
            [
                "run", wrong, "--server", server, "--ca", dir + "/ca.pem", "-t", "h2", "-n", "1", "-o", dir + "/wrong",
                "-q",
            ],
            namespace: net.client)
        XCTAssertEqual(other.status, 65, other.stderr)
        XCTAssertTrue(
            other.stderr.contains("wrong.json") && other.stderr.contains("does not serve this scenario"), other.stderr)

        // A CA nobody signed the server with (a fresh export's): stopped before the first run.
        XCTAssertEqual(try netbenchRun(["scenario", "export", scenario, "-o", dir + "/export"]).status, 0)
        let bad = try netbenchRun(
            [
                "run", scenario, "--server", server, "--ca", dir + "/export/tls/ca.pem", "-t", "h3", "-n", "1", "-o",
                dir + "/bad", "-q",
            ],
            namespace: net.client)
        XCTAssertEqual(bad.status, 2, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("'a.example'") && bad.stderr.contains("does not verify"), bad.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/bad/runs.jsonl"))

        // gtlsserver in the server namespace, its image one byte short.
        let root = dir + "/export/merged"
        try FileManager.default.removeItem(atPath: root + "/i.png")  // a hard link to www/b.example/i.png
        try Data(count: 149_999).write(to: URL(fileURLWithPath: root + "/i.png"))
        let gtlsProcess = try startServer(
            "/usr/sbin/ip",
            [
                "netns", "exec", net.server, gtls, "-q", "-d", root, net.serverAddress, "9443",
                dir + "/export/tls/key.pem", dir + "/export/tls/cert.pem",
            ], log: dir + "/gtls.log")
        defer { stop(gtlsProcess) }
        XCTAssertTrue(waitForListener(port: 9443, udp: true, namespace: net.server), "gtlsserver did not bind 9443/udp")
        let short = try netbenchRun(
            [
                "run", scenario, "--server", "\(net.serverAddress):9443", "--ca", dir + "/export/tls/ca.pem", "-t",
                "h3", "-n", "1",
                "-o", dir + "/short", "-q",
            ], namespace: net.client)
        XCTAssertEqual(short.status, 2, short.stderr)
        let error = try resultRuns(dir + "/short").first?["error"] as? String ?? ""
        XCTAssertTrue(error.contains("'img'") && error.contains("149999 body bytes, expected exactly 150000"), error)
    }
}
