import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// `netbench serve` in one process, `netbench run --server` in another (the built binary both times).
final class RemoteServerTests: XCTestCase {
    func testRunAgainstServeExactBytesBadCertificateAndWrongSize() throws {
        let dir = NSTemporaryDirectory() + "netbench-remote-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenario = """
        {"schemaVersion":1,"name":"remote","origins":[{"id":"a","host":"a.example"},{"id":"b","host":"b.example"}],
         "resources":[{"id":"doc","origin":"a","path":"/","bytes":30000,"type":"document"},
                      {"id":"img","origin":"b","path":"/i.png","bytes":150000,"type":"image","parent":"doc"}]}
        """
        try scenario.write(toFile: dir + "/s.json", atomically: true, encoding: .utf8)
        try scenario.replacingOccurrences(of: "150000", with: "150001").write(toFile: dir + "/wrong.json", atomically: true, encoding: .utf8)
        let port = 20_000 + Int.random(in: 0..<2000)
        let serve = Process()
        serve.executableURL = URL(fileURLWithPath: NetbenchBinary.path)
        serve.arguments = ["serve", dir + "/s.json", "-t", "h2", "-l", "127.0.0.1:\(port)", "--ca-out", dir + "/ca.pem"]
        serve.standardOutput = FileHandle.nullDevice
        serve.standardError = FileHandle.nullDevice
        try serve.run()
        defer { serve.terminate(); serve.waitUntilExit() }
        XCTAssertTrue(waitForFile(dir + "/ca.pem"), "netbench serve wrote no CA")
        // A second CA nobody uses for the bad-certificate case.
        let other = Process()
        other.executableURL = URL(fileURLWithPath: NetbenchBinary.path)
        other.arguments = ["serve", dir + "/s.json", "-t", "h1", "-l", "127.0.0.1:\(port + 1)", "--ca-out", dir + "/other.pem"]
        other.standardOutput = FileHandle.nullDevice
        other.standardError = FileHandle.nullDevice
        try other.run()
        defer { other.terminate(); other.waitUntilExit() }
        XCTAssertTrue(waitForFile(dir + "/other.pem"))

        let server = "127.0.0.1:\(port)"
        let ok = try run(["run", dir + "/s.json", "--server", server, "--ca", dir + "/ca.pem", "-t", "h1,h2", "-n", "2", "-o", dir + "/ok", "-q"])
        XCTAssertEqual(ok.status, 0, ok.err)
        let results = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/ok/results.json"))) as? [String: Any]
        let runs = try XCTUnwrap(results?["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.count, 4)
        for r in runs {
            XCTAssertEqual(r["profile"] as? String, "network")
            XCTAssertEqual(r["status"] as? String, "ok")
            let bytes = (r["requests"] as? [[String: Any]])?.compactMap { ($0["bytes"] as? NSNumber)?.intValue }.reduce(0, +)
            XCTAssertEqual(bytes, 180_000)
        }

        let bad = try run(["run", dir + "/s.json", "--server", server, "--ca", dir + "/other.pem", "-t", "h2", "-n", "1", "-o", dir + "/bad", "-q"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.err.contains("'a.example'") && bad.err.contains("verif"), bad.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/bad/runs.jsonl"), "no run before the certificate check")

        let wrong = try run(["run", dir + "/wrong.json", "--server", server, "--ca", dir + "/ca.pem", "-t", "h2", "-n", "1", "-o", dir + "/wrong", "-q"])
        XCTAssertEqual(wrong.status, 2)
        let log = (try? String(contentsOfFile: dir + "/wrong/runs.jsonl", encoding: .utf8)) ?? ""
        XCTAssertTrue(log.contains("/i.png") && log.contains("150001"), log)
    }

    /// nginx serving `scenario export` output on loopback, loaded by `run --server` over h1 and h2.
    func testRunAgainstNginxExport() throws {
        guard let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return XCTFail("nginx is not installed (scripts/bootstrap.sh --test installs it)")
        }
        let dir = NSTemporaryDirectory() + "netbench-remote-nginx-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = 22_000 + Int.random(in: 0..<2000)
        let scenario = NetbenchBinary.root + "/Scenarios/pages/small-page.json"
        let export = try run(["scenario", "export", scenario, "-o", dir, "--port", String(port)])
        XCTAssertEqual(export.status, 0, export.err)
        try FileManager.default.createDirectory(atPath: dir + "/logs", withIntermediateDirectories: true)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: nginx)
        p.arguments = ["-c", dir + "/nginx.conf", "-p", dir, "-g", "daemon off;"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { p.terminate(); p.waitUntilExit() }
        usleep(500_000)
        let r = try run(["run", scenario, "--server", "127.0.0.1:\(port)", "--ca", dir + "/tls/ca.pem", "-t", "h1,h2", "-n", "2", "-o", dir + "/out", "-q"])
        XCTAssertEqual(r.status, 0, r.err)
        let results = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/out/results.json"))) as? [String: Any]
        let runs = try XCTUnwrap(results?["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.count, 4)
        XCTAssertTrue(runs.allSatisfy { $0["status"] as? String == "ok" && $0["profile"] as? String == "network" }, "\(runs.map { $0["error"] ?? "" })")
    }

    private func waitForFile(_ path: String) -> Bool {
        for _ in 0..<100 { if FileManager.default.fileExists(atPath: path) { usleep(100_000); return true }; usleep(50_000) }
        return false
    }

    private func run(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: NetbenchBinary.path)
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }
}
