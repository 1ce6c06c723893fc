import Foundation
import XCTest
import TLS
import TestSupport

/// `netbench perf` (draft-banks-quic-performance-00) against itself and against an independent
/// perf peer written on aioquic (Tests/Support/aioquic_perf.py; aioquic is installed by
/// scripts/bootstrap.sh --test), both directions, with exact byte counts on both ends.
final class PerfInteropTests: XCTestCase {
    var venv: String {
        ProcessInfo.processInfo.environment["NETBENCH_AIOQUIC_VENV"] ?? packageRoot + "/.build-venv"
    }
    let peer = packageRoot + "/Tests/Support/aioquic_perf.py"

    func requireAioquic() throws -> String {
        let python = venv + "/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python),
            (try? Self.execute(python, ["-c", "import aioquic"]).status) == 0
        else {
            // Under CI the bootstrap must have installed it: a skip there would hide a missing step.
            try missingPrerequisite("aioquic not installed at \(venv) (run scripts/bootstrap.sh --test)")
        }
        return python
    }

    func testNetbenchClientAgainstNetbenchServer() throws {
        let dir = try tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try startNetbenchServer(caOut: dir + "/ca.pem")
        defer { server.stop() }
        let r = try Self.execute(
            try NetbenchBinary.path,
            [
                "perf", "--server", "localhost:\(server.port)", "--ca", dir + "/ca.pem", "--download", "3000000",
                "--upload", "1000001", "--streams", "3", "--json",
            ])
        XCTAssertEqual(r.status, 0, r.output + r.error)
        let json = try decode(r.output)
        XCTAssertEqual(json["bytesReceived"] as? Int, 3_000_000, r.output)
        XCTAssertEqual(json["bytesUploaded"] as? Int, 1_000_001, r.output)
        XCTAssertEqual(json["completed"] as? Bool, true, r.output)
        XCTAssertEqual(json["draft"] as? String, "draft-banks-quic-performance-00")
        let summary = server.stop()
        XCTAssertTrue(
            summary.contains("3 streams answered, 3000000 bytes requested, 1000001 bytes uploaded"), summary)
    }

    /// aioquic's client asks netbench's server: every stream's bytes come back exactly, and the
    /// server counts every upload byte.
    func testAioquicClientAgainstNetbenchServer() throws {
        let python = try requireAioquic()
        let dir = try tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try startNetbenchServer(caOut: dir + "/ca.pem")
        defer { server.stop() }
        let streams = [(1_000_000, 0), (0, 200_000), (12_345, 54_321), (0, 0), (65_536, 1)]
        let r = try Self.execute(
            python,
            [peer, "client", "127.0.0.1:\(server.port)", "--ca-certs", dir + "/ca.pem", "--server-name", "localhost"]
                + streams.flatMap { ["--stream", "\($0.0):\($0.1)"] })
        XCTAssertEqual(r.status, 0, r.output + r.error)
        let lines = r.output.split(separator: "\n").compactMap { try? decode(String($0)) }
        XCTAssertEqual(lines.count, streams.count, r.output + r.error)
        for (line, s) in zip(lines, streams) {
            XCTAssertEqual(line["received"] as? Int, s.0, r.output)
            XCTAssertEqual(line["requested"] as? Int, s.0, r.output)
        }
        let requested = streams.reduce(0) { $0 + $1.0 }, uploaded = streams.reduce(0) { $0 + $1.1 }
        let summary = server.stop()
        XCTAssertTrue(
            summary.contains(
                "\(streams.count) streams answered, \(requested) bytes requested, \(uploaded) bytes uploaded"),
            summary)
    }

