import Foundation
import XCTest
import TestSupport

/// `run --link-log DIR` onto a filesystem too small for the logs (a tmpfs of 16 KB in a private
/// mount namespace): the link log stops with one notice, and every run goes on and succeeds.
final class LinkLogFullDiskTests: XCTestCase {
    func testAFullLogDirectoryStopsTheLogNotTheRuns() throws {
        try requireRoot("mounting a tmpfs and emulated profiles need root")
        guard
            let unshare = ["/usr/bin/unshare", "/bin/unshare"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            try missingPrerequisite("unshare (util-linux) is not installed")
        }
        let base = NSTemporaryDirectory() + "netbench-linklogfull-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: base + "/mnt", withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: base) }
        // The first run's two logs hold more than 16 KB ('#' lines alone: ~400 a second at 5 Mbit/s): its
        // log fails when written at stop.
        let body = """
            set -u
            mount -t tmpfs -o size=16k tmpfs "$MNT" || exit 90
            "$NB" run \(ServedNetbench.scenario) -p Cable -t h2 -n 3 --timeout 30s --link-log "$MNT" -o "$OUT" -q
            echo $? > "$OUT.status"
            ls "$MNT" > "$OUT.listing"
            """
        let outcome = try execute(
            unshare,
            [
                "--mount", "--propagation", "private", "/usr/bin/env",
                "MNT=\(base)/mnt", "OUT=\(base)/out", "NB=\(try NetbenchBinary.path)", "/bin/sh", "-c", body,
            ],
            timeout: 120)
        XCTAssertNotEqual(outcome.status, 90, "could not mount a tmpfs: \(outcome.stderr)")
        let status = try String(contentsOfFile: base + "/out.status", encoding: .utf8)
        XCTAssertEqual(status, "0\n", outcome.stderr)
        let lines = outcome.stderr.split(separator: "\n").filter { !$0.contains("warning: another netbench run") }
        XCTAssertEqual(lines.count, 1, outcome.stderr)
        XCTAssertTrue(
            lines.first?.contains("--link-log: link log stopped: writing \(base)/mnt/") ?? false, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("later runs are not logged"), outcome.stderr)
        let log = try String(contentsOfFile: base + "/out/runs.jsonl", encoding: .utf8)
        let runs = log.split(separator: "\n").dropFirst()
        XCTAssertEqual(runs.count, 3)
        XCTAssertTrue(runs.allSatisfy { $0.contains(#""status":"ok""#) }, log)
        XCTAssertEqual(runs.filter { $0.contains("\"linkLog\"") }.count, 1, "only the first run logged: \(log)")
        let listing = try String(contentsOfFile: base + "/out.listing", encoding: .utf8)
        XCTAssertFalse(listing.contains("run1"), "no files of later runs: \(listing)")
    }
}
