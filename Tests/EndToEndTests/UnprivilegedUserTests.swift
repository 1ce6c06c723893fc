import XCTest
import Foundation
import TestSupport

/// The built binary run as an unprivileged user (`nobody`, through util-linux's setpriv) on
/// loopback: a congestion control the kernel refuses that user stops the run before the first one,
/// naming the setting and the way past it (exit 77); an allowed one runs; an h3-only run opens no
/// TCP socket, so it needs no allowed congestion control at all.
final class UnprivilegedUserTests: XCTestCase {
    /// A copy of the binary and the page any user can read, in a fresh directory under /tmp (the
    /// checkout may sit where `nobody` cannot reach it).
    private func stage() throws -> (dir: String, binary: String, page: String) {
        let dir = NSTemporaryDirectory() + "netbench-nobody-\(UUID().uuidString)"
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try fm.copyItem(atPath: try NetbenchBinary.path, toPath: dir + "/netbench")
        try fm.copyItem(atPath: packageRoot + "/Scenarios/pages/small-page.json", toPath: dir + "/page.json")
        try fm.setAttributes([.posixPermissions: 0o777], ofItemAtPath: dir)
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir + "/netbench")
        try fm.setAttributes([.posixPermissions: 0o644], ofItemAtPath: dir + "/page.json")
        return (dir, dir + "/netbench", dir + "/page.json")
    }

    private func runAsNobody(_ args: [String]) throws -> (status: Int32, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "--"] + args
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testALoopbackRunAsNobodySaysWhichCongestionControlToPickAndRunsWithIt() throws {
        try requireRoot("drops to the user nobody with setpriv, which needs root")
        try require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "setpriv (util-linux) missing")
        let (dir, binary, page) = try stage()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let allowedText =
            (try? String(
                contentsOfFile: "/proc/sys/net/ipv4/tcp_allowed_congestion_control",
                encoding: .utf8)) ?? ""
        let allowed = allowedText.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let base = [binary, "run", page, "-p", "loopback", "-t", "h2,h3", "-n", "1", "-q"]

        let cubic = try runAsNobody(base + ["-o", dir + "/cubic"])
        if allowed.contains("cubic") {
            XCTAssertEqual(cubic.status, 0, cubic.stderr)
        } else {
            XCTAssertEqual(cubic.status, 77, cubic.stderr)
            XCTAssertTrue(
                cubic.stderr.contains("'cubic' is refused") && cubic.stderr.contains("--tcp-cc"), cubic.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/cubic/runs.jsonl"), "stopped before a run")
        }
        let pick = try XCTUnwrap(allowed.first { $0 == "bbr" } ?? allowed.first, "no allowed congestion control")
        let ok = try runAsNobody(base + ["--tcp-cc", pick, "-o", dir + "/allowed"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        let results = try String(contentsOfFile: dir + "/allowed/results.json", encoding: .utf8)
        XCTAssertTrue(results.contains("\"status\" : \"ok\""), "runs as nobody with --tcp-cc \(pick)")
    }

    /// h3 only with the built-in client: no TCP listener, no TCP_CONGESTION, and the RTT of the ideal
    /// from UDP echoes, so `nobody` runs it without --tcp-cc whatever the allowed list holds (on a
    /// machine that refuses cubic to users, this run used to stop with EPERM from setsockopt).
    func testAnH3OnlyLoopbackRunAsNobodyNeedsNoCongestionControl() throws {
        try requireRoot("drops to the user nobody with setpriv, which needs root")
        try require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "setpriv (util-linux) missing")
        let (dir, binary, page) = try stage()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let args = [binary, "run", page, "-p", "loopback", "-t", "h3", "-n", "1", "-q", "-o", dir + "/h3"]
        let h3 = try runAsNobody(args)
        XCTAssertEqual(h3.status, 0, h3.stderr)
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/h3/results.json"))
        let results = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let runs = try XCTUnwrap(results["runs"] as? [[String: Any]], "results.json has runs")
        XCTAssertFalse(runs.isEmpty)
        for run in runs {
            XCTAssertEqual(run["status"] as? String, "ok", "\(run["error"] ?? "")")
            let metrics = try XCTUnwrap(run["metrics"] as? [String: Any])
            let rtt = try XCTUnwrap(metrics["rttMs"] as? Double, "an RTT recorded without TCP")
            XCTAssertGreaterThan(rtt, 0)
            XCTAssertTrue((metrics["rttSource"] as? String)?.contains("UDP echoes") == true, "\(metrics)")
            XCTAssertNotNil(metrics["idealPltMs"] as? Double, "\(metrics["idealNote"] ?? "")")
        }
    }
}
