import Foundation
import XCTest
import TestSupport

/// Shards with the engines' environment variables, merged; kill -9 and --resume: through the built binary.
final class ShardMergeResumeTests: XCTestCase {
    struct Outcome { var status: Int32; var stdout: String; var stderr: String }

    var work = ""
    var pageA = "", pageB = ""

    override func setUpWithError() throws {
        work = NSTemporaryDirectory() + "netbench-shards-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        addTeardownBlock { [work] in try? FileManager.default.removeItem(atPath: work) }
        // Two scenarios: two scenario × profile blocks on loopback.
        let fixture = Fixture.path("small-page.json")
        let text = try String(contentsOfFile: fixture, encoding: .utf8)
        pageA = work + "/a.json"
        pageB = work + "/b.json"
        try text.write(toFile: pageA, atomically: true, encoding: .utf8)
        let renamed = try XCTUnwrap(text.range(of: #""name": "small""#))
        try text.replacingCharacters(in: renamed, with: #""name": "small-b""#).write(
            toFile: pageB, atomically: true, encoding: .utf8)
    }

    func start(_ args: [String], env: [String: String] = [:]) throws -> (Process, Pipe, Pipe) {
        let binary = try NetbenchBinary.path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        var environment = ProcessInfo.processInfo.environment
        for k in [
            "JOB_COMPLETION_INDEX", "NETBENCH_SHARD_COUNT", "CI_NODE_INDEX", "CI_NODE_TOTAL",
            "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT",
        ] { environment[k] = nil }
        environment.merge(env) { _, new in new }
        p.environment = environment
        p.currentDirectoryURL = URL(fileURLWithPath: work)
        // Paths given to netbench are absolute: Foundation's Process was seen to start some children
        // in the test's own directory despite currentDirectoryURL.
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        return (p, out, err)
    }

    func netbench(_ args: [String], env: [String: String] = [:]) throws -> Outcome {
        let (p, out, err) = try start(args, env: env)
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Outcome(
            status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
            stderr: String(decoding: e, as: UTF8.self))
    }

    /// (scenario, transport, index) of the counted runs in a results.json.
    func runMatrix(_ dir: String) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/results.json"))
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let runs = try XCTUnwrap(json["runs"] as? [[String: Any]])
        return runs.filter { $0["warmup"] as? Bool != true }.map {
            "\($0["scenario"]!)/\($0["transport"]!)/\($0["index"]!)"
        }
    }

    /// The log's complete lines (a line still being written has no newline yet).
    func logLines(_ dir: String) -> [String] {
        guard let text = try? String(contentsOfFile: dir + "/runs.jsonl", encoding: .utf8) else { return [] }
        var parts = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast()
        return parts
    }

    func testShardsFromEngineVariablesMergeToTheUnshardedMatrix() throws {
        let plan = [pageA, pageB, "--transport", "h1,h2", "--runs", "3", "--quiet"]
        let whole = try netbench(["run"] + plan + ["--out", work + "/whole"])
        XCTAssertEqual(whole.status, 0, whole.stderr)
        // Three shards of two blocks: blocks split by run index; each engine's variables once.
        let engines: [[String: String]] = [
            ["JOB_COMPLETION_INDEX": "0", "NETBENCH_SHARD_COUNT": "3"],
            ["CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3"],
            ["SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_COUNT": "3"],
        ]
        for (i, env) in engines.enumerated() {
            let r = try netbench(["run"] + plan + ["--out", work + "/shard-\(i + 1)"], env: env)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(
                logLines(work + "/shard-\(i + 1)")[0].contains(#""shard":{"count":3,"index":\#(i + 1)}"#),
                "shard \(i + 1) header")
        }
        let shardRuns = try (1...3).map { try runMatrix(work + "/shard-\($0)") }
        XCTAssertTrue(shardRuns.allSatisfy { $0.count == 4 }, "\(shardRuns)")
        let merged = try netbench([
            "merge", work + "/shard-1", work + "/shard-2", work + "/shard-3", "-o", work + "/merged",
        ])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        XCTAssertFalse(merged.stderr.contains("missing"), merged.stderr)
        let m = try runMatrix(work + "/merged")
        XCTAssertEqual(m.count, Set(m).count, "each run once")
        XCTAssertEqual(Set(m), Set(try runMatrix(work + "/whole")))
        XCTAssertEqual(m.count, 12)
        let hosts =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: work + "/merged/results.json"))) as? [String: Any]
        XCTAssertTrue(
            ((hosts?["runs"] as? [[String: Any]]) ?? []).allSatisfy {
                ($0["host"] as? [String: Any])?["hostname"] is String
            }, "every run names its host")
        XCTAssertEqual((hosts?["shards"] as? [Any])?.count, 3)
        for f in ["summary.csv", "report.html", "summary.md"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: work + "/merged/" + f), f)
        }
        let check = try netbench(["check", work + "/merged", "--baseline", work + "/merged"])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)

        // A missing shard: its runs are listed.
        let partial = try netbench(["merge", work + "/shard-1", work + "/shard-3", "-o", work + "/partial"])
        XCTAssertEqual(partial.status, 0, partial.stderr)
        XCTAssertTrue(partial.stderr.contains("4 run(s) of the plan are in no shard"), partial.stderr)
        XCTAssertTrue(partial.stderr.contains("missing: small-b · loopback · h1 · run 1"), partial.stderr)

        // A shard of another plan (another seed) is refused, naming it and what differs.
        let other = try netbench(["run"] + plan + ["--seed", "9", "--out", work + "/other"], env: engines[1])
        XCTAssertEqual(other.status, 0, other.stderr)
        let refused = try netbench([
            "merge", work + "/shard-1", work + "/other", work + "/shard-3", "-o", work + "/refused",
        ])
        XCTAssertEqual(refused.status, 65, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("other: planDigest"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("seed 9 vs 1"), refused.stderr)
        // The same shard twice is refused too.
        let twice = try netbench(["merge", work + "/shard-1", work + "/shard-1", "-o", work + "/twice"])
        XCTAssertEqual(twice.status, 65, twice.stderr)
    }

    func testKill9ThenResumeKeepsFinishedRunsAndCompletesThePlan() throws {
        let plan = [pageA, "--transport", "h1,h2", "--runs", "25", "--warmup", "1", "--quiet"]
        let (p, _, _) = try start(["run"] + plan + ["--out", work + "/r"])
        let deadline = Date().addingTimeInterval(120)
        while logLines(work + "/r").count < 6 && p.isRunning && Date() < deadline { usleep(5_000) }
        XCTAssertTrue(p.isRunning, "the run ended before it could be killed")
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        // And a record cut off mid-write, as a kill during the write leaves it.
        var lines = logLines(work + "/r")
        let kept = lines.count - 1
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: work + "/r/runs.jsonl"))
        handle.seekToEndOfFile()
        handle.write(Data(lines[1].prefix(lines[1].count / 2).utf8))
        try handle.close()

        let report = try netbench(["report", work + "/r"])
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertTrue(report.stderr.contains("cut off"), report.stderr)

        let wrongPlan = try netbench(["run"] + plan + ["--seed", "3", "--resume", work + "/r"])
        XCTAssertEqual(wrongPlan.status, 65, wrongPlan.stderr)
        XCTAssertTrue(wrongPlan.stderr.contains("seed 1 vs 3"), wrongPlan.stderr)

        let resumed = try netbench(["run"] + plan + ["--resume", work + "/r"])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        lines = logLines(work + "/r")
        let m = try runMatrix(work + "/r")
        XCTAssertEqual(m.count, 50, "the whole plan")
        XCTAssertEqual(Set(m).count, 50, "each run once")
        let before = Array(lines.prefix(kept + 1))
        XCTAssertEqual(Array(logLines(work + "/r").prefix(kept + 1)), before, "finished runs kept as they were")
        // The resumed cells were warmed up again before their first new run.
        let warmups = lines.dropFirst().filter { $0.contains(#""warmup":true"#) }.count
        XCTAssertGreaterThanOrEqual(warmups, 3, "the first execution's warm-ups (2) and at least one after resuming")

        // Another host may not resume it.
        var header = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        var host = try XCTUnwrap(header["host"] as? [String: Any])
        host["hostname"] = "elsewhere"
        header["host"] = host
        let newHeader = String(
            decoding: try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]), as: UTF8.self)
        try ([newHeader] + lines.dropFirst()).joined(separator: "\n").appending("\n").write(
            toFile: work + "/r/runs.jsonl", atomically: true, encoding: .utf8)
        let otherHost = try netbench(["run"] + plan + ["--resume", work + "/r"])
        XCTAssertEqual(otherHost.status, 65, otherHost.stderr)
        XCTAssertTrue(otherHost.stderr.contains("host is 'elsewhere'"), otherHost.stderr)
    }
}
