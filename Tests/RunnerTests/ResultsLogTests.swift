import XCTest
import Foundation
import BenchCore
import BenchModel
import SystemIO

/// runs.jsonl: appended one durable line per run; a crash between or during writes loses at most
/// the run in flight, and reading keeps every full record.
final class ResultsLogTests: XCTestCase {
    var path = ""

    override func setUp() {
        let dir = NSTemporaryDirectory() + "netbench-log-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        path = dir + "/" + ResultsLog.fileName
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
    }

    func header() -> ResultsLog.Header {
        ResultsLog.Header(
            planDigest: "sha256:00", host: HostInfo(kernel: "Linux test", cpuCount: 2, hostname: "h"),
            netbenchVersion: "test",
            shard: ShardSpec(index: 1, count: 2), startedAt: "2026-01-01T00:00:00Z",
            suite: SuiteInfo(name: "t", scenarios: ["s"], profiles: [.loopback], transports: [.h1], runs: 3, seed: 1))
    }

    func record(_ i: Int) -> RunRecord {
        var r = RunRecord(scenario: "s", profile: "loopback", transport: .h1, index: i, status: .ok)
        r.metrics.pltMs = 100 + Double(i)
        r.requests = [RequestRecord(id: "doc", origin: "a.example", queued: 0, bytes: 1000 + Int64(i))]
        return r
    }

    func write(_ records: Range<Int>) throws {
        let file = try AppendOnlyFile(path: path)
        if records.lowerBound == 0 { try file.append(ResultsLog.headerLine(header())) }
        for i in records { try file.append(ResultsLog.recordLine(record(i))) }
    }

    func testRecordsReadBackInOrderWithTheHeader() throws {
        try write(0..<3)
        let c = try ResultsLog.load(from: path)
        XCTAssertEqual(c.runs.map(\.index), [0, 1, 2])
        XCTAssertEqual(c.runs.map(\.requests[0].bytes), [1000, 1001, 1002])
        XCTAssertEqual(c.droppedBytes, 0)
        XCTAssertEqual(c.header.shard, ShardSpec(index: 1, count: 2))
        let results = c.resultsFile
        XCTAssertEqual(results.planDigest, "sha256:00")
        XCTAssertEqual(results.runs.count, 3)
        XCTAssertEqual(results.shards?.first?.host.hostname, "h")
    }

    func testALogOfManyBlocksReadsBackWhole() throws {
        let file = try AppendOnlyFile(path: path)
        try file.append(ResultsLog.headerLine(header()))
        var bytes = 0
        for i in 0..<400 {
            var r = record(i)
            r.requests = (0..<100).map {
                RequestRecord(id: "r\($0)-\(i)", origin: "origin-\($0).example", queued: Double($0), bytes: Int64($0))
            }
            let line = try ResultsLog.recordLine(r)
            bytes += line.count
            try file.append(line, sync: false)
        }
        XCTAssertGreaterThan(bytes, 2 << 20, "records straddle the reader's 1 MiB blocks")
        let c = try ResultsLog.load(from: path)
        XCTAssertEqual(c.runs.map(\.index), Array(0..<400))
        XCTAssertEqual(c.runs[399].requests.last?.id, "r99-399")
        XCTAssertEqual(c.droppedBytes, 0)
    }

