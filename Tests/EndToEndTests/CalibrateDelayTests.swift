import Foundation
import XCTest
import TestSupport

/// `netbench calibrate` on a profile with jitter and reordering: the delay check's table (configured,
/// configured + floor, measured) and its KS and reordering verdicts, per direction.
extension CommandLineTests {
    func testCalibrateChecksJitterAndReordering() throws {
        try requireRoot("calibrate needs root (network namespaces and TUN devices)")
        let dir = NSTemporaryDirectory() + "netbench-calibrate-delay-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let profile = dir + "/jitter.json"
        try (#"{"schemaVersion": 1, "name": "jitter", "rtt": "40ms", "down": "10Mbit", "up": "10Mbit", "#
            + #""downJitter": {"distribution": "normal", "deviation": "4ms"}, "downReorder": {"swap": "5%"}, "#
            + #""upJitter": {"deviation": "5ms", "reorder": true}}"#)
            .write(toFile: profile, atomically: true, encoding: .utf8)
        let r = try netbench(
            [
                "calibrate", "--profile", profile, "--samples", "10", "--no-goodput", "--page-loads", "0",
                "--delay-probes", "800",
            ], timeout: 180)
        // 0: every target met; 2: one missed on this (shared) machine. Both print every check.
        XCTAssertTrue([0, 2].contains(r.status), "exit \(r.status): \(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        for label in ["configured (model)", "configured + floor", "measured"] {
            let rows = lines.filter { $0.contains(label + "  ") }
            XCTAssertEqual(rows.count, 2, "\(label) once per direction:\n\(r.stdout)")
        }
        XCTAssertEqual(lines.filter { $0.contains("KS distance") && $0.contains("PASS") }.count, 2, r.stdout)
        let reordering = lines.filter { $0.contains("reordering configured") && $0.contains("PASS") }
        XCTAssertEqual(reordering.count, 2, r.stdout)
        XCTAssertTrue(r.stdout.contains("800/800 probes"), r.stdout)
        // The echoes' RTT varies by design here: not judged, so not a miss.
        XCTAssertFalse(r.stdout.contains("missed: RTT"), r.stdout)
        let skipped = try netbench(
            [
                "calibrate", "--profile", profile, "--samples", "10", "--no-goodput", "--page-loads", "0",
                "--delay-probes", "0",
            ], timeout: 120)
        XCTAssertFalse(skipped.stdout.contains("KS distance"), skipped.stdout)
    }
}
