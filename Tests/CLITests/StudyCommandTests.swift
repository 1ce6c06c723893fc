import XCTest
import TestSupport

/// `netbench study` through the built binary: a suite with a claim, run on loopback, studied;
/// and a suite whose claim is wrong exits 65 naming the key path.
final class StudyCommandTests: XCTestCase {
    func netbench(_ args: [String]) throws -> Program.Outcome {
        return try Program.run(NetbenchBinary.path, args, cwd: packageRoot)
    }

    func suite(_ dir: String, claim: String) throws -> String {
        let page = Fixture.path("small-page.json")
        let text = """
            {"schemaVersion": 1, "name": "claim-smoke", "scenarios": ["\(page)"], "profiles": ["loopback"],
             "transports": ["h2", "h3"], "runs": 3, "warmupRuns": 0, "seed": 1, "claims": [\(claim)]}
            """
        let path = dir + "/suite-\(abs(claim.hashValue)).json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testStudyOfALoopbackRun() throws {
        try requireCongestionControl()
        let dir = Program.tempDirectory(self)
        let s = try suite(dir, claim: #"{"name": "loopback", "baseline": "h2", "candidate": "h3", "minSpeedup": 50}"#)
        let run = try netbench(["run", s, "-o", dir + "/r", "--quiet"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let study = try netbench(["study", dir + "/r", "--suite", s])
        XCTAssertEqual(study.status, 0, study.stderr)
        XCTAssertTrue(study.stdout.contains("claim: loopback"), study.stdout)
        XCTAssertTrue(study.stdout.contains("small  loopback     3     3"), study.stdout)
        // Nothing loads a page 50× faster: the interval lies below the claim.
        XCTAssertTrue(study.stdout.contains("verdict: REFUTED"), study.stdout)
        // Two results sets are pooled: twice the runs per cell.
        let pooled = try netbench(["study", dir + "/r", dir + "/r/runs.jsonl", "--suite", s])
        XCTAssertTrue(pooled.stdout.contains("small  loopback     6     6"), pooled.stdout)
        let md = try netbench(["study", dir + "/r", "--suite", s, "--format", "md"])
        XCTAssertTrue(md.stdout.contains("| small | loopback | 3 | 3 |"), md.stdout)
    }

    func testBadClaimAndUsage() throws {
        let dir = Program.tempDirectory(self)
        let s = try suite(dir, claim: #"{"name": "x", "baseline": "h1", "candidate": "h3", "minSpeedup": 1.2}"#)
        let bad = try netbench(["study", dir, "--suite", s])
        XCTAssertEqual(bad.status, 65)
        XCTAssertTrue(
            bad.stderr.contains("claims[0].baseline: 'h1' is not one of the suite's transports (h2, h3)"), bad.stderr)
        let usage = try netbench(["study", dir, "--format", "pdf"])
        XCTAssertEqual(usage.status, 64, usage.stderr)
        let help = try netbench(["study", "--help"])
        XCTAssertTrue(help.stdout.contains("two-level percentile bootstrap"), help.stdout)
    }
}
