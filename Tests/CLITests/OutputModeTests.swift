import XCTest
import TestSupport

/// `--json` and `--quiet` on the commands that print tables, through the built binary on real
/// (loopback) results.
final class OutputModeTests: XCTestCase {
    func netbench(_ args: [String]) throws -> Program.Outcome {
        return try Program.run(NetbenchBinary.path, args, cwd: packageRoot)
    }

    func json(_ r: Program.Outcome, file: StaticString = #filePath, line: UInt = #line) -> Any? {
        let v = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))
        XCTAssertNotNil(v, "not JSON: \(r.stdout)", file: file, line: line)
        return v
    }

    func testRunCompareAndCheckInEveryMode() throws {
        try requireCongestionControl()
        let dir = Program.tempDirectory(self)
        let page = Fixture.path("small-page.json")
        let quiet = try netbench(["run", page, "-t", "h1,h2", "-n", "3", "-o", dir + "/a", "--quiet"])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertEqual(quiet.stdout + quiet.stderr, "", "--quiet prints nothing")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/a/report.html"))

        let run = try netbench(["run", page, "-t", "h1,h2", "-n", "3", "-o", dir + "/b", "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "", "--json: no progress lines")
        let summary = json(run) as? [String: Any]
        XCTAssertEqual(summary?["results"] as? String, dir + "/b/results.json")
        let cells = summary?["cells"] as? [[String: Any]] ?? []
        XCTAssertEqual(cells.map { $0["transport"] as? String }, ["h1", "h2"])
        XCTAssertTrue(
            cells.allSatisfy { $0["runs"] as? Int == 3 && ($0["pltMs"] as? [String: Any])?["median"] is Double },
            run.stdout)

        let table = try netbench(["compare", dir + "/a", dir + "/b"])
        XCTAssertEqual(table.status, 0, table.stderr)
        let cmp = try netbench(["compare", dir + "/a", dir + "/b", "--json"])
        let rows = json(cmp) as? [[String: Any]] ?? []
        XCTAssertFalse(rows.isEmpty)
        XCTAssertTrue(
            rows.allSatisfy { $0["metric"] is String && $0["verdict"] is String && $0["medianA"] is Double }, cmp.stdout
        )
        let significant = rows.filter {
            $0["verdict"] as? String != "noSignificantChange" && $0["verdict"] as? String != "no significant change"
        }
        let cmpQuiet = try netbench(["compare", dir + "/a", dir + "/b", "--quiet"])
        XCTAssertEqual(
            cmpQuiet.stdout.split(separator: "\n").count, significant.count, cmpQuiet.stdout + "\n" + cmp.stdout)

        let thresholds = dir + "/t.json"
        try #"{"thresholds": ["pltMs.p95 < 0.001", "pltMs.median < 1000000"]}"#.write(
            toFile: thresholds, atomically: true, encoding: .utf8)
        let checkJSON = try netbench(["check", dir + "/b", "--thresholds", thresholds, "--json"])
        XCTAssertEqual(checkJSON.status, 1, checkJSON.stderr)
        let outcome = json(checkJSON) as? [String: Any]
        XCTAssertEqual(outcome?["passed"] as? Bool, false)
        let checks = outcome?["checks"] as? [[String: Any]] ?? []
        XCTAssertEqual(
            checks.compactMap { $0["status"] as? String }.sorted(), ["failed", "failed", "passed", "passed"],
            checkJSON.stdout)  // per cell (h1, h2)
        let checkQuiet = try netbench(["check", dir + "/b", "--thresholds", thresholds, "--quiet"])
        XCTAssertEqual(checkQuiet.status, 1)
        let lines = checkQuiet.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, checkQuiet.stdout)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("FAIL  pltMs.p95 < 0.001") }, checkQuiet.stdout)
        try #"{"thresholds": ["pltMs.median < 1000000"]}"#.write(toFile: thresholds, atomically: true, encoding: .utf8)
        let pass = try netbench(["check", dir + "/b", "--thresholds", thresholds, "--quiet"])
        XCTAssertEqual(pass.status, 0, pass.stderr)
        XCTAssertEqual(pass.stdout, "")
        XCTAssertEqual(try netbench(["check", dir + "/b", "--thresholds", thresholds, "--quiet", "--json"]).status, 64)
    }

    func testProfilesAndDoctorInEveryMode() throws {
        let profiles = try netbench(["profiles", "--json"])
        XCTAssertEqual(profiles.status, 0, profiles.stderr)
        let list = json(profiles) as? [[String: Any]] ?? []
        let names = try netbench(["profiles", "--quiet"]).stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(list.compactMap { $0["name"] as? String }, names)
        XCTAssertTrue(names.contains("LTE") && names.contains("loopback"), "\(names)")

        let doctor = try netbench(["doctor"])
        let doctorJSON = try netbench(["doctor", "--json"])
        let doctorQuiet = try netbench(["doctor", "--quiet"])
        XCTAssertEqual(
            Set([doctor.status, doctorJSON.status, doctorQuiet.status]).count, 1,
            "the exit status does not depend on the mode")
        let rows = json(doctorJSON) as? [[String: String]] ?? []
        let library = rows.first { $0["check"] == "scenario library" }
        XCTAssertEqual(library?["status"], "ok")
        XCTAssertEqual(library?["detail"], packageRoot + "/Scenarios (the checkout the executable was built in)")
        let missing = rows.filter { $0["status"] == "MISSING" }.map { "\($0["check"]!): \($0["detail"]!)" }
        XCTAssertEqual(doctorQuiet.stdout.split(separator: "\n").map(String.init), missing)
        XCTAssertTrue(doctor.stdout.contains("scenario library"))
    }
}
