import Foundation
import XCTest
import TestSupport

/// A run killed with -9 leaves its namespaces; the next `netbench run` finds their lock free and
/// removes them before it starts, and leaves a live run's alone.
final class LeftoverCleanupTests: XCTestCase {
    func namespaces(of pid: Int32) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? []).filter {
            $0.hasPrefix("nb-\(pid)-")
        }
    }

    func testNextRunRemovesTheNamespacesOfAKilledRun() throws {
        try requireRoot("needs root (network namespaces)")
        let dir = NSTemporaryDirectory() + "netbench-leftover-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let page = Fixture.path("small-page.json")

        let victim = Process()
        victim.executableURL = URL(fileURLWithPath: try NetbenchBinary.path)
        victim.arguments = [
            "run", page, "--profile", "4G", "--transport", "h2", "--runs", "20", "--quiet", "--out", dir + "/victim",
        ]
        victim.standardOutput = FileHandle.nullDevice
        victim.standardError = FileHandle.nullDevice
        try victim.run()
        let deadline = Date().addingTimeInterval(60)
        while namespaces(of: victim.processIdentifier).count < 2 && victim.isRunning && Date() < deadline {
            usleep(50_000)
        }
        XCTAssertEqual(namespaces(of: victim.processIdentifier).count, 2, "the run built its network")
        kill(victim.processIdentifier, SIGKILL)
        victim.waitUntilExit()
        XCTAssertEqual(namespaces(of: victim.processIdentifier).count, 2, "kill -9 leaves them behind")

        let next = Process()
        next.executableURL = URL(fileURLWithPath: try NetbenchBinary.path)
        next.arguments = ["run", page, "--transport", "h2", "--runs", "1", "--warmup", "0", "--out", dir + "/next"]
        let err = Pipe()
        next.standardOutput = FileHandle.nullDevice
        next.standardError = err
        try next.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        next.waitUntilExit()
        XCTAssertEqual(next.terminationStatus, 0, stderr)
        XCTAssertEqual(namespaces(of: victim.processIdentifier), [], "the next run removed them")
        XCTAssertTrue(stderr.contains("left by netbench runs that died"), stderr)
    }
}
