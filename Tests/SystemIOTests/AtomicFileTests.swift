import Foundation
import XCTest
import BenchCore
import SystemIO

/// Whole files or none: the reports and results that the runner writes go through `AtomicFile`.
final class AtomicFileTests: XCTestCase {
    var dir: String!
    override func setUpWithError() throws {
        dir =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "netbench-atomic-\(getpid())-\(UUID().uuidString)"
            ).path
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

/// qlog and key-log files: a qlog directory that does not exist is an error naming it (before any
/// run), key-log lines are appended whole, one per line.
final class DiagnosticFilesTests: XCTestCase {
    func testMissingQlogDirectoryIsAUsageErrorNamingIt() {
        XCTAssertThrowsError(try DiagnosticFiles(qlogDirectory: "/nonexistent/qlogs", keyLogPath: nil)) { error in
            let e = error as? BenchError
            XCTAssertEqual(e?.exitCode, .usage)
            XCTAssertTrue(
                e?.message.contains("--qlog /nonexistent/qlogs: the directory does not exist") == true, "\(error)")
        }
        XCTAssertThrowsError(try DiagnosticFiles(qlogDirectory: nil, keyLogPath: "/nonexistent/keys.log")) { error in
            XCTAssertTrue((error as? BenchError)?.message.contains("/nonexistent/keys.log") == true, "\(error)")
        }
    }

    func testQlogStreamsAndKeyLogLinesReachTheirFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netbench-diag-\(getpid())-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = try DiagnosticFiles(qlogDirectory: dir, keyLogPath: dir + "/keys.log")
        let stream = try XCTUnwrap(files.qlogStream(name: "client-abcd"))
        Array("\u{1e}{\"qlog_version\":\"0.3\"}\n".utf8).withUnsafeBytes { stream.write($0) }
        stream.close()
        files.keyLogLine("CLIENT_TRAFFIC_SECRET_0 aa bb")
        files.keyLogLine("SERVER_TRAFFIC_SECRET_0 aa cc")
        XCTAssertTrue(try String(contentsOfFile: dir + "/client-abcd.sqlog", encoding: .utf8).contains("qlog_version"))
        XCTAssertEqual(
            try String(contentsOfFile: dir + "/keys.log", encoding: .utf8),
            "CLIENT_TRAFFIC_SECRET_0 aa bb\nSERVER_TRAFFIC_SECRET_0 aa cc\n")
    }
}
