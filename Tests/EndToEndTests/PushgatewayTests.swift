import Foundation
import XCTest
import TestSupport

/// `netbench report --push` against the real Pushgateway of Debian's `prometheus-pushgateway`
/// package (scripts/bootstrap.sh --test), started here on a free loopback port, queried back with
/// GET /metrics, and stopped by its PID.
final class PushgatewayTests: XCTestCase {
    struct Outcome { var status: Int32; var stdout: String; var stderr: String }

    func execute(_ path: String, _ args: [String], timeout: TimeInterval = 300) throws -> Outcome {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        p.currentDirectoryURL = URL(fileURLWithPath: NetbenchBinary.root)
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let outData = DataBox(), errData = DataBox()
        let group = DispatchGroup()
        group.enter(); DispatchQueue.global().async { outData.data = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter(); DispatchQueue.global().async { errData.data = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        if p.isRunning { p.terminate(); p.waitUntilExit(); XCTFail("\(path) \(args) timed out") }
        group.wait()
        p.waitUntilExit()
        return Outcome(status: p.terminationStatus, stdout: String(decoding: outData.data, as: UTF8.self),
                       stderr: String(decoding: errData.data, as: UTF8.self))
    }

    func netbench(_ args: [String]) throws -> Outcome {
        guard FileManager.default.isExecutableFile(atPath: NetbenchBinary.path) else {
            try missingPrerequisite("netbench binary not built at \(NetbenchBinary.path): run `swift build` first")
        }
        return try execute(NetbenchBinary.path, args)
    }

    /// A loopback TCP port nobody listens on now (bound to port 0, read back, closed).
    func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        XCTAssertTrue(bound)
        return UInt16(bigEndian: addr.sin_port)
    }

    func get(_ url: String) throws -> Outcome {
        let curl = ["/usr/bin/curl", "/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let curl else { try missingPrerequisite("curl is not installed (scripts/bootstrap.sh --test)") }
        return try execute(curl, ["-sS", "--max-time", "10", url], timeout: 20)
    }

    /// Starts the Pushgateway on `port`, waits until it answers, and stops it (SIGTERM to its PID) at teardown.
    func startPushgateway(port: UInt16, dataFile: String) throws {
        let path = ["/usr/bin/prometheus-pushgateway", "/usr/sbin/prometheus-pushgateway"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else { try missingPrerequisite("prometheus-pushgateway is not installed (scripts/bootstrap.sh --test)") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = ["--web.listen-address=127.0.0.1:\(port)", "--persistence.file=\(dataFile)"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        let pid = p.processIdentifier
        addTeardownBlock { kill(pid, SIGTERM); p.waitUntilExit() }
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let r = try? get("http://127.0.0.1:\(port)/-/ready"), r.status == 0, r.stdout.contains("OK") { return }
            XCTAssertTrue(p.isRunning, "prometheus-pushgateway exited with \(p.isRunning ? 0 : p.terminationStatus)")
            if !p.isRunning { return }
            usleep(100_000)
        }
        XCTFail("prometheus-pushgateway did not become ready on 127.0.0.1:\(port) within 20 s")
    }

    /// Samples of the exposition text: `name{labels}` → value, labels as a set of `k="v"`.
    func samples(_ text: String) -> [(name: String, labels: Set<String>, value: String)] {
        text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), let open = line.firstIndex(of: "{"), let close = line.lastIndex(of: "}") else { return nil }
            let labels = line[line.index(after: open)..<close].split(separator: ",").map(String.init)
            return (String(line[..<open]), Set(labels), String(line[line.index(after: close)...].trimmingCharacters(in: .whitespaces)))
        }
    }

    func testPushedMetricsReadBackFromTheRealPushgateway() throws {
        let dir = NSTemporaryDirectory() + "netbench-push-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        // A real run (loopback), labelled; its directory records the checkout's commit.
        let run = try netbench(["run", NetbenchBinary.root + "/Tests/Fixtures/small-page.json", "-t", "h1,h2", "-n", "2",
                                "--label", "ci main", "-o", dir + "/run", "--quiet"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let written = try netbench(["report", dir + "/run", "--format", "prometheus", "-o", dir + "/out"])
        XCTAssertEqual(written.status, 0, written.stderr)
        let ours = samples(try String(contentsOfFile: dir + "/out/metrics.prom", encoding: .utf8))
        XCTAssertEqual(ours.count, 2 * 6, "six families × two transports")
        XCTAssertTrue(ours.allSatisfy { $0.labels.contains { $0.hasPrefix("commit=\"") } }, "the run was made inside a git checkout")

        let port = try freePort()
        try startPushgateway(port: port, dataFile: dir + "/pushgateway.data")
        let push = try netbench(["report", dir + "/run", "--push", "http://127.0.0.1:\(port)"])
        XCTAssertEqual(push.status, 0, push.stderr)
        // "ci main" has a space: the label goes into the path base64url-encoded.
        XCTAssertTrue(push.stdout.contains("/metrics/job/netbench/suite/small-page/label@base64/Y2kgbWFpbg=="), push.stdout)

        let back = try get("http://127.0.0.1:\(port)/metrics")
        XCTAssertEqual(back.status, 0, back.stderr)
        let theirs = samples(back.stdout).filter { $0.name.hasPrefix("netbench_") }
        XCTAssertEqual(theirs.count, ours.count, back.stdout)
        let grouping: Set<String> = ["job=\"netbench\"", "suite=\"small-page\"", "label=\"ci main\""]
        for s in ours {
            let match = theirs.first { $0.name == s.name && s.labels.isSubset(of: $0.labels) }
            XCTAssertNotNil(match, "\(s.name){\(s.labels.sorted())} not read back")
            guard let match else { continue }
            XCTAssertTrue(grouping.isSubset(of: match.labels), "grouping labels: \(match.labels.sorted())")
            XCTAssertEqual(Double(match.value), Double(s.value), s.name)
        }
    }

    func testPushToANonListeningPortIsARunFailure() throws {
        let port = try freePort()
        let r = try netbench(["report", NetbenchBinary.root + "/Tests/ReportersTests/Fixtures/golden/results.json",
                              "--push", "http://127.0.0.1:\(port)"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("http://127.0.0.1:\(port)/metrics/job/netbench/suite/demo"), r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot connect"), r.stderr)
    }

    func testPushURLOtherThanHTTPIsAUsageError() throws {
        let r = try netbench(["report", NetbenchBinary.root + "/Tests/ReportersTests/Fixtures/golden/results.json",
                              "--push", "https://example.org"])
        XCTAssertEqual(r.status, 64, r.stderr)
    }
}
