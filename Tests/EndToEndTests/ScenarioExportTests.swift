import Foundation
import XCTest
import TestSupport

/// `netbench scenario export` with the built binary, served by a real nginx (Debian's), fetched by curl:
/// every resource at its path with its exact size, over h1 and h2, trusted through the exported CA.
final class ScenarioExportEndToEndTests: XCTestCase {
    func testExportedScenarioIsServedByNginxWithExactSizes() throws {
        guard
            let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            return XCTFail("nginx is not installed (scripts/bootstrap.sh --test installs it)")
        }
        let dir = NSTemporaryDirectory() + "netbench-export-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = 18_000 + Int.random(in: 0..<2000)
        let scenario = packageRoot + "/Scenarios/pages/small-page.json"
        let export = try run(NetbenchBinary.path, ["scenario", "export", scenario, "-o", dir, "--port", String(port)])
        XCTAssertEqual(export.status, 0, export.err)
        XCTAssertTrue(try String(contentsOfFile: dir + "/EXPORT.txt", encoding: .utf8).contains("think times"))

        // nginx in the foreground, as a child this test stops by its PID (a daemonized nginx leaves
        // Foundation's Process waiting on a grandchild).
        let nginxProcess = Process()
        nginxProcess.executableURL = URL(fileURLWithPath: nginx)
        nginxProcess.arguments = ["-c", dir + "/nginx.conf", "-p", dir, "-g", "daemon off;"]
        nginxProcess.standardOutput = FileHandle.nullDevice
        nginxProcess.standardError = FileHandle.nullDevice
        try nginxProcess.run()
        defer { nginxProcess.terminate(); nginxProcess.waitUntilExit() }
        XCTAssertTrue(
            waitForPort(UInt16(port)),
            "nginx did not listen on \(port): "
                + ((try? String(contentsOfFile: dir + "/logs/error.log", encoding: .utf8)) ?? ""))
        let json =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scenario))) as! [String: Any]
        let hosts = Dictionary(
            uniqueKeysWithValues: (json["origins"] as! [[String: Any]]).map {
                ($0["id"] as! String, $0["host"] as! String)
            })
        for (i, r) in (json["resources"] as! [[String: Any]]).enumerated() {
            let host = hosts[r["origin"] as! String]!
            let url = "https://\(host):\(port)\(r["path"] as! String)"
            let version = i % 2 == 0 ? "--http2" : "--http1.1"
            let got = try run(
                "/usr/bin/curl",
                [
                    "-s", "-o", "/dev/null", version, "--cacert", dir + "/tls/ca.pem",
                    "--resolve", "\(host):\(port):127.0.0.1", "-w", "%{http_code} %{size_download}", url,
                ])
            XCTAssertEqual(got.out, "200 \(r["bytes"] as! Int)", "\(url) over \(version)")
        }
    }

    private func waitForPort(_ port: UInt16) -> Bool {
        for _ in 0..<100 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = port.bigEndian
            addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let ok = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(fd)
            if ok { return true }
            usleep(50_000)
        }
        return false
    }

    private func run(_ path: String, _ args: [String]) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
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
