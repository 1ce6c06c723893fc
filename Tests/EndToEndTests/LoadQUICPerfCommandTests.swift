import Foundation
import XCTest
import TLS
import TestSupport

/// `netbench load -t quic-perf` run as the built binary: raw QUIC perf streams (draft-banks-quic-
/// performance-00) against the in-process perf server, beside h3, through a profile, in shards, and
/// against the independent perf peer on aioquic (Tests/Support/aioquic_perf.py).
final class LoadQUICPerfCommandTests: XCTestCase {
    func tempDir() throws -> String {
        let dir = NSTemporaryDirectory() + "netbench-load-perf-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        return dir
    }

    func loads(_ dir: String) throws -> [[String: Any]] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/load.json")))
        return try XCTUnwrap((json as? [String: Any])?["loads"] as? [[String: Any]])
    }

    /// Open model against the in-process perf server: every due stream answered with its exact bytes,
    /// the server's CPU counted, the interval log written under the transport's name.
    func testOpenModelInProcess() throws {
        let dir = try tempDir()
        let r = try netbenchRun([
            "load", "-t", "quic-perf", "--rate", "200/s", "--duration", "2s", "-c", "2", "-m", "4", "--size", "3KB",
            "-o", dir,
        ])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("quic-perf: open, 200 req/s, 2 connections × 4 streams"), r.stdout)
        XCTAssertTrue(r.stderr.contains("netbench perf server in process (QUIC 127.0.0.1:"), r.stderr)
        let load = try XCTUnwrap(try loads(dir).first)
        XCTAssertEqual(load["transport"] as? String, "quic-perf")
        XCTAssertEqual(load["scheduled"] as? Int, 400)
        XCTAssertEqual(load["ok"] as? Int, 400, "\(load["errorExamples"] ?? "")")
        XCTAssertEqual((load["errors"] as? [String: Int])?.isEmpty, true)
        XCTAssertEqual(load["bytes"] as? Int, 400 * 3000)
        XCTAssertEqual(load["connectionsOpened"] as? Int, 2)
        XCTAssertEqual((load["latencyMs"] as? [String: Any])?["count"] as? Int, 400)
        XCTAssertGreaterThan(load["serverCpuMs"] as? Double ?? 0, 0)
        XCTAssertEqual(load["hlog"] as? String, "latency-quic-perf.hlog")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/latency-quic-perf.hlog"))
    }

    /// Closed model, h3 and quic-perf one after the other on the same sizes: both answer, each byte
    /// counted, M streams per QUIC connection for both.
    func testClosedModelBesideH3() throws {
        let dir = try tempDir()
        let r = try netbenchRun(
            ["load", "-t", "h3,quic-perf", "--duration", "1s", "-c", "2", "-m", "4", "--size", "5KB", "-o", dir])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let all = try loads(dir)
        XCTAssertEqual(all.map { $0["transport"] as? String }, ["h3", "quic-perf"])
        for l in all {
            let ok = try XCTUnwrap(l["ok"] as? Int)
            XCTAssertGreaterThan(ok, 0)
            XCTAssertEqual(l["model"] as? String, "closed")
            XCTAssertEqual(l["streams"] as? Int, 4)
            XCTAssertEqual(l["bytes"] as? Int, ok * 5000, "\(l)")
            XCTAssertEqual((l["errors"] as? [String: Int])?.isEmpty, true, "\(l)")
        }
    }

    /// Two shards of quic-perf merge into one load, and `check` gates on it.
    func testShardsMergeAndCheck() throws {
        let dir = try tempDir()
        for i in 1...2 {
            let r = try netbenchRun([
                "load", "-t", "quic-perf", "--rate", "100/s", "--duration", "1s", "--shard", "\(i)/2", "-c", "2",
                "-o", dir + "/s\(i)",
            ])
            XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        }
        let m = try netbenchRun(["merge", dir + "/s1", dir + "/s2", "-o", dir + "/merged"])
        XCTAssertEqual(m.status, 0, m.stdout + m.stderr)
        let merged = try XCTUnwrap(try loads(dir + "/merged").first)
        XCTAssertEqual(merged["transport"] as? String, "quic-perf")
        XCTAssertEqual(merged["ok"] as? Int, 100)
        try #"{"thresholds": [{"expr": "errors == 0", "transport": "quic-perf"}]}"#.write(
            toFile: dir + "/t.json", atomically: true, encoding: .utf8)
        let c = try netbenchRun(["check", dir + "/merged", "--thresholds", dir + "/t.json"])
        XCTAssertEqual(c.status, 0, c.stdout + c.stderr)
        try #"{"thresholds": [{"expr": "latencyMs.p50 < 0.0001", "transport": "quic-perf"}]}"#.write(
            toFile: dir + "/f.json", atomically: true, encoding: .utf8)
        let f = try netbenchRun(["check", dir + "/merged", "--thresholds", dir + "/f.json"])
        XCTAssertEqual(f.status, 1, f.stdout + f.stderr)
        XCTAssertTrue(f.stdout.contains("quic-perf"), f.stdout)
    }

    func testUsageErrors() throws {
        let url = try netbenchRun(["load", "-t", "quic-perf", "https://localhost:4433/obj"])
        XCTAssertEqual(url.status, 64, url.stderr)
        XCTAssertTrue(url.stderr.contains("-t quic-perf asks a perf server for sizes, not URLs"), url.stderr)
        let noTarget = try netbenchRun(["load", "-t", "h2,quic-perf", "--server", "127.0.0.1:1"])
        XCTAssertEqual(noTarget.status, 64, noTarget.stderr)
        XCTAssertTrue(noTarget.stderr.contains("unless -t quic-perf alone"), noTarget.stderr)
        let unknown = try netbenchRun(["load", "-t", "quic"])
        XCTAssertEqual(unknown.status, 64, unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("quic-perf"), unknown.stderr)
    }

    /// Interop: the generator's streams answered by aioquic's perf server (written from the draft, not by
    /// netbench): every due request ok with its bytes, and the peer saw each stream ask for that size.
    func testAgainstTheAioquicPerfServer() throws {
        let dir = try tempDir()
        let server = try startAioquicPerfServer(caName: "load perf interop CA", in: dir)
        defer { server.stop() }
        let r = try netbenchRun([
            "load", "-t", "quic-perf", "--server", "localhost:\(server.port)", "--ca", dir + "/ca.pem",
            "--size", "2000", "--rate", "50/s", "--duration", "2s", "-c", "2", "-m", "2", "-o", dir + "/out",
        ])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let load = try XCTUnwrap(try loads(dir + "/out").first)
        XCTAssertEqual(load["scheduled"] as? Int, 100)
        XCTAssertEqual(load["ok"] as? Int, 100, "\(load["errorExamples"] ?? "")")
        XCTAssertEqual(load["bytes"] as? Int, 100 * 2000)
        XCTAssertEqual((load["errors"] as? [String: Int])?.isEmpty, true)
        let log = server.stop()
        let answered = log.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(answered.count, 100, log)
        XCTAssertTrue(answered.allSatisfy { $0["requested"] as? Int == 2000 && $0["uploaded"] as? Int == 0 }, log)
    }

    /// -p: quic-perf through the emulated 100 Mbit/s, 20 ms link at half its capacity for 10 KB: the
    /// rate is held, nothing fails, and no stream is answered faster than the link's ideal (20.8 ms).
    func testThroughAnEmulatedProfile() throws {
        try requireRoot()
        let dir = try tempDir()
        try """
        {"schemaVersion": 1, "name": "load-100M-20ms", "down": "100Mbit", "up": "100Mbit", "rtt": "20ms",
         "queue": "bdp"}
        """.write(toFile: dir + "/link.json", atomically: true, encoding: .utf8)
        let r = try netbenchRun([
            "load", "-t", "quic-perf", "-p", dir + "/link.json", "--size", "10KB", "--rate", "50%",
            "--duration", "2s", "-c", "4", "-m", "8", "-o", dir + "/out",
        ])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("quic-perf: open, 625 req/s"), r.stdout)
        let load = try XCTUnwrap(try loads(dir + "/out").first)
        XCTAssertEqual(load["scheduled"] as? Int, 1250)
        XCTAssertEqual((load["errors"] as? [String: Int])?.isEmpty, true, "\(load)")
        XCTAssertEqual(try XCTUnwrap(load["achievedRate"] as? Double), 625, accuracy: 625 * 0.02)
        let p50 = try XCTUnwrap((load["latencyMs"] as? [String: Any])?["p50"] as? Double)
        XCTAssertGreaterThanOrEqual(p50, 20.8, "no stream is answered faster than the link allows")
        let wire = try XCTUnwrap((load["link"] as? [String: Any])?["wireBytesPerResponse"] as? Double)
        XCTAssertGreaterThanOrEqual(wire, 10_000)
    }
}

