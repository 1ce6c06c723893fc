import Foundation
import XCTest
import BenchCore
import SystemIO

/// Whole files or none: the reports and results that the runner writes go through `AtomicFile`.
final class AtomicFileTests: XCTestCase {
    var dir: String!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("netbench-atomic-\(getpid())-\(UUID().uuidString)").path
    }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func testWritesCreatesTheDirectoryAndLeavesNoTemporaryFile() throws {
        let path = dir + "/sub/results.json"
        try AtomicFile.write(Data("first".utf8), to: path)
        try AtomicFile.write(Data("second".utf8), to: path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "second")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/sub"), ["results.json"])
    }

    func testUnwritableDirectoryIsARunErrorNamingThePath() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let blocker = dir + "/file"
        try Data().write(to: URL(fileURLWithPath: blocker))
        XCTAssertThrowsError(try AtomicFile.write(Data("x".utf8), to: blocker + "/results.json")) { error in
            let e = error as? BenchError
            XCTAssertEqual(e?.exitCode, .runFailed)
            XCTAssertTrue(e?.message.contains(blocker) == true, "\(error)")
        }
    }
}
