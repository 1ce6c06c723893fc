import Foundation
import XCTest
import TestSupport

/// `netbench scenario generate --corpus` and a suite naming the corpus directory, through the built
/// binary: the files, their validity, the usage errors, and a short loopback run of the whole corpus
/// whose results name every page.
final class CorpusCommandTests: XCTestCase {
    func testGenerateCorpusThenRunItFromASuite() throws {
        let work = NSTemporaryDirectory() + "netbench-corpus-e2e-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: work) }
        let gen = try netbench(["scenario", "generate", "--corpus", "3", "--seed", "4", "-o", work + "/corpus"])
        XCTAssertEqual(gen.status, 0, gen.stderr)
        XCTAssertTrue(
            gen.stdout.contains("wrote 3 pages and corpus.json to \(work)/corpus (seed 4, mobile)"), gen.stdout)
        let files = try FileManager.default.contentsOfDirectory(atPath: work + "/corpus").sorted()
        XCTAssertEqual(files, ["corpus.json", "page-0001.json", "page-0002.json", "page-0003.json"])
        let valid = try netbench(
            ["scenario", "validate"] + files.filter { $0 != "corpus.json" }.map { work + "/corpus/" + $0 })
        XCTAssertEqual(valid.status, 0, valid.stdout)
        let again = try netbench(["scenario", "generate", "--corpus", "3", "--seed", "4", "-o", work + "/again"])
        XCTAssertEqual(again.status, 0, again.stderr)
        for f in files {
            XCTAssertEqual(
                FileManager.default.contents(atPath: work + "/corpus/" + f),
                FileManager.default.contents(atPath: work + "/again/" + f), f)
        }

        // Usage errors: exit 64, naming the option.
        let mixed = try netbench(["scenario", "generate", "--corpus", "3", "--requests", "9", "-o", work + "/x"])
        XCTAssertEqual(mixed.status, 64)
        XCTAssertTrue(mixed.stderr.contains("not --requests"), mixed.stderr)
        let file = try netbench(["scenario", "generate", "--corpus", "3", "-o", work + "/x.json"])
        XCTAssertEqual(file.status, 64)
        XCTAssertTrue(file.stderr.contains("-o \(work)/x.json looks like a file"), file.stderr)
        XCTAssertEqual(try netbench(["scenario", "generate", "--corpus", "3"]).status, 64)

        // A suite naming the directory runs every page (loopback, one run each).
        let suite =
            #"{"schemaVersion": 1, "name": "corpus-e2e", "scenarios": ["corpus/"], "profiles": ["loopback"], "#
                + #""transports": ["h2"], "runs": 1}"#
        try suite.write(toFile: work + "/suite.json", atomically: true, encoding: .utf8)
        let run = try netbench(["run", work + "/suite.json", "--out", work + "/results", "--quiet"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let results =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: work + "/results/results.json"))) as? [String: Any]
        let runs = try XCTUnwrap(results?["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.map { $0["scenario"] as? String }, ["corpus-0001", "corpus-0002", "corpus-0003"])
        XCTAssertTrue(runs.allSatisfy { $0["status"] as? String == "ok" }, run.stderr)

        // The directory itself as the argument: the same pages, the suite named after it.
        let direct = try netbench([
            "run", work + "/corpus", "--transport", "h2", "--runs", "1", "--out", work + "/direct", "--quiet",
        ])
        XCTAssertEqual(direct.status, 0, direct.stderr)
        let directRuns =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: work + "/direct/results.json"))) as? [String: Any]
        XCTAssertEqual((directRuns?["runs"] as? [[String: Any]])?.count, 3)
        XCTAssertEqual((directRuns?["suite"] as? [String: Any])?["name"] as? String, "corpus")

        // A directory without pages: exit 65, naming the suite, the key and the value.
        try FileManager.default.createDirectory(atPath: work + "/empty", withIntermediateDirectories: true)
        try suite.replacingOccurrences(of: "corpus/", with: "empty/").write(
            toFile: work + "/bad.json", atomically: true, encoding: .utf8)
        let bad = try netbench(["run", work + "/bad.json", "--out", work + "/bad"])
        XCTAssertEqual(bad.status, 65)
        XCTAssertTrue(
            bad.stderr.contains("bad.json: scenarios[0]: 'empty/' is a directory without scenario files"), bad.stderr)
    }
}