/// The aioquic perf peer (Tests/Support/aioquic_perf.py, written from the draft) serving on a free
/// loopback port with a fresh CA's leaf for localhost; `dir` gets `ca.pem`. Stop it with `stop()`.
func startAioquicPerfServer(caName: String, in dir: String) throws -> PerfInteropTests.Background {
    let venv = ProcessInfo.processInfo.environment["NETBENCH_AIOQUIC_VENV"] ?? packageRoot + "/.build-venv"
    let python = venv + "/bin/python"
    let hasAioquic =
        FileManager.default.isExecutableFile(atPath: python)
        && ((try? PerfInteropTests.execute(python, ["-c", "import aioquic"]).status) == 0)
    try require(hasAioquic, "aioquic in \(venv) (scripts/bootstrap.sh --test)")
    let ca = try CertificateAuthority(commonName: caName)
    let leaf = try ca.issue(hostNames: ["localhost", "127.0.0.1"])
    try ca.certificatePEM.write(toFile: dir + "/ca.pem", atomically: true, encoding: .utf8)
    try leaf.certificateChainPEM.write(toFile: dir + "/cert.pem", atomically: true, encoding: .utf8)
    try leaf.privateKeyPEM.write(toFile: dir + "/key.pem", atomically: true, encoding: .utf8)
    return try PerfInteropTests.Background(
        python,
        [
            packageRoot + "/Tests/Support/aioquic_perf.py", "server", "--listen", "127.0.0.1:0",
            "--certificate", dir + "/cert.pem", "--private-key", dir + "/key.pem",
        ], until: #"listening 127\.0\.0\.1:(\d+)"#)
}