    func testSkimmingLeavesRequestsAndConnectionsOutAndDetailsReadRunsWhole() throws {
        let file = try AppendOnlyFile(path: path)
        try file.append(ResultsLog.headerLine(header()))
        for i in 0..<3 {
            var r = record(i)
            // Brackets, braces, quotes and a key name inside strings must not confuse the scan.
            r.error = #"x "requests":[{ ] } \ "# + "\(i)"
            r.connections = [ConnectionRecord(id: i, origin: "a.example", transport: .h1, connectStart: 0.5)]
            try file.append(ResultsLog.recordLine(r), sync: false)
        }
        let c = try ResultsLog.load(from: path, skimming: true)
        XCTAssertTrue(c.skimmed)
        XCTAssertEqual(c.runs.map(\.index), [0, 1, 2])
        XCTAssertEqual(c.runs.map(\.metrics.pltMs), [100, 101, 102])
        XCTAssertEqual(c.runs.map(\.error), (0..<3).map { #"x "requests":[{ ] } \ "# + "\($0)" })
        XCTAssertTrue(c.runs.allSatisfy { $0.requests.isEmpty && $0.connections.isEmpty })
        let whole = try ResultsLog.details(of: [2, 0], in: c, path: path)
        XCTAssertEqual(whole.keys.sorted(), [0, 2])
        XCTAssertEqual(whole[2]?.requests.map(\.bytes), [1002])
        XCTAssertEqual(whole[0]?.connections.map(\.id), [0])
        XCTAssertEqual(whole[2]?.error, c.runs[2].error)
    }

    /// results.json pretty-printed from the log's lines (never decoded) is byte for byte the
    /// encoding of the decoded runs: awkward strings (quotes, backslashes, brackets, a key name,
    /// non-ASCII, control characters), empty and nested arrays, odd numbers, a cut-off last line.
    func testResultsFromTheLogsLinesEqualEncodingTheDecodedRuns() throws {
        let file = try AppendOnlyFile(path: path)
        try file.append(ResultsLog.headerLine(header()))
        for i in 0..<4 {
            var r = record(i)
            r.error = i == 1 ? nil : #"x "requests":[{ ] } \ / é 😀 "# + "\u{1}\u{7f}\t\n\(i)"
            r.metrics.pltMs = [0.1 + 0.2, 1e-7, 12_345_678_901.25, 100][i]
            r.connections =
                i == 2 ? [] : [ConnectionRecord(id: i, origin: "a.example", transport: .h1, connectStart: 0.5)]
            r.requests = i == 3 ? [] : r.requests
            try file.append(ResultsLog.recordLine(r), sync: false)
        }
        // A line another tool wrote: spaces after separators, keys out of order, 100.0 for 100.
        try file.append(
            Array(
                (#"{"transport": "h1", "status": "ok", "scenario": "s", "profile": "loopback", "index": 7, "metrics": "#
                    + #"{"pltMs": 100.0}, "requests": [], "connections": [], "pathEvents": []}"#)
                    .utf8) + [0x0A], sync: false)
        try file.append(Array(try ResultsLog.recordLine(record(9)).prefix(40)), sync: false)  // cut off mid-write
        let whole = try ResultsLog.load(from: path)
        let skimmed = try ResultsLog.load(from: path, skimming: true)
        XCTAssertEqual(whole.runs.count, 5)
        XCTAssertEqual(skimmed.lines.count, 5)
        var fromLines: [UInt8] = []
        try skimmed.resultsFile.encodeJSON(log: path, lines: skimmed.lines) { fromLines += $0 }
        let expected = try JSONFile.encode(whole.resultsFile)
        XCTAssertEqual(String(decoding: fromLines, as: UTF8.self), String(decoding: expected, as: UTF8.self))
        XCTAssertEqual(fromLines, [UInt8](expected))
    }

    func testPrettyPrintingMatchesFoundation() throws {
        struct Odd: Codable {
            var a: [Int] = []; var b: [String: Int] = [:]; var c = [[Int]](arrayLiteral: [], [3]); var d = [["x": 1.5]];
            var e = "q\"\\/é\u{1}:,{}[]"; var f = -0.0; var g: [String: [String: Int]] = ["k": [:]]
        }
        let compact = JSONEncoder(); compact.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes = try compact.encode(Odd())
        var out: [UInt8] = []
        _ = bytes.withUnsafeBytes { JSONPretty.append($0, depth: 0, to: &out) }
        out.append(0x0A)
        XCTAssertEqual(
            String(decoding: out, as: UTF8.self), String(decoding: try JSONFile.encode(Odd()), as: UTF8.self))
    }

    func testKillBetweenWritesLosesNothing() throws {
        try write(0..<2)
        // A new process (the next write after a kill) appends to the same log.
        try write(2..<4)
        XCTAssertEqual(try ResultsLog.load(from: path).runs.map(\.index), [0, 1, 2, 3])
    }

    func testKillDuringAWriteDropsOnlyTheCutOffRecord() throws {
        try write(0..<3)
        let full = try XCTUnwrap(FileManager.default.contents(atPath: path))
        let line = try ResultsLog.recordLine(record(3))
        // Cut the fourth record at every length a write could have been stopped at.
        for cut in [1, line.count / 2, line.count - 1] {
            try (full + Data(line.prefix(cut))).write(to: URL(fileURLWithPath: path))
            let c = try ResultsLog.load(from: path)
            XCTAssertEqual(c.runs.map(\.index), [0, 1, 2], "cut at \(cut)")
            XCTAssertEqual(c.droppedBytes, cut)
        }
        // The next writer cuts the partial line away before appending, so nothing is glued to it.
        let file = try AppendOnlyFile(path: path)
        XCTAssertEqual(file.truncatedBytes, Int64(line.count - 1))
        try file.append(line)
        let c = try ResultsLog.load(from: path)
        XCTAssertEqual(c.runs.map(\.index), [0, 1, 2, 3])
        XCTAssertEqual(c.droppedBytes, 0)
    }

    func testACutOffHeaderIsAnErrorNamingTheFile() throws {
        let headerLine = try ResultsLog.headerLine(header())
        try Data(headerLine.prefix(10)).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try ResultsLog.load(from: path)) { e in
            XCTAssertEqual((e as? BenchError)?.exitCode, .dataError)
            XCTAssertTrue("\(e)".contains(path), "\(e)")
        }
    }

    func testABadLineInTheMiddleNamesFileLineAndKey() throws {
        try write(0..<1)
        let file = try AppendOnlyFile(path: path)
        try file.append(Array(#"{"scenario":"s","profile":"p","transport":"h9"}"#.utf8) + [0x0A])
        try file.append(ResultsLog.recordLine(record(2)))
        XCTAssertThrowsError(try ResultsLog.load(from: path)) { e in
            XCTAssertEqual((e as? BenchError)?.exitCode, .dataError)
            XCTAssertTrue("\(e)".contains("\(path):3"), "\(e)")
            XCTAssertTrue("\(e)".contains("transport"), "\(e)")
        }
    }

    func testAnotherSchemaVersionIsRefusedByName() throws {
        var h = try JSONSerialization.jsonObject(with: Data(ResultsLog.headerLine(header()))) as! [String: Any]
        h["schemaVersion"] = 7
        try (JSONSerialization.data(withJSONObject: h) + Data([0x0A])).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try ResultsLog.load(from: path)) { e in
            XCTAssertTrue("\(e)".contains("schemaVersion is 7"), "\(e)")
        }
    }
}

/// results.json written a run at a time is byte for byte what encoding it whole gives.
final class StreamedResultsJSONTests: XCTestCase {
    func results(_ n: Int) -> ResultsFile {
        var r = ResultsFile(
            netbenchVersion: "test", startedAt: "2026-01-01T00:00:00Z",
            host: HostInfo(kernel: "Linux", cpuCount: 2, hostname: "h"),
            suite: SuiteInfo(
                name: "t", scenarios: ["s"], profiles: [.loopback], transports: [.h1, .h2], runs: n, seed: 1))
        r.planDigest = "sha256:ab"
        for i in 0..<n {
            var run = RunRecord(
                scenario: "s", profile: "loopback", transport: i % 2 == 0 ? .h1 : .h2, index: i / 2,
                status: i == 3 ? .failed : .ok)
            run.error = i == 3 ? "line one\nline \"two\" / three" : nil
            run.metrics.pltMs = 10.5 + Double(i)
            run.requests = [RequestRecord(id: "doc", origin: "a.example", queued: 0, bytes: 100)]
            run.connections = [ConnectionRecord(id: 0, origin: "a.example", transport: .h1, connectStart: 0.25)]
            r.runs.append(run)
        }
        return r
    }

    func testStreamedBytesEqualTheWholeEncoding() throws {
        for n in [0, 1, 5] {
            let r = results(n)
            var streamed: [UInt8] = []
            try r.encodeJSON { streamed += $0 }
            XCTAssertEqual(
                String(decoding: streamed, as: UTF8.self), String(decoding: try JSONFile.encode(r), as: UTF8.self),
                "\(n) runs")
        }
    }

    func testReplaceWritesTheWholeFileAtomically() throws {
        let dir = NSTemporaryDirectory() + "netbench-replace-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/results.json"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        struct Stop: Error {}
        XCTAssertThrowsError(
            try AppendOnlyFile.replace(path) { write in
                try write(Array("new".utf8)); throw Stop()
            })
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "old", "a failed write leaves the old file")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir), ["results.json"], "no temporary file left")
        let r = results(300)
        try AppendOnlyFile.replace(path) { write in try r.encodeJSON(in: write) }
        XCTAssertEqual(try ResultsFile.load(from: path).runs.count, 300)
    }
}
