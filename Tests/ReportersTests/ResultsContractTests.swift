import Foundation
import XCTest
import BenchCore
import BenchModel

/// The results contract that users' scripts read: the key names and shapes of `results.json`
/// pinned by a golden file, and the schema-version policy (a file of another version is refused
/// naming its version and the one this netbench reads; never guessed at).
///
/// A change of the golden file is a change of the contract: additive keys keep schema v1;
/// renaming or removing a key needs a new `ResultsFile.currentSchemaVersion`.
final class ResultsContractTests: XCTestCase {
    func testResultsJSONKeysArePinned() throws {
        let text = String(decoding: try JSONFile.encode(SampleResults.demo(perCell: 2)), as: UTF8.self)
        try GoldenTests.assertGolden(text, "results.json")
    }

    /// Cross traffic (optional `runs[].crossTraffic`, added in schema v1) is part of the contract.
    func testCrossTrafficKeysArePinned() throws {
        let text = try String(
            contentsOf: GoldenTests.goldenDirectory.appendingPathComponent("results.json"), encoding: .utf8)
        for key in [
            "\"crossTraffic\"", "\"binMs\"", "\"originMs\"", "\"jainIndex\"", "\"shareWindowStartMs\"",
            "\"congestionControlReadBack\"", "\"share\"",
        ] {
            XCTAssertTrue(text.contains(key), "results.json golden lacks \(key)")
        }
    }

    func testGoldenResultsReadBack() throws {
        let path = GoldenTests.goldenDirectory.appendingPathComponent("results.json").path
        let read = try ResultsFile.load(from: path)
        XCTAssertEqual(read.schemaVersion, 1)
        XCTAssertEqual(read.runs.count, SampleResults.demo(perCell: 2).runs.count)
        XCTAssertEqual(try JSONFile.encode(read), try JSONFile.encode(SampleResults.demo(perCell: 2)))
    }

    func testOtherSchemaVersionsAreRefusedByName() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("netbench-schema-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for (body, expected) in [
            (#"{"schemaVersion": 2, "runs": []}"#, "schemaVersion is 2; this netbench reads results of version 1"),
            (#"{"schemaVersion": 0}"#, "schemaVersion is 0"),
            (#"{"runs": []}"#, "missing required key 'schemaVersion'"),
            (#"{"schemaVersion": "one"}"#, "schemaVersion"),
        ] {
            let path = dir.appendingPathComponent("results.json").path
            try Data(body.utf8).write(to: URL(fileURLWithPath: path))
            do {
                _ = try ResultsFile.load(from: path)
                XCTFail("\(body) was accepted")
            } catch let e as BenchError {
                XCTAssertTrue(e.message.contains(expected), e.message)
                XCTAssertTrue(e.message.hasPrefix(path), e.message)
            }
        }
    }
}
