import Foundation
import XCTest
import TestSupport

/// `netbench report --format influx` imported into the real InfluxDB of Debian's `influxdb`
/// package (scripts/bootstrap.sh --test), started here on free loopback ports with its own
/// directories, queried back over its HTTP API, and stopped by its PID.
final class InfluxDBTests: XCTestCase {
    func startInfluxDB(directory: String) throws -> UInt16 {
        guard let influxd = executable(["/usr/bin/influxd", "/usr/sbin/influxd"]) else {
            try missingPrerequisite("influxd is not installed (influxdb; scripts/bootstrap.sh --test)")
        }
        let http = try freePort(), rpc = try freePort()
        let config = """
            reporting-disabled = true
            bind-address = "127.0.0.1:\(rpc)"
            [meta]
              dir = "\(directory)/meta"
            [data]
              dir = "\(directory)/data"
              wal-dir = "\(directory)/wal"
            [http]
              bind-address = "127.0.0.1:\(http)"
              log-enabled = false

            """
        try config.write(toFile: directory + "/influxdb.conf", atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: influxd)
        p.arguments = ["run", "-config", directory + "/influxdb.conf"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        let pid = p.processIdentifier
        addTeardownBlock {
            kill(pid, SIGTERM); p.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline && p.isRunning {
            if let r = try? curl(["-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(http)/ping"]),
                r.stdout == "204"
            {
                return http
            }
            usleep(100_000)
        }
        XCTFail(
            p.isRunning
                ? "influxd did not answer /ping on 127.0.0.1:\(http) within 30 s"
                : "influxd exited with \(p.terminationStatus)")
        struct DidNotStart: Error {}
        throw DidNotStart()
    }

    func testRunsImportIntoTheRealInfluxDBWithTheirOwnTimestamps() throws {
        let dir = NSTemporaryDirectory() + "netbench-influx-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        let run = try netbench([
            "run", Fixture.path("small-page.json"), "-t", "h1,h2", "-n", "3",
            "-o", dir + "/run", "--quiet",
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let written = try netbench(["report", dir + "/run", "--format", "influx"])
        XCTAssertEqual(written.status, 0, written.stderr)

        let port = try startInfluxDB(directory: dir)
        let base = "http://127.0.0.1:\(port)"
        XCTAssertEqual(
            try curl(["-XPOST", base + "/query", "--data-urlencode", "q=CREATE DATABASE netbench"]).status, 0)
        let write = try curl([
            "-o", "/dev/stderr", "-w", "%{http_code}", "-XPOST", base + "/write?db=netbench&precision=ns",
            "--data-binary", "@" + dir + "/run/metrics.influx",
        ])
        XCTAssertEqual(write.stdout, "204", "write refused: \(write.stderr)")

        let query = try curl([
            "-G", base + "/query", "--data-urlencode", "db=netbench", "--data-urlencode", "epoch=ns",
            "--data-urlencode", "q=SELECT plt_ms, \"index\", transport FROM netbench_run",
        ])
        XCTAssertEqual(query.status, 0, query.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(query.stdout.utf8)) as? [String: Any]
        let series = ((json?["results"] as? [[String: Any]])?.first?["series"] as? [[String: Any]])?.first
        let values = try XCTUnwrap(series?["values"] as? [[Any]], query.stdout)

        // Every run of results.json, read back with its own start time and its PLT.
        let results =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/run/results.json")))
            as! [String: Any]
        let runs = results["runs"] as! [[String: Any]]
        XCTAssertEqual(values.count, runs.count, query.stdout)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for r in runs {
            let transport = r["transport"] as! String, index = r["index"] as! Int
            let plt = (r["metrics"] as! [String: Any])["pltMs"] as! Double
            let started = try XCTUnwrap(iso.date(from: r["startedAt"] as! String), "\(r["startedAt"] ?? "")")
            let ns = Int64((started.timeIntervalSince1970 * 1000).rounded()) * 1_000_000
            let row = values.first { ($0[3] as? String) == transport && ($0[2] as? NSNumber)?.intValue == index }
            XCTAssertNotNil(row, "\(transport) #\(index) not read back")
            XCTAssertEqual((row?[0] as? NSNumber)?.int64Value, ns, "\(transport) #\(index) time")
            XCTAssertEqual(
                (row?[1] as? NSNumber)?.doubleValue ?? .nan, plt, accuracy: 1e-9, "\(transport) #\(index) PLT")
        }
    }
}
