import Foundation
import TestSupport
import XCTest

/// The built binary with its standard output and error going to pipes nobody reads any more (as in
/// `netbench run … 2>&1 | head -1` once `head` has exited): it neither crashes on the EPIPE nor
/// stops short; a run still writes its results.
final class BrokenPipeTests: XCTestCase {
    /// Runs the binary with both streams into pipes whose reading ends are closed; its exit status.
    func runIntoClosedPipes(_ args: [String]) throws -> (status: Int32, reason: Process.TerminationReason) {
        let out = Pipe(), err = Pipe()
        try out.fileHandleForReading.close()
        try err.fileHandleForReading.close()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try NetbenchBinary.path)
        p.arguments = args
        p.standardOutput = out
        p.standardError = err
        try p.run()
        try out.fileHandleForWriting.close()
        try err.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(120)
        while p.isRunning && Date() < deadline { usleep(50_000) }
        if p.isRunning { p.terminate(); p.waitUntilExit(); XCTFail("\(args) still running after 120 s") }
        return (p.terminationStatus, p.terminationReason)
    }

    func testHelpIntoAClosedPipe() throws {
        let r = try runIntoClosedPipes(["--help"])
        XCTAssertEqual(r.reason, .exit, "ended by a signal (status \(r.status))")
        XCTAssertEqual(r.status, 0)
    }

    func testRunIntoClosedPipesStillWritesItsResults() throws {
        let dir = NSTemporaryDirectory() + "netbench-pipe-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runIntoClosedPipes([
            "run", Fixture.path("small-page.json"), "--profile", "loopback", "--transport", "h1", "--runs", "1",
            "--warmup", "0", "--out", dir,
        ])
        XCTAssertEqual(r.reason, .exit, "ended by a signal (status \(r.status))")
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/results.json"), "results.json")
        let runs = try String(contentsOfFile: dir + "/runs.jsonl", encoding: .utf8)
        XCTAssertEqual(runs.split(separator: "\n").count, 2, "the header and one run")
    }
}