    /// netbench's client asks aioquic's server: the bytes arrive exactly and aioquic saw each
    /// stream's size and upload exactly.
    func testNetbenchClientAgainstAioquicServer() throws {
        let python = try requireAioquic()
        let dir = try tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ca = try CertificateAuthority(commonName: "perf interop CA")
        let leaf = try ca.issue(hostNames: ["localhost", "127.0.0.1"])
        try ca.certificatePEM.write(toFile: dir + "/ca.pem", atomically: true, encoding: .utf8)
        try leaf.certificateChainPEM.write(toFile: dir + "/cert.pem", atomically: true, encoding: .utf8)
        try leaf.privateKeyPEM.write(toFile: dir + "/key.pem", atomically: true, encoding: .utf8)
        let server = try Background(
            python,
            [
                peer, "server", "--listen", "127.0.0.1:0", "--certificate", dir + "/cert.pem",
                "--private-key", dir + "/key.pem",
            ], until: #"listening 127\.0\.0\.1:(\d+)"#)
        defer { server.stop() }
        let r = try Self.execute(
            try NetbenchBinary.path,
            [
                "perf", "--server", "127.0.0.1:\(server.port)", "--server-name", "localhost", "--ca", dir + "/ca.pem",
                "--download", "2000001", "--upload", "700001", "--streams", "2", "--json",
            ])
        XCTAssertEqual(r.status, 0, r.output + r.error)
        let json = try decode(r.output)
        XCTAssertEqual(json["bytesReceived"] as? Int, 2_000_001, r.output)
        XCTAssertEqual(json["completed"] as? Bool, true, r.output)
        let log = server.stop()
        let lines = log.split(separator: "\n").compactMap { try? decode(String($0)) }
        XCTAssertEqual(lines.count, 2, log)
        // --download and --upload are split evenly, the first stream taking the odd byte.
        XCTAssertEqual(Set(lines.compactMap { $0["requested"] as? Int }), [1_000_001, 1_000_000], log)
        XCTAssertEqual(Set(lines.compactMap { $0["uploaded"] as? Int }), [350_001, 350_000], log)
    }

    /// Without a server: an in-process perf server and, with --compare-h3, an HTTP/3 one on loopback;
    /// both bring every byte, 2 streams each.
    func testInProcessCompareH3OnLoopback() throws {
        let r = try Self.execute(
            try NetbenchBinary.path, ["perf", "--download", "1000000", "--streams", "2", "--compare-h3", "--json"])
        XCTAssertEqual(r.status, 0, r.output + r.error)
        let lines = r.output.split(separator: "\n").compactMap { try? decode(String($0)) }
        XCTAssertEqual(lines.map { $0["protocolName"] as? String }, ["perf", "h3"], r.output)
        for line in lines {
            XCTAssertEqual(line["bytesReceived"] as? Int, 1_000_000, r.output)
            XCTAssertEqual(line["completed"] as? Bool, true, r.output)
            XCTAssertEqual(line["streams"] as? Int, 2, r.output)
        }
    }

    /// -p: both transfers cross the emulated link (5 Mbit/s, 28 ms): each takes at least the bytes'
    /// serialization time, and the namespaces are gone afterwards.
    func testThroughEmulatedProfile() throws {
        try requireRoot()
        let r = try Self.execute(
            try NetbenchBinary.path, ["perf", "-p", "Cable", "--download", "300000", "--compare-h3", "--json"])
        XCTAssertEqual(r.status, 0, r.output + r.error)
        let lines = r.output.split(separator: "\n").compactMap { try? decode(String($0)) }
        XCTAssertEqual(lines.count, 2, r.output)
        for line in lines {
            XCTAssertEqual(line["bytesReceived"] as? Int, 300_000, r.output)
            // 300 kB at 5 Mbit/s: 0.48 s on the wire at least.
            XCTAssertGreaterThan(line["transferSeconds"] as? Double ?? 0, 0.45, r.output)
            XCTAssertLessThan(line["downloadMbps"] as? Double ?? 99, 5.01, r.output)
        }
        // netbench names its namespaces nb-PID-…; other processes' may come and go meanwhile.
        let left = try Self.execute("/usr/sbin/ip", ["netns", "list"]).output
        XCTAssertFalse(left.contains("nb-\(r.pid)-"), left)
    }

    /// More streams than the server's initial stream limit (100): it hands the credit back as each
    /// closes, and every stream's bytes arrive.
    func testMoreStreamsThanTheServersStreamLimit() throws {
        let r = try Self.execute(
            try NetbenchBinary.path,
            ["perf", "--streams", "250", "--download", "2500003", "--upload", "250001", "--json"])
        XCTAssertEqual(r.status, 0, r.output + r.error)
        let json = try decode(r.output)
        XCTAssertEqual(json["bytesReceived"] as? Int, 2_500_003, r.output)
        XCTAssertEqual(json["bytesUploaded"] as? Int, 250_001, r.output)
        XCTAssertEqual(json["streams"] as? Int, 250, r.output)
    }

    func testUsageErrors() throws {
        let bin = try NetbenchBinary.path
        let upload = try Self.execute(bin, ["perf", "--compare-h3", "--upload", "1"])
        XCTAssertEqual(upload.status, 64, upload.error)
        XCTAssertTrue(upload.error.contains("--upload 0"), upload.error)
        let remote = try Self.execute(bin, ["perf", "--server", "127.0.0.1:1", "-p", "Cable"])
        XCTAssertEqual(remote.status, 64, remote.error)
        let both = try Self.execute(bin, ["perf", "--listen", "127.0.0.1:0", "--server", "127.0.0.1:1"])
        XCTAssertEqual(both.status, 64, both.error)
        let size = try Self.execute(bin, ["perf", "--server", "127.0.0.1:1", "--download", "lots"])
        XCTAssertEqual(size.status, 64, size.error)
        XCTAssertTrue(size.error.contains("lots"), size.error)
    }

    /// Nothing listens: the client gives up at --timeout with exit 2, naming the server.
    func testNoServerTimesOut() throws {
        let r = try Self.execute(
            try NetbenchBinary.path, ["perf", "--server", "127.0.0.1:9", "--timeout", "1s", "--download", "10"])
        XCTAssertEqual(r.status, 2, r.output + r.error)
        XCTAssertTrue(r.output.contains("FAILED") && r.error.contains("127.0.0.1:9"), r.output + r.error)
    }

    // MARK: Helpers

    func tempDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "netbench-perf-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    func decode(_ text: String) throws -> [String: Any] {
        let line = text.split(separator: "\n").last.map(String.init) ?? ""
        guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw NSError(domain: "perf", code: 1, userInfo: [NSLocalizedDescriptionKey: "not JSON: \(text)"])
        }
        return o
    }

    func startNetbenchServer(caOut: String) throws -> Background {
        try Background(
            try NetbenchBinary.path, ["perf", "--listen", "127.0.0.1:0", "--ca-out", caOut],
            until: #"127\.0\.0\.1:(\d+) \(UDP\)"#, stopSignal: SIGINT)
    }

    static func execute(_ path: String, _ args: [String]) throws -> (
        status: Int32, output: String, error: String, pid: Int32
    ) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        let out = Pipe()
        // Standard error to a file: two pipes read one after the other could block the child.
        let errPath = NSTemporaryDirectory() + "netbench-perf-err-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errPath) }
        p.standardOutput = out
        p.standardError = FileHandle(forWritingAtPath: errPath)
        try p.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let errData = FileManager.default.contents(atPath: errPath) ?? Data()
        return (
            p.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self),
            p.processIdentifier
        )
    }

    /// A server process started by this test, stopped by its PID; `port` from its banner.
    final class Background {
        let process = Process()
        let out = Pipe()
        var port = 0
        var banner = ""
        let stopSignal: Int32
        private var stopped: String?

        init(_ path: String, _ args: [String], until pattern: String, stopSignal: Int32 = SIGTERM) throws {
            self.stopSignal = stopSignal
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = args
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                if let range = banner.range(of: pattern, options: .regularExpression) {
                    let match = String(banner[range])
                    port = Int(match.split(separator: ":").last!.prefix { $0.isNumber }) ?? 0
                    return
                }
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                banner += String(decoding: chunk, as: UTF8.self)
            }
            stop()
            throw NSError(domain: "perf", code: 2, userInfo: [NSLocalizedDescriptionKey: "no banner: \(banner)"])
        }

        /// Signals the process (once) and returns everything it printed.
        @discardableResult
        func stop() -> String {
            if let stopped { return stopped }
            if process.isRunning { kill(process.processIdentifier, stopSignal) }
            let rest = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            stopped = banner + String(decoding: rest, as: UTF8.self)
            return stopped!
        }
    }
}
