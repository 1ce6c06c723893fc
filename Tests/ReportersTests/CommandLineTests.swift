import XCTest
import TestSupport
import BenchCore
import BenchModel
@testable import Reporters

/// `netbench report`, `compare` and `check` end to end through the built binary: exit codes and
/// files. The binary is a prerequisite (`swift build` first; see TestSupport's `require`).
final class CommandLineTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netbench-cli-\(getpid())-\(name.hashValue)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    @discardableResult
    func netbench(_ args: String...) throws -> (code: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try NetbenchBinary.path)
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    func save(_ r: ResultsFile, _ name: String) throws -> String {
        let d = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        try JSONFile.encode(r).write(to: URL(fileURLWithPath: d.appendingPathComponent("results.json").path))
        return d.path
    }

    func testReportWritesTheFormatsAsked() throws {
        let d = try save(CheckTests.results(seed: 1, plt: 1000, runs: 8), "run")
        let r = try netbench("report", d, "--format", "html,md")
        XCTAssertEqual(r.code, 0, r.err)
        XCTAssertEqual(r.out, "wrote \(d)/report.html\nwrote \(d)/summary.md\n")
        XCTAssertEqual(try netbench("report", d, "--format", "pdf").code, 64)
        XCTAssertEqual(try netbench("report").code, 64)
        let missing = try netbench("report", dir.appendingPathComponent("nope").path)
        XCTAssertEqual(missing.code, 65)
        XCTAssertTrue(missing.err.contains("nope"), missing.err)
        XCTAssertEqual(try netbench("report", "--help").code, 0)
    }

    func testCheckExitCodes() throws {
        let base = try save(CheckTests.results(seed: 1, plt: 1000), "base")
        let same = try save(CheckTests.results(seed: 2, plt: 1000), "same")
        let slow = try save(CheckTests.results(seed: 3, plt: 1200), "slow")
        let fast = try save(CheckTests.results(seed: 4, plt: 800), "fast")
        XCTAssertEqual(try netbench("check", same, "--baseline", base).code, 0)
        XCTAssertEqual(try netbench("check", fast, "--baseline", base + "/results.json").code, 0)
        let junit = dir.appendingPathComponent("junit.xml").path
        let failed = try netbench("check", slow, "--baseline", base, "--max-regression", "5%", "--junit", junit)
        XCTAssertEqual(failed.code, 1, failed.out + failed.err)
        XCTAssertTrue(failed.out.contains("FAIL  news · 4g · h2 · pltMs"), failed.out)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains("failures=\"2\""), xml)
        XCTAssertEqual(try netbench("check", slow, "--baseline", base, "--max-regression", "30%").code, 0)

        let missing = try netbench("check", slow, "--baseline", dir.appendingPathComponent("nope").path)
        XCTAssertEqual(missing.code, 65)
        XCTAssertTrue(missing.err.contains("baseline not found"), missing.err)
        var v2 = CheckTests.results(seed: 1, plt: 1000)
        v2.schemaVersion = 2
        let other = try save(v2, "v2")
        let version = try netbench("check", slow, "--baseline", other)
        XCTAssertEqual(version.code, 65)
        XCTAssertTrue(version.err.contains("schemaVersion is 2"), version.err)
        XCTAssertEqual(try netbench("check", slow).code, 64)
        XCTAssertEqual(try netbench("check", slow, "--baseline", base, "--max-regression", "lots").code, 64)
    }

    func testCheckThresholds() throws {
        let run = try save(CheckTests.results(seed: 1, plt: 1000), "run")
        let file = dir.appendingPathComponent("t.json").path
        try Data(
            #"{"thresholds": ["pltMs.p95 < 3000", {"expr": "ttfbMs.median <= 2 * ideal", "transport": "h3"}]}"#.utf8
        ).write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(try netbench("check", run, "--thresholds", file).code, 0)
        try Data(#"{"thresholds": ["pltMs.p95 < 900"]}"#.utf8).write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(try netbench("check", run, "--thresholds", file).code, 1)
        try Data(#"{"thresholds": ["pltMs.p95 <> 900"]}"#.utf8).write(to: URL(fileURLWithPath: file))
        let bad = try netbench("check", run, "--thresholds", file)
        XCTAssertEqual(bad.code, 65)
        XCTAssertTrue(bad.err.contains("'pltMs.p95 <> 900'"), bad.err)
    }

    func testCompare() throws {
        let a = try save(CheckTests.results(seed: 1, plt: 1000), "a")
        let b = try save(CheckTests.results(seed: 3, plt: 1200), "b")
        let r = try netbench("compare", a, b, "--format", "csv", "--metrics", "pltMs")
        XCTAssertEqual(r.code, 0, r.err)
        let lines = r.out.split(separator: "\n")
        XCTAssertEqual(
            lines.first,
            "scenario,profile,transport,metric,n_a,n_b,median_a,median_b,change,ci95_low,ci95_high,p,verdict")
        XCTAssertEqual(lines.count, 3)
        XCTAssertTrue(lines[1].hasSuffix(",regressed"), String(lines[1]))
        XCTAssertEqual(try netbench("compare", a, b, "--noise", "50%").out.contains("regressed"), false)
        XCTAssertEqual(try netbench("compare", a).code, 64)
        XCTAssertEqual(try netbench("compare", a, b, "--format", "xml").code, 64)
    }
}
