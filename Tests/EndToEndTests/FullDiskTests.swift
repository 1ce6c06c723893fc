import Foundation
import XCTest
#if canImport(Glibc)
    import Glibc
#endif
import TestSupport

/// `netbench run` (the built binary) writing onto a filesystem that fills up: a tmpfs of a few KB
/// mounted in a private mount namespace (`unshare --mount`), so it disappears with the namespace
/// even when a test fails. Pages come from `netbench serve` on loopback (`run --server`).
final class FullDiskTests: XCTestCase {
    /// What one script under `unshare --mount` left in `host` (a directory outside the tmpfs).
    private struct Outcome {
        var status: Int32
        var stderr: String
        var host: String
        func file(_ name: String) -> String { (try? String(contentsOfFile: host + "/" + name, encoding: .utf8)) ?? "" }
        /// netbench's own lines on standard error, without the warning that another run shares the CPUs.
        var errorLines: [String] {
            stderr.split(separator: "\n").map(String.init).filter { !$0.contains("warning: another netbench run") }
        }
    }

    /// Runs `script` with `$MNT` a fresh tmpfs of `size`, `$HOST` a directory outside it, `$NB`
    /// the netbench binary; `fill` first fills the tmpfs to the last block.
    private func underTinyFilesystem(size: String, fill: Bool, _ script: String) throws -> Outcome {
        try requireRoot("mounting a tmpfs needs root")
        guard
            let unshare = ["/usr/bin/unshare", "/bin/unshare"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            try missingPrerequisite("unshare (util-linux) is not installed")
        }
        let base = NSTemporaryDirectory() + "netbench-fulldisk-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: base + "/mnt", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: base + "/host", withIntermediateDirectories: true)
        let body = """
            set -u
            mount -t tmpfs -o size=\(size) tmpfs "$MNT" || exit 90
            \(fill ? #"dd if=/dev/zero of="$MNT/fill" bs=1k 2>/dev/null; true"# : "")
            \(script)
            """
        let binary = try NetbenchBinary.path
        let outcome = try execute(
            unshare,
            [
                "--mount", "--propagation", "private", "/usr/bin/env",
                "MNT=\(base)/mnt", "HOST=\(base)/host", "NB=\(binary)",
                "/bin/sh", "-c", body,
            ],
            timeout: 120)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: base) }
        XCTAssertNotEqual(outcome.status, 90, "could not mount a tmpfs: \(outcome.stderr)")
        return Outcome(status: outcome.status, stderr: outcome.stderr, host: base + "/host")
    }

    /// The disk fills while the suite runs: netbench stops with exit 2 and one line naming
    /// runs.jsonl, the error and how many runs are kept; the log ends with the last whole run
    /// (no cut-off line, no temporary file) and reads back with every one of them.
    func testFullDiskMidSuiteKeepsEveryWrittenRun() throws {
        let server = try ServedNetbench()
        defer { _ = server.stop() }
        let r = try underTinyFilesystem(
            size: "64k", fill: false,
            """
            "$NB" run \(ServedNetbench.scenario) --server 127.0.0.1:\(server.port) --ca \(server.dir)/ca.pem -t h2 -n \
            200 --timeout 30s -o "$MNT/out" -q
            echo $? > "$HOST/status"
            ls -A "$MNT/out" > "$HOST/listing"
            cp "$MNT/out/runs.jsonl" "$HOST/runs.jsonl"
            "$NB" report "$MNT/out" -f csv 2> "$HOST/report.err"
            echo $? > "$HOST/report.status"
            """)
        XCTAssertEqual(r.file("status"), "2\n", r.stderr)
        XCTAssertEqual(r.errorLines.count, 1, r.stderr)
        let line = r.errorLines.first ?? ""
        XCTAssertTrue(
            line.hasPrefix(
                "netbench run: \(r.host.replacingOccurrences(of: "/host", with: "/mnt"))/out/runs.jsonl: cannot append "
                    + "a run: No space left on device (errno 28); the "
            ), line)
        let kept = Int(line.components(separatedBy: "; the ").last?.split(separator: " ").first ?? "") ?? -1
        XCTAssertGreaterThan(kept, 0, line)
        XCTAssertEqual(r.file("listing"), "runs.jsonl\n", "nothing but the log (no temporary file left)")
        let log = r.file("runs.jsonl")
        XCTAssertTrue(log.hasSuffix("\n"), "the log ends with a whole line")
        XCTAssertEqual(log.split(separator: "\n").count, kept + 1, "a header and every run kept")
        // `netbench report` on the full disk fails the same way, naming the file it could not write.
        XCTAssertEqual(r.file("report.status"), "2\n")
        XCTAssertTrue(
            r.file("report.err").contains("/out/summary.csv: cannot write: No space left on device (errno 28)"),
            r.file("report.err"))
        // Elsewhere the log reads back whole: every run, no cut-off line.
        let report = try netbench(["report", r.host, "-f", "csv"])
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertFalse(report.stderr.contains("cut off"), report.stderr)
        let runs = (try? String(contentsOfFile: r.host + "/runs.csv", encoding: .utf8)) ?? ""
        XCTAssertEqual(runs.split(separator: "\n").count, kept + 1, runs)
    }

    /// A key log and a qlog directory on a full filesystem: the run that could not write them
    /// ends, then netbench stops with exit 2 naming the file; the runs so far are kept.
    func testKeyLogAndQlogOnAFullDisk() throws {
        let server = try ServedNetbench(transports: "h2,h3")
        defer { _ = server.stop() }
        let common =
            "\(ServedNetbench.scenario) --server 127.0.0.1:\(server.port) --ca \(server.dir)/ca.pem -n 3 --timeout 30s "
                + "-q"
        let r = try underTinyFilesystem(
            size: "16k", fill: true,
            """
            "$NB" run \(common) -t h2 --keylog "$MNT/keys.log" -o "$HOST/k" 2> "$HOST/k.err"
            echo $? > "$HOST/k.status"
            mkdir "$MNT/q"
            "$NB" run \(common) -t h3 --qlog "$MNT/q" -o "$HOST/q" 2> "$HOST/q.err"
            echo $? > "$HOST/q.status"
            """)
        let mnt = r.host.replacingOccurrences(of: "/host", with: "/mnt")
        for (name, what) in [("k", "key log file \(mnt)/keys.log"), ("q", "qlog file \(mnt)/q/client-")] {
            XCTAssertEqual(r.file(name + ".status"), "2\n", r.file(name + ".err"))
            let lines = r.file(name + ".err").split(separator: "\n").filter {
                !$0.contains("warning: another netbench run")
            }
            XCTAssertEqual(lines.count, 1, r.file(name + ".err"))
            XCTAssertTrue(lines.first?.hasPrefix("netbench run: \(what)") == true, "\(lines)")
            XCTAssertTrue(
                lines.first?.contains(
                    ": cannot write: No space left on device (errno 28); the runs so far are kept in "
                        + "\(r.host)/\(name)/runs.jsonl"
                ) == true, "\(lines)")
            let report = try netbench(["report", r.host + "/" + name, "-f", "csv"])
            XCTAssertEqual(report.status, 0, report.stderr)
            let runs = (try? String(contentsOfFile: r.host + "/\(name)/runs.csv", encoding: .utf8)) ?? ""
            XCTAssertEqual(runs.split(separator: "\n").count, 2, "the header and the one run that was made: \(runs)")
        }
    }

    /// The same through the emulator (profile FIOS, namespaces of its own): the disk fills after a
    /// few runs, netbench stops with the one line, the runs are kept, and its namespaces are gone.
    func testFullDiskDuringAnEmulatedSuiteRemovesItsNamespaces() throws {
        try require(
            FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip")
                || FileManager.default.isExecutableFile(atPath: "/sbin/ip"),
            "iproute2 (ip) is not installed")
        let r = try underTinyFilesystem(
            size: "64k", fill: false,
            """
            "$NB" run \(ServedNetbench.scenario) -p FIOS -t h2 -n 50 --timeout 30s -o "$MNT/out" -q &
            pid=$!
            wait $pid
            echo $? > "$HOST/status"
            echo $pid > "$HOST/pid"
            ip netns list | grep -c "^nb-$pid-" > "$HOST/left"
            cp "$MNT/out/runs.jsonl" "$HOST/runs.jsonl"
            """)
        XCTAssertEqual(r.file("status"), "2\n", r.stderr)
        XCTAssertEqual(r.errorLines.count, 1, r.stderr)
        let line = r.errorLines.first ?? ""
        XCTAssertTrue(
            line.contains("/out/runs.jsonl: cannot append a run: No space left on device (errno 28); the "), line)
        let kept = Int(line.components(separatedBy: "; the ").last?.split(separator: " ").first ?? "") ?? -1
        XCTAssertGreaterThan(kept, 0, line)
        XCTAssertEqual(r.file("runs.jsonl").split(separator: "\n").count, kept + 1)
        XCTAssertEqual(r.file("left"), "0\n", "namespaces of netbench pid \(r.file("pid")) left behind")
    }
}
