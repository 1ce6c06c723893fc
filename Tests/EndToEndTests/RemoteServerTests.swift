import Foundation
import XCTest
#if canImport(Glibc)
    import Glibc
#endif
import TestSupport

/// `netbench run --server` (the built binary) against servers on loopback: `netbench serve` (h1, h2,
/// h3 on one port), nginx (h1, h2), caddy (h1, h2, h3 on one port) and ngtcp2's gtlsserver (h3)
/// serving `scenario export` files.
final class RemoteServerTests: XCTestCase {
    func testServeDescriptionCertificatesAndSystemStore() throws {
        let dir = NSTemporaryDirectory() + "netbench-remote-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenario = try writeTwoOriginScenario(dir)
        let wrong = try writeTwoOriginScenario(dir, name: "wrong", imageBytes: 150_001)
        let port = Int(try freePort())
        let serve = try startServer(
            NetbenchBinary.path,
            ["serve", scenario, "-t", "h1,h2,h3", "-l", "127.0.0.1:\(port)", "--ca-out", dir + "/ca.pem"],
            log: dir + "/serve.log")
        defer { stop(serve) }
        XCTAssertTrue(waitFor("Ctrl-C", in: dir + "/serve.log"), "netbench serve did not start")
        let server = "127.0.0.1:\(port)"

        let ok = try netbenchRun([
            "run", scenario, "--server", server, "--ca", dir + "/ca.pem", "-t", "h1,h2,h3", "-n", "1", "-o",
            dir + "/ok", "-q",
        ])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        let runs = try resultRuns(dir + "/ok")
        XCTAssertEqual(runs.map { $0["transport"] as? String }, ["h1", "h2", "h3"])
        for r in runs {
            XCTAssertEqual(r["status"] as? String, "ok", "\(r["error"] ?? "")")
            XCTAssertEqual(r["profile"] as? String, "network")
            XCTAssertEqual(bodyBytes(r), 180_000)
            XCTAssertTrue(
                ((r["server"] as? [String: Any])?["identity"] as? String)?.hasPrefix("netbench serve") == true,
                "\(r["server"] ?? "")")
        }

        // The description itself, as curl sees it: the digest of the file's bytes.
        let digest = try execute("/usr/bin/sha256sum", [scenario]).stdout.prefix(64)
        let described = try curl([
            "--cacert", dir + "/ca.pem", "--resolve", "b.example:\(port):127.0.0.1",
            "https://b.example:\(port)/.well-known/netbench",
        ])
        XCTAssertTrue(
            described.stdout.contains("\"sha256\":\"\(digest)\"") && described.stdout.contains("\"name\":\"remote\""),
            described.stdout + described.stderr)

        // Another scenario (one byte more in one resource): refused before any run, naming both.
        let other = try netbenchRun([
            "run", wrong, "--server", server, "--ca", dir + "/ca.pem", "-t", "h3", "-n", "1", "-o", dir + "/wrong",
            "-q",
        ])
        XCTAssertEqual(other.status, 65, other.stderr)
        XCTAssertTrue(other.stderr.contains("wrong.json") && other.stderr.contains(String(digest)), other.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/wrong/runs.jsonl"))

        // No --ca: the system store, which does not know netbench serve's CA (the host name and OpenSSL's reason).
        let system = try netbenchRun([
            "run", scenario, "--server", server, "-t", "h2", "-n", "1", "-o", dir + "/system", "-q",
        ])
        XCTAssertEqual(system.status, 2, system.stderr)
        XCTAssertTrue(
            system.stderr.contains("'a.example'") && system.stderr.contains("unable to get local issuer certificate"),
            system.stderr)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: dir + "/system/runs.jsonl"), "no run before the certificate check")
        // The system store is OpenSSL's default verify paths: SSL_CERT_FILE points them (and h3) at the CA.
        let pointed = try netbenchRun(
            ["run", scenario, "--server", server, "-t", "h2,h3", "-n", "1", "-o", dir + "/pointed", "-q"],
            environment: ["SSL_CERT_FILE": dir + "/ca.pem"])
        XCTAssertEqual(pointed.status, 0, pointed.stderr)
        XCTAssertEqual(try resultRuns(dir + "/pointed").filter { $0["status"] as? String == "ok" }.count, 2)
    }

    /// `serve --cert --key`: the user's own pair is served (h2 and h3); a key of another pair names the key file.
    func testServeWithOwnCertificate() throws {
        let dir = NSTemporaryDirectory() + "netbench-owncert-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenario = try writeTwoOriginScenario(dir)
        // Two exports: two unrelated certificate/key pairs covering the scenario's names.
        for e in ["e1", "e2"] {
            XCTAssertEqual(try netbenchRun(["scenario", "export", scenario, "-o", dir + "/" + e]).status, 0)
        }
        let mismatched = try netbenchRun([
            "serve", scenario, "-t", "h2", "-l", "127.0.0.1:0", "--cert", dir + "/e1/tls/cert.pem", "--key",
            dir + "/e2/tls/key.pem",
        ])
        XCTAssertEqual(mismatched.status, 65)
        XCTAssertTrue(
            mismatched.stderr.contains(dir + "/e2/tls/key.pem") && mismatched.stderr.contains("does not match"),
            mismatched.stderr)
        let notKey = try netbenchRun([
            "serve", scenario, "-t", "h2", "-l", "127.0.0.1:0", "--cert", dir + "/e1/tls/cert.pem", "--key",
            dir + "/e1/tls/cert.pem",
        ])
        XCTAssertEqual(notKey.status, 65)
        XCTAssertTrue(notKey.stderr.contains("e1/tls/cert.pem: no PEM private key"), notKey.stderr)
        XCTAssertEqual(
            try netbenchRun(["serve", scenario, "-t", "h2", "-l", "127.0.0.1:0", "--cert", dir + "/e1/tls/cert.pem"])
                .status, 64)

        let port = Int(try freePort())
        let serve = try startServer(
            NetbenchBinary.path,
            [
                "serve", scenario, "-t", "h2,h3", "-l", "127.0.0.1:\(port)",
                "--cert", dir + "/e1/tls/cert.pem", "--key", dir + "/e1/tls/key.pem",
            ], log: dir + "/serve.log")
        defer { stop(serve) }
        XCTAssertTrue(waitFor("Ctrl-C", in: dir + "/serve.log"), "netbench serve did not start")
        XCTAssertTrue(waitFor("covers every origin", in: dir + "/serve.log"))
        let ok = try netbenchRun([
            "run", scenario, "--server", "127.0.0.1:\(port)", "--ca", dir + "/e1/tls/ca.pem", "-t", "h2,h3", "-n", "1",
            "-o", dir + "/ok", "-q",
        ])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(try resultRuns(dir + "/ok").map(bodyBytes), [180_000, 180_000])
    }

    /// nginx serving `scenario export` output on loopback, loaded by `run --server` over h1 and h2;
    /// then one exported file one byte short: the run fails naming the resource.
    func testRunAgainstNginxExportAndWrongSize() throws {
        guard let nginx = executable(["/usr/sbin/nginx", "/usr/bin/nginx"]) else {
            try missingPrerequisite("nginx is not installed (scripts/bootstrap.sh --test installs it)")
        }
        let dir = NSTemporaryDirectory() + "netbench-remote-nginx-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = Int(try freePort())
        let scenario = packageRoot + "/Scenarios/pages/small-page.json"
        let export = try netbenchRun(["scenario", "export", scenario, "-o", dir, "--port", String(port)])
        XCTAssertEqual(export.status, 0, export.stderr)
        try FileManager.default.createDirectory(atPath: dir + "/logs", withIntermediateDirectories: true)
        let p = try startServer(
            nginx, ["-c", dir + "/nginx.conf", "-p", dir, "-g", "daemon off;"], log: dir + "/nginx.out")
        defer { stop(p) }
        XCTAssertTrue(waitForListener(port: port, udp: false), "nginx did not listen on \(port)")
        let r = try netbenchRun([
            "run", scenario, "--server", "127.0.0.1:\(port)", "--ca", dir + "/tls/ca.pem", "-t", "h1,h2", "-n", "2",
            "-o", dir + "/out", "-q",
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let runs = try resultRuns(dir + "/out")
        XCTAssertEqual(runs.count, 4)
        XCTAssertTrue(
            runs.allSatisfy { $0["status"] as? String == "ok" && $0["profile"] as? String == "network" },
            "\(runs.map { $0["error"] ?? "" })")
        let identity = (runs[0]["server"] as? [String: Any])?["identity"] as? String ?? ""
        XCTAssertTrue(identity.contains("not identified") && identity.contains("404"), identity)
        assertBoundHolds(runs, server: "nginx")

        let (file, resource, bytes) = try firstExportedFile(dir, scenario: scenario)
        try Data(count: bytes - 1).write(to: URL(fileURLWithPath: file))
        let short = try netbenchRun([
            "run", scenario, "--server", "127.0.0.1:\(port)", "--ca", dir + "/tls/ca.pem", "-t", "h2", "-n", "1", "-o",
            dir + "/short", "-q",
        ])
        XCTAssertEqual(short.status, 2, "every run failed")
        let error = try resultRuns(dir + "/short").first?["error"] as? String ?? ""
        XCTAssertTrue(
            error.contains("'\(resource)'") && error.contains("\(bytes - 1) body bytes, expected exactly \(bytes)"),
            error)
    }

    /// ngtcp2's gtlsserver (h3 only, UDP) serving the exported files: exact bytes; the RTT comes
    /// from QUIC, as no TCP connect completes.
    func testRunAgainstGtlsserverOverH3() throws {
        guard let gtls = executable(["/usr/sbin/gtlsserver", "/usr/bin/gtlsserver"]) else {
            try missingPrerequisite("gtlsserver is not installed (Debian ngtcp2-server; scripts/bootstrap.sh --test)")
        }
        let dir = NSTemporaryDirectory() + "netbench-remote-gtls-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenario = packageRoot + "/Scenarios/pages/small-page.json"
        XCTAssertEqual(try netbenchRun(["scenario", "export", scenario, "-o", dir]).status, 0)
        let root = dir + "/merged"  // every origin's files under one root, written by the export
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/index.html"))
        let port = Int(try freePort())
        let p = try startServer(
            gtls, ["-q", "-d", root, "127.0.0.1", String(port), dir + "/tls/key.pem", dir + "/tls/cert.pem"],
            log: dir + "/gtls.out")
        defer { stop(p) }
        XCTAssertTrue(waitForListener(port: port, udp: true), "gtlsserver did not bind \(port)/udp")
        let r = try netbenchRun([
            "run", scenario, "--server", "127.0.0.1:\(port)", "--ca", dir + "/tls/ca.pem", "-t", "h3", "-n", "2", "-o",
            dir + "/out", "-q",
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let total = try scenarioBytes(scenario)
        for run in try resultRuns(dir + "/out") {
            XCTAssertEqual(run["status"] as? String, "ok", "\(run["error"] ?? "")")
            XCTAssertEqual(bodyBytes(run), total)
            let metrics = run["metrics"] as? [String: Any]
            XCTAssertNotNil(metrics?["rttMs"])
            XCTAssertTrue((metrics?["rttSource"] as? String)?.contains("QUIC") == true)
        }
        assertBoundHolds(try resultRuns(dir + "/out"), server: "gtlsserver")
    }

    /// Caddy (Debian's; HTTP/3 from quic-go) serving the export's Caddyfile: h1, h2 and h3 on one port,
    /// each run over the protocol asked for (h3 over QUIC) with the scenario's exact bytes, the server
    /// not identified, the bound at or below the fastest run; caddy stops cleanly on SIGTERM.
    func testRunAgainstCaddyOverH1H2AndH3() throws {
        let dir = NSTemporaryDirectory() + "netbench-remote-caddy-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = Int(try freePort())
        let scenario = packageRoot + "/Scenarios/pages/small-page.json"
        let export = try netbenchRun(["scenario", "export", scenario, "-o", dir, "--port", String(port)])
        XCTAssertEqual(export.status, 0, export.stderr)
        let start = "caddy run --config \(dir)/Caddyfile --adapter caddyfile"
        let notes = try String(contentsOfFile: dir + "/EXPORT.txt", encoding: .utf8)
        XCTAssertTrue(notes.contains(start) && export.stdout.contains(start), notes + export.stdout)
        let help = try netbenchRun(["scenario", "export", "--help"]).stdout
        XCTAssertTrue(help.contains("caddy run --config DIR/Caddyfile --adapter caddyfile"), help)
        let p = try startCaddy(dir + "/Caddyfile", dir: dir, port: port)
        defer { stop(p) }
        let log = { (try? String(contentsOfFile: dir + "/caddy.out", encoding: .utf8)) ?? "" }
        let r = try netbenchRun([
            "run", scenario, "--server", "127.0.0.1:\(port)", "--ca", dir + "/tls/ca.pem", "-t", "h1,h2,h3", "-n",
            "2", "-o", dir + "/out", "-q",
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let runs = try resultRuns(dir + "/out")
        XCTAssertEqual(runs.compactMap { $0["transport"] as? String }.sorted(), ["h1", "h1", "h2", "h2", "h3", "h3"])
        let total = try scenarioBytes(scenario)
        let alpn = ["h1": "http/1.1", "h2": "h2", "h3": "h3"]
        for run in runs {
            let transport = run["transport"] as? String ?? "?"
            XCTAssertEqual(run["status"] as? String, "ok", "\(transport): \(run["error"] ?? "")")
            XCTAssertEqual(bodyBytes(run), total, transport)
            let protocols = Set(((run["requests"] as? [[String: Any]]) ?? []).map { $0["protocol"] as? String })
            XCTAssertEqual(protocols, [alpn[transport]], "\(transport): the protocol of every request")
            let connections = (run["connections"] as? [[String: Any]]) ?? []
            XCTAssertFalse(connections.isEmpty, transport)
            for c in connections {
                XCTAssertEqual(c["transport"] as? String, transport)
                // HTTP/1.1 binds late: a connection may carry nothing and close before its handshake.
                if c["unused"] as? Bool == true && c["handshakeEnd"] == nil {
                    XCTAssertNil(c["alpn"], "\(transport): an unfinished handshake names no protocol")
                } else {
                    XCTAssertEqual(c["alpn"] as? String, alpn[transport], "\(transport): ALPN")
                }
                XCTAssertEqual(c["quic"] != nil, transport == "h3", "\(transport): QUIC statistics iff h3")
            }
            let identity = (run["server"] as? [String: Any])?["identity"] as? String ?? ""
            XCTAssertTrue(identity.contains("not identified"), identity)
        }
        assertBoundHolds(runs, server: "caddy")
        stop(p)
        XCTAssertEqual(p.terminationStatus, 0, "caddy did not stop cleanly on SIGTERM: \(log())")
    }

    /// A static server answers at once: the bound leaves the scenario's think times out and stays at
    /// or below the fastest run (small-page holds 90 ms of them, more than a loopback load takes).
    func assertBoundHolds(
        _ runs: [[String: Any]], server: String, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        let metrics = runs.compactMap { $0["metrics"] as? [String: Any] }
        let fastest = metrics.compactMap { $0["pltMs"] as? Double }.min() ?? 0
        for m in metrics {
            let model = m["idealModel"] as? String ?? "none"
            XCTAssertTrue(model.contains("without server think times"), "\(server): \(model)", file: file, line: line)
            let bound = m["idealPltMs"] as? Double ?? .infinity
            XCTAssertLessThanOrEqual(bound, fastest, "\(server): ideal above the fastest run", file: file, line: line)
        }
    }

    /// The first exported resource's file, its resource id and size.
    func firstExportedFile(_ dir: String, scenario: String) throws -> (String, String, Int) {
        let json =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scenario))) as! [String: Any]
        let hosts = Dictionary(
            uniqueKeysWithValues: (json["origins"] as! [[String: Any]]).map {
                ($0["id"] as! String, $0["host"] as! String)
            })
        let r = (json["resources"] as! [[String: Any]]).first {
            ($0["path"] as? String)?.contains("?") == false && ($0["bytes"] as? Int ?? 0) > 1
                && $0["path"] as? String != "/"
        }!
        return (
            dir + "/www/" + hosts[r["origin"] as! String]! + (r["path"] as! String), r["id"] as! String,
            r["bytes"] as! Int
        )
    }

    func scenarioBytes(_ scenario: String) throws -> Int {
        let json =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scenario))) as! [String: Any]
        return (json["resources"] as! [[String: Any]]).map { $0["bytes"] as! Int }.reduce(0, +)
    }
}
