import XCTest
import BenchCore
import BenchModel

/// Shards from flags and from the job engines' variables; the plan digest's sensitivity.
final class ShardAndDigestTests: XCTestCase {
    func testParse() {
        XCTAssertEqual(ShardSpec.parse("2/4"), ShardSpec(index: 2, count: 4))
        XCTAssertEqual(ShardSpec.parse("1/1"), ShardSpec(index: 1, count: 1))
        for bad in ["0/4", "5/4", "2/0", "2", "a/b", "2/4/1", "-1/4", ""] { XCTAssertNil(ShardSpec.parse(bad), bad) }
    }

    func testEngineVariables() throws {
        XCTAssertNil(try ShardSpec.fromEnvironment(["HOME": "/root"]))
        XCTAssertEqual(
            try ShardSpec.fromEnvironment(["JOB_COMPLETION_INDEX": "0", "NETBENCH_SHARD_COUNT": "4"])?.shard,
            ShardSpec(index: 1, count: 4))
        XCTAssertEqual(
            try ShardSpec.fromEnvironment(["JOB_COMPLETION_INDEX": "3", "NETBENCH_SHARD_COUNT": "4"])?.shard,
            ShardSpec(index: 4, count: 4))
        XCTAssertEqual(
            try ShardSpec.fromEnvironment(["CI_NODE_INDEX": "3", "CI_NODE_TOTAL": "5"])?.shard,
            ShardSpec(index: 3, count: 5))
        XCTAssertEqual(
            try ShardSpec.fromEnvironment([
                "SLURM_ARRAY_TASK_ID": "12", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_COUNT": "3",
            ])?.shard,
            ShardSpec(index: 3, count: 3))
        func usage(_ env: [String: String]) -> String {
            do { _ = try ShardSpec.fromEnvironment(env); return "no error" } catch let e as BenchError {
                XCTAssertEqual(e.exitCode, .usage)
                return e.message
            } catch { return "\(error)" }
        }
        XCTAssertTrue(usage(["JOB_COMPLETION_INDEX": "0"]).contains("NETBENCH_SHARD_COUNT is not set"))
        XCTAssertTrue(usage(["JOB_COMPLETION_INDEX": "4", "NETBENCH_SHARD_COUNT": "4"]).contains("out of range"))
        XCTAssertTrue(usage(["CI_NODE_INDEX": "x", "CI_NODE_TOTAL": "2"]).contains("CI_NODE_INDEX=x"))
        XCTAssertTrue(
            usage(["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1"]).contains("SLURM_ARRAY_TASK_COUNT"))
    }

    func testDigestChangesWithEveryPartOfThePlanAndOnlyThen() throws {
        let base = PlanDigest(
            scenarioContents: [Array("{\"a\":1}".utf8)], profiles: [.loopback], suiteContents: nil,
            transports: [.h1, .h2],
            clients: ["builtin"], runs: "10", warmupRuns: 0, seed: 1, netbenchVersion: "0.1.0")
        let d = try base.hex()
        XCTAssertTrue(d.hasPrefix("sha256:") && d.count == 7 + 64, d)
        XCTAssertEqual(try base.hex(), d, "deterministic")
        var variants: [PlanDigest] = []
        var v = base; v.scenarioContents = [Array("{\"a\":2}".utf8)]; variants.append(v)
        v = base; var p = Profile.loopback; p.name = "lo2"; v.profiles = [p]; variants.append(v)
        v = base; v.suiteContents = Array("{}".utf8); variants.append(v)
        v = base; v.transports = [.h2, .h1]; variants.append(v)
        v = base; v.clients = ["chromium"]; variants.append(v)
        v = base; v.runs = "11"; variants.append(v)
        v = base; v.warmupRuns = 1; variants.append(v)
        v = base; v.seed = 2; variants.append(v)
        v = base; v.netbenchVersion = "0.1.1"; variants.append(v)
        // Field framing: moving bytes from one scenario to the next is another plan.
        v = base; v.scenarioContents = [Array("{\"a\"".utf8), Array(":1}".utf8)]; variants.append(v)
        let all = try variants.map { try $0.hex() }
        XCTAssertFalse(all.contains(d))
        XCTAssertEqual(Set(all).count, all.count)
    }
}

final class SuiteRunsTests: XCTestCase {
    func decode(_ runs: String) throws -> Suite {
        let json =
            #"{"schemaVersion":1,"name":"s","scenarios":["a.json"],"profiles":["loopback"],"transports":["h1"],"runs":"#
                + #"\#(runs)}"#
        return try JSONFile.decode(Suite.self, from: Data(json.utf8), file: "suite.json")
    }

    func testRunsIsACountOrAuto() throws {
        let fixed = try decode("7")
        XCTAssertEqual(fixed.runs, 7)
        XCTAssertFalse(fixed.$runs.isAuto)
        let auto = try decode(#""auto""#)
        XCTAssertTrue(auto.$runs.isAuto)
        XCTAssertEqual(auto.runs, SuiteRunCount.autoDefaultMaximum)
        XCTAssertTrue(String(decoding: try JSONFile.encode(auto), as: UTF8.self).contains(#""runs" : "auto""#))
        XCTAssertThrowsError(try decode(#""many""#)) { e in
            XCTAssertTrue("\(e)".contains("suite.json: runs"), "\(e)")
            XCTAssertTrue("\(e)".contains("auto"), "\(e)")
        }
    }
}
