import Foundation
import XCTest
import TestSupport

/// An independent HTTP/3 implementation (Python aioquic, installed by scripts/bootstrap.sh --test)
/// loads resources from `netbench serve --transport h3`, with exact byte counts.
final class InteropTests: XCTestCase {
    var venv: String {
        ProcessInfo.processInfo.environment["NETBENCH_AIOQUIC_VENV"] ?? packageRoot + "/.build-venv"
    }

    func requireAioquic() throws -> String {
        let client = venv + "/aioquic-examples/http3_client.py"
        guard FileManager.default.fileExists(atPath: client),
            FileManager.default.isExecutableFile(atPath: venv + "/bin/python")
        else {
            // In CI the bootstrap must have installed it: a skip there would hide a missing install step.
            try missingPrerequisite("aioquic not installed at \(venv) (run scripts/bootstrap.sh --test)")
        }
        return client
    }

    func testAioquicClientLoadsFromNetbenchServeH3() throws {
        let client = try requireAioquic()
        let dir = NSTemporaryDirectory() + "netbench-interop-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/dl", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }

        let (serve, authority) = try startServe(transports: "h3", caOut: dir + "/ca.pem", until: "(UDP)")
        defer { serve.interrupt(); serve.waitUntilExit() }

        let py = Process()
        py.executableURL = URL(fileURLWithPath: venv + "/bin/python")
        py.arguments = [
            client, "--ca-certs", dir + "/ca.pem", "--output-dir", dir + "/dl",
            "https://\(authority)/app.js", "https://\(authority)/big.bin", "https://\(authority)/f.woff2",
        ]
        py.currentDirectoryURL = URL(fileURLWithPath: venv + "/aioquic-examples")
        let pyErr = Pipe()
        py.standardError = pyErr
        py.standardOutput = FileHandle.nullDevice
        try py.run()
        let log = pyErr.fileHandleForReading.readDataToEndOfFile()
        py.waitUntilExit()
        XCTAssertEqual(py.terminationStatus, 0, String(decoding: log, as: UTF8.self))
        let sizes = ["app.js": 300_000, "big.bin": 5_000_000, "f.woff2": 40_000]
        for (name, size) in sizes {
            let attrs = try? FileManager.default.attributesOfItem(atPath: dir + "/dl/" + name)
            XCTAssertEqual(
                (attrs?[.size] as? NSNumber)?.intValue, size,
                "\(name): \(String(decoding: log, as: UTF8.self).suffix(800))")
        }
    }

    /// `serve --transport h1,h2,h3` on one port: curl over HTTP/1.1 and HTTP/2 on TCP (each response
    /// advertising h3 on the same port), aioquic over HTTP/3 on UDP, exact sizes everywhere.
    func testServeAllThreeTransportsOnOnePort() throws {
        let client = try requireAioquic()
        let dir = NSTemporaryDirectory() + "netbench-oneport-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/dl", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (serve, authority) = try startServe(transports: "h1,h2,h3", caOut: dir + "/ca.pem", until: "(TCP + UDP)")
        defer { serve.interrupt(); serve.waitUntilExit() }
        let port = authority.split(separator: ":")[1]
        for version in ["--http1.1", "--http2"] {
            let curl = Process()
            curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            curl.arguments = [
                "-s", "-D", "-", "-o", "/dev/null", version, "--cacert", dir + "/ca.pem", "-w", "size=%{size_download}",
                "https://\(authority)/app.js",
            ]
            let o = Pipe()
            curl.standardOutput = o
            try curl.run()
            let text = String(decoding: o.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            curl.waitUntilExit()
            XCTAssertTrue(text.contains("size=300000"), "\(version): \(text)")
            XCTAssertTrue(text.lowercased().contains("alt-svc: h3=\":\(port)\""), "\(version): \(text)")
        }
        let py = Process()
        py.executableURL = URL(fileURLWithPath: venv + "/bin/python")
        py.arguments = [
            client, "--ca-certs", dir + "/ca.pem", "--output-dir", dir + "/dl", "https://\(authority)/app.js",
        ]
        py.currentDirectoryURL = URL(fileURLWithPath: venv + "/aioquic-examples")
        let pyErr = Pipe()
        py.standardError = pyErr
        py.standardOutput = FileHandle.nullDevice
        try py.run()
        let log = pyErr.fileHandleForReading.readDataToEndOfFile()
        py.waitUntilExit()
        XCTAssertEqual(py.terminationStatus, 0, String(decoding: log, as: UTF8.self))
        let attrs = try? FileManager.default.attributesOfItem(atPath: dir + "/dl/app.js")
        XCTAssertEqual(
            (attrs?[.size] as? NSNumber)?.intValue, 300_000,
            String(decoding: log, as: UTF8.self).suffix(800).description)
    }

    /// `netbench serve` of the small page on a free loopback port, once its banner line names the
    /// address (`... on 127.0.0.1:PORT (UDP)`); the process and `127.0.0.1:PORT`.
    func startServe(transports: String, caOut: String, until marker: String) throws -> (Process, String) {
        let serve = Process()
        serve.executableURL = URL(fileURLWithPath: try NetbenchBinary.path)
        serve.arguments = [
            "serve", Fixture.path("small-page.json"), "--transport", transports,
            "--listen", "127.0.0.1:0", "--ca-out", caOut,
        ]
        let out = Pipe()
        serve.standardOutput = out
        serve.standardError = FileHandle.nullDevice
        try serve.run()
        var banner = ""
        let deadline = Date().addingTimeInterval(30)
        while !banner.contains(marker) && Date() < deadline {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            banner += String(decoding: chunk, as: UTF8.self)
        }
        guard let range = banner.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression) else {
            serve.interrupt(); serve.waitUntilExit()
            XCTFail("no listening address in: \(banner)")
            throw CocoaError(.fileReadUnknown)
        }
        return (serve, String(banner[range]))
    }
}
