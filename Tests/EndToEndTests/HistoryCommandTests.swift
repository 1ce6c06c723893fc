import Foundation
import XCTest
import TestSupport

/// `netbench run` records the checkout (git commit, branch) or the label, and `netbench history`
/// draws a series of real results directories.
final class HistoryCommandTests: XCTestCase {
    func netbench(_ args: [String], in directory: String = packageRoot) throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try NetbenchBinary.path)
        p.arguments = args
        p.currentDirectoryURL = URL(fileURLWithPath: directory)
        let dir = NSTemporaryDirectory() + "netbench-hist-out-\(UUID().uuidString)"
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + ".out", contents: nil))
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + ".err", contents: nil))
        defer {
            try? FileManager.default.removeItem(atPath: dir + ".out");
            try? FileManager.default.removeItem(atPath: dir + ".err")
        }
        p.standardOutput = FileHandle(forWritingAtPath: dir + ".out")
        p.standardError = FileHandle(forWritingAtPath: dir + ".err")
        try p.run()
        p.waitUntilExit()
        return (
            p.terminationStatus, (try? String(contentsOfFile: dir + ".out", encoding: .utf8)) ?? "",
            (try? String(contentsOfFile: dir + ".err", encoding: .utf8)) ?? ""
        )
    }

    func source(_ dir: String) throws -> [String: Any]? {
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/results.json"))
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["source"] as? [String: Any]
    }

    func testRunsRecordTheirSourceAndHistoryDrawsThem() throws {
        let dir = NSTemporaryDirectory() + "netbench-history-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        let page = Fixture.path("small-page.json")
        // Two runs from the checkout (a git repository), one from a directory outside any repository.
        for (i, cwd) in [packageRoot, packageRoot, dir].enumerated() {
            let r = try netbench(
                ["run", page, "-t", "h1,h2", "-n", "3", "--label", "r\(i + 1)", "-o", dir + "/r\(i + 1)", "--quiet"],
                in: cwd)
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        let inRepo = try XCTUnwrap(try source(dir + "/r1"))
        XCTAssertEqual((inRepo["commit"] as? String)?.count, 40, "\(inRepo)")
        XCTAssertNotNil(inRepo["commitDate"] as? String)
        XCTAssertEqual(inRepo["label"] as? String, "r1")
        let outside = try XCTUnwrap(try source(dir + "/r3"))
        XCTAssertNil(outside["commit"], "\(outside)")
        XCTAssertEqual(outside["label"] as? String, "r3")

        let h = try netbench(["history", dir + "/r3", dir + "/r2", dir + "/r1", "-o", dir + "/history"])
        XCTAssertEqual(h.status, 0, h.stderr)
        let csv = try String(contentsOfFile: dir + "/history/history.csv", encoding: .utf8)
        let lines = csv.split(separator: "\n")
        XCTAssertTrue(
            lines[0].hasPrefix("scenario,profile,transport,client,metric,position,directory,commit,branch,label,date"))
        XCTAssertEqual(lines.count, 1 + 2 * 2 * 3, "2 transports × 2 metrics × 3 points")
        // Without a commit date r3 is ordered by its start time: last. r1 and r2 share a commit date and keep start
        // order.
        let labels = lines.dropFirst().filter { $0.hasPrefix("small,loopback,h1,,pltMs,") }.map {
            $0.split(separator: ",", omittingEmptySubsequences: false)[9]
        }
        XCTAssertEqual(labels, ["r1", "r2", "r3"])
        let html = try String(contentsOfFile: dir + "/history/history.html", encoding: .utf8)
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"))
        XCTAssertEqual(html.components(separatedBy: "<svg").count - 1, 2, "a PLT and a TTFB chart")
        XCTAssertFalse(html.contains("<script") || html.contains("src=\"http"), "self-contained")
    }

    func testHistoryOfOneDirectoryIsAUsageErrorAndABadOneADataError() throws {
        let golden = packageRoot + "/Tests/ReportersTests/Fixtures/golden/results.json"
        let one = try netbench(["history", golden, "-o", "/tmp/unused"])
        XCTAssertEqual(one.status, 64, one.stderr)
        let missing = NSTemporaryDirectory() + "netbench-no-such-\(UUID().uuidString)"
        let bad = try netbench(["history", golden, missing, "-o", missing + "-out"])
        XCTAssertEqual(bad.status, 65, bad.stderr)
        XCTAssertTrue(bad.stderr.contains(missing), bad.stderr)
    }
}
