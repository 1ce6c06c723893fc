import Foundation
import XCTest
import TestSupport

/// `netbench shell --pcap DIR` onto a filesystem too small for the capture (a 64 KB tmpfs in a
/// private mount namespace): the capture stops with one line, and COMMAND goes on
/// (`--pcap-full continue`, the default) or is stopped (`--pcap-full stop`: SIGTERM to its group).
final class ShellPcapFullTests: XCTestCase {
    func testAFullCaptureStopsCommandOnlyWhenAsked() throws {
        try requireRoot("mounting a tmpfs and emulated profiles need root")
        try require(FileManager.default.isExecutableFile(atPath: "/usr/bin/iperf3"), "iperf3 (bootstrap --test)")
        guard
            let unshare = ["/usr/bin/unshare", "/bin/unshare"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { try missingPrerequisite("unshare (util-linux) is not installed") }
        let base = NSTemporaryDirectory() + "netbench-shellpcapfull-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: base + "/mnt", withIntermediateDirectories: true)
        try #"{"schemaVersion": 1, "name": "p10", "down": "10Mbit", "up": "10Mbit", "rtt": "20ms"}"#
            .write(toFile: base + "/p10.json", atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: base) }
        // One iperf3 server per session, each for one test (-1), started and stopped by PID.
        var servers: [Process] = []
        addTeardownBlock { for s in servers where s.isRunning { s.terminate() } }
        var ports: [UInt16] = []
        for _ in 0..<2 {
            let port = ShellCommandTests.freePort()
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/iperf3")
            p.arguments = ["-s", "-1", "-B", "127.0.0.1", "-p", "\(port)"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            servers.append(p)
            ports.append(port)
        }
        usleep(500_000)  // a connection to check would use up the server's one test
        let body = """
            set -u
            mount -t tmpfs -o size=64k tmpfs "$MNT" || exit 90
            start=$(date +%s)
            "$NB" shell "$BASE/p10.json" --pcap "$MNT" --pcap-full stop -- \\
              sh -c 'exec iperf3 -c "$NETBENCH_HOST" -p \(ports[0]) -R -t 30' > /dev/null 2> "$BASE/stop.err"
            echo $? $(( $(date +%s) - start )) > "$BASE/stop.status"
            rm -f "$MNT"/*
            "$NB" shell "$BASE/p10.json" --pcap "$MNT" -- \\
              sh -c 'exec iperf3 -c "$NETBENCH_HOST" -p \(ports[1]) -R -t 4' > /dev/null 2> "$BASE/continue.err"
            echo $? > "$BASE/continue.status"
            """
        let outcome = try execute(
            unshare,
            [
                "--mount", "--propagation", "private", "/usr/bin/env", "MNT=\(base)/mnt", "BASE=\(base)",
                "NB=\(try NetbenchBinary.path)", "/bin/sh", "-c", body,
            ],
            timeout: 120)
        XCTAssertNotEqual(outcome.status, 90, "could not mount a tmpfs: \(outcome.stderr)")
        let read = { (name: String) in (try? String(contentsOfFile: base + "/" + name, encoding: .utf8)) ?? "" }
        let stop = read("stop.status").split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .newlines)) }
        // iperf3 handles SIGTERM itself ("interrupt - the client has terminated") and exits 1.
        XCTAssertEqual(stop.first, 1, "SIGTERM ended iperf3: \(read("stop.err"))")
        XCTAssertTrue(read("stop.err").contains("interrupt"), read("stop.err"))
        XCTAssertLessThan(stop.last ?? 99, 20, "stopped long before its 30 s")
        XCTAssertTrue(read("stop.err").contains("--pcap: packet capture stopped: writing"), read("stop.err"))
        XCTAssertTrue(read("stop.err").contains("stopping COMMAND (--pcap-full stop)"), read("stop.err"))
        XCTAssertEqual(read("continue.status"), "0\n", read("continue.err"))
        XCTAssertTrue(read("continue.err").contains("COMMAND goes on"), read("continue.err"))
    }
}
