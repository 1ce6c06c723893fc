import Foundation
import XCTest
import TestSupport

/// `netbench report --format har` on a real loopback run over h1, h2 and h3: haralyzer (the HAR reader
/// from PyPI) reads each file back with the run's page load time and request count, and
/// `netbench import-har` turns each back into the scenario's resources, sizes and dependency tree.
final class HARExportEndToEndTests: XCTestCase {
    private let scenarioFile = packageRoot + "/Scenarios/pages/small-page.json"

    func testExportedHARsReadBackByHaralyzerAndImportHAR() throws {
        let venv = ProcessInfo.processInfo.environment["NETBENCH_AIOQUIC_VENV"] ?? packageRoot + "/.build-venv"
        let python = venv + "/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python),
            (try? execute(python, ["-c", "import haralyzer"]))?.status == 0
        else {
            try missingPrerequisite("haralyzer is not installed in \(venv) (scripts/bootstrap.sh --test)")
        }
        let dir = NSTemporaryDirectory() + "netbench-har-export-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }

        let run = try execute(
            NetbenchBinary.path,
            ["run", scenarioFile, "-t", "h1,h2,h3", "--runs", "1", "-p", "loopback", "--out", dir + "/out"],
            timeout: 180)
        XCTAssertEqual(run.status, 0, run.stderr)
        let noScenario = try execute(NetbenchBinary.path, ["report", dir + "/out", "--format", "har"])
        XCTAssertEqual(noScenario.status, 64, noScenario.stderr)
        let report = try execute(
            NetbenchBinary.path, ["report", dir + "/out", "--format", "har", "--scenario", scenarioFile])
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertTrue(report.stdout.contains("wrote 3 HAR file(s)"), report.stdout)

        let results = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: dir + "/out/results.json")))
        let runs = try XCTUnwrap((results as? [String: Any])?["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.count, 3)
        let scenario = try json(scenarioFile)
        let name = try XCTUnwrap(scenario["name"] as? String)
        for r in runs {
            let transport = try XCTUnwrap(r["transport"] as? String)
            let har = "\(dir)/out/har/\(name)-loopback-\(transport)-\(r["index"] as? Int ?? -1).har"
            XCTAssertTrue(FileManager.default.fileExists(atPath: har), har)
            let metrics = try XCTUnwrap(r["metrics"] as? [String: Any])
            let plt = try XCTUnwrap(metrics["pltMs"] as? Double)
            let requests = try XCTUnwrap(r["requests"] as? [[String: Any]])

            let read = try execute(
                python,
                [
                    "-c",
                    """
                    import json, sys
                    from haralyzer import HarParser
                    page = HarParser.from_file(sys.argv[1]).pages[0]
                    versions = sorted({e['request']['httpVersion'] for e in page.entries})
                    print(json.dumps({"plt": page.page_load_time, "entries": len(page.entries), "versions": versions}))
                    """,
                    har,
                ])
            XCTAssertEqual(read.status, 0, read.stderr)
            let seen = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [String: Any], read.stdout)
            XCTAssertEqual(try XCTUnwrap(seen["plt"] as? Double), plt, accuracy: 0.001, transport)
            XCTAssertEqual(seen["entries"] as? Int, requests.count, transport)
            let version = ["h1": "HTTP/1.1", "h2": "HTTP/2", "h3": "HTTP/3"][transport]!
            XCTAssertEqual(seen["versions"] as? [String], [version], transport)

            let back = dir + "/back-\(transport).json"
            let imported = try execute(NetbenchBinary.path, ["import-har", har, "-o", back])
            XCTAssertEqual(imported.status, 0, imported.stderr)
            XCTAssertEqual(shape(try json(back)), shape(scenario), transport)
        }
    }

    /// Each resource as `host/path bytes type ← parent host/path`, sorted: what a round trip keeps.
    private func shape(_ s: [String: Any]) -> [String] {
        let hosts = Dictionary(
            uniqueKeysWithValues: (s["origins"] as? [[String: Any]] ?? []).map {
                ($0["id"] as? String ?? "", $0["host"] as? String ?? "")
            })
        let resources = s["resources"] as? [[String: Any]] ?? []
        let byID = Dictionary(uniqueKeysWithValues: resources.map { ($0["id"] as? String ?? "", $0) })
        func url(_ r: [String: Any]) -> String {
            (hosts[r["origin"] as? String ?? ""] ?? "?") + (r["path"] as? String ?? "")
        }
        return resources.map { r in
            let parent = (r["parent"] as? String).flatMap { byID[$0] }.map(url) ?? "-"
            return "\(url(r)) \(r["bytes"] as? Int ?? -1) \(r["type"] as? String ?? "") ← \(parent)"
        }.sorted()
    }

    private func json(_ path: String) throws -> [String: Any] {
        try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }
}
