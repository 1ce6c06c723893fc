import Foundation
import XCTest
import TestSupport

/// Runs the built `netbench` binary as a user would.
final class CommandLineTests: XCTestCase {

    struct Outcome { var status: Int32; var stdout: String; var stderr: String }

    func netbench(_ args: [String], timeout: TimeInterval = 300) throws -> Outcome {
        let r = try execute(NetbenchBinary.path, args, timeout: timeout)
        return Outcome(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }

    func tempDir() -> String {
        let d = NSTemporaryDirectory() + "netbench-e2e-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: d) }
        return d
    }

    func testRunWritesResultsAndSummary() throws {
        let out = tempDir() + "/run"
        let page = Fixture.path("small-page.json")
        let r = try netbench(["run", page, "--transport", "h1,h2", "--runs", "2", "--out", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/results.json"))
        let data = try Data(contentsOf: URL(fileURLWithPath: out + "/results.json"))
        let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        XCTAssertEqual(json["schemaVersion"] as? Int, 1)
        let runs = json["runs"] as! [[String: Any]]
        XCTAssertEqual(runs.count, 4)
        XCTAssertTrue(runs.allSatisfy { $0["status"] as? String == "ok" }, r.stderr)
        XCTAssertTrue(r.stderr.contains("[4/4]"), "progress lines: \(r.stderr)")
    }

    func testBadScenarioExits65NamingFileKeyAndValue() throws {
        let dir = tempDir()
        let bad = dir + "/bad.json"
        try """
        { "schemaVersion": 1, "name": "bad", "origins": [{"id": "main", "host": "www.shop.test"}],
          "resources": [ {"id": "doc", "origin": "main", "path": "/", "bytes": 10, "type": "document"},
                         {"id": "x", "origin": "main", "path": "/x", "bytes": 5, "type": "image", "parent": "ghost"} ] }
        """.write(toFile: bad, atomically: true, encoding: .utf8)
        let r = try netbench(["run", bad, "--out", dir + "/out"])
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertTrue(r.stderr.contains(bad), r.stderr)
        XCTAssertTrue(r.stderr.contains("resources[1].parent"), r.stderr)
        XCTAssertTrue(r.stderr.contains("ghost"), r.stderr)
    }

    func testMissingScenarioFileExits65() throws {
        let r = try netbench(["run", "/nonexistent/page.json"])
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertTrue(r.stderr.contains("/nonexistent/page.json"))
    }

    func testUnknownFlagExits64() throws {
        let r = try netbench(["run", "--frobnicate"])
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.stderr.contains("--frobnicate"), r.stderr)
    }

    func testUnknownCommandAndBadValuesExit64() throws {
        XCTAssertEqual(try netbench(["teleport"]).status, 64)
        XCTAssertEqual(try netbench(["run", "--runs", "zero"]).status, 64)
        XCTAssertEqual(try netbench(["run", "--transport", "h9"]).status, 64)
    }

    func testEveryCommandHasHelp() throws {
        let top = try netbench(["--help"])
        XCTAssertEqual(top.status, 0)
        let names = top.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") }.compactMap {
            $0.split(separator: " ").first.map(String.init)
        }
        XCTAssertTrue(names.contains("run"), top.stdout)
        for name in names {
            let h = try netbench([name, "--help"])
            XCTAssertEqual(h.status, 0, name)
            XCTAssertTrue(h.stdout.contains("usage: netbench \(name)"), "\(name) --help: \(h.stdout)")
        }
    }
}

/// Written by one reader thread, read after `DispatchGroup.wait()`.
final class DataBox: @unchecked Sendable { var data = Data() }
