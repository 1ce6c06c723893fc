import Foundation
import XCTest
import TestSupport

/// `netbench report --push` against the real Pushgateway of Debian's `prometheus-pushgateway`
/// package (scripts/bootstrap.sh --test), started here on a free loopback port, queried back with
/// GET /metrics, and stopped by its PID.
final class PushgatewayTests: XCTestCase {
    func get(_ url: String) throws -> ToolOutcome { try curl([url]) }

    func startPushgateway(port: UInt16, dataFile: String) throws {
        let path = ["/usr/bin/prometheus-pushgateway", "/usr/sbin/prometheus-pushgateway"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let path else {
            try missingPrerequisite("prometheus-pushgateway is not installed (scripts/bootstrap.sh --test)")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = ["--web.listen-address=127.0.0.1:\(port)", "--persistence.file=\(dataFile)"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        let pid = p.processIdentifier
        addTeardownBlock {
            kill(pid, SIGTERM); p.waitUntilExit()
        }
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
            guard !line.hasPrefix("#"), let open = line.firstIndex(of: "{"), let close = line.lastIndex(of: "}") else {
                return nil
            }
            let labels = line[line.index(after: open)..<close].split(separator: ",").map(String.init)
            return (
                String(line[..<open]), Set(labels),
                String(line[line.index(after: close)...].trimmingCharacters(in: .whitespaces))
            )
        }
    }

    func testPushedMetricsReadBackFromTheRealPushgateway() throws {
        let dir = NSTemporaryDirectory() + "netbench-push-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        // A real run (loopback), labelled; its directory records the checkout's commit.
        let run = try netbench([
            "run", Fixture.path("small-page.json"), "-t", "h1,h2", "-n", "2",
            "--label", "ci main", "-o", dir + "/run", "--quiet",
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let written = try netbench(["report", dir + "/run", "--format", "prometheus", "-o", dir + "/out"])
        XCTAssertEqual(written.status, 0, written.stderr)
        let ours = samples(try String(contentsOfFile: dir + "/out/metrics.prom", encoding: .utf8))
        XCTAssertEqual(ours.count, 2 * 6, "six families × two transports")
        XCTAssertTrue(
            ours.allSatisfy { $0.labels.contains { $0.hasPrefix("commit=\"") } },
            "the run was made inside a git checkout")

        let port = try freePort()
        try startPushgateway(port: port, dataFile: dir + "/pushgateway.data")
        let push = try netbench(["report", dir + "/run", "--push", "http://127.0.0.1:\(port)"])
        XCTAssertEqual(push.status, 0, push.stderr)
        // "ci main" has a space: the label goes into the path base64url-encoded.
        XCTAssertTrue(
            push.stdout.contains("/metrics/job/netbench/suite/small-page/label@base64/Y2kgbWFpbg=="), push.stdout)

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
        let r = try netbench([
            "report", packageRoot + "/Tests/ReportersTests/Fixtures/golden/results.json",
            "--push", "http://127.0.0.1:\(port)",
        ])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("http://127.0.0.1:\(port)/metrics/job/netbench/suite/demo"), r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot connect"), r.stderr)
    }

    func testPushURLOtherThanHTTPIsAUsageError() throws {
        let r = try netbench([
            "report", packageRoot + "/Tests/ReportersTests/Fixtures/golden/results.json",
            "--push", "https://example.org",
        ])
        XCTAssertEqual(r.status, 64, r.stderr)
    }
}
