import Foundation
import BenchCore
import BenchModel
import SystemIO
import Workloads
import Statistics
import Reporters

/// `netbench merge` of `netbench load --shard` directories (each with load.json).
enum LoadMergeInput {
    static func holdsLoad(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path + "/load.json") || path.hasSuffix("load.json")
    }

    /// DIR/load.json (or the file given), of this build's schema version.
    static func read(_ dir: String) throws -> LoadResults {
        let file = dir.hasSuffix(".json") ? dir : dir + "/load.json"
        guard let data = FileManager.default.contents(atPath: file) else {
            throw BenchError.data("\(file): cannot read (netbench load's load.json)")
        }
        let r = try JSONFile.decode(LoadResults.self, from: data, file: file)
        guard r.schemaVersion == LoadResults.currentVersion else {
            throw BenchError.data("\(file): schemaVersion \(r.schemaVersion), expected \(LoadResults.currentVersion)")
        }
        return r
    }

    /// `netbench check LOAD_DIR --thresholds FILE`: every load threshold as a check outcome.
    static func check(_ input: String, baseline: String?, thresholds: String?) throws -> [CheckOutcome] {
        if let baseline {
            throw BenchError.usage(
                "--baseline \(baseline): load results are checked against thresholds only (--thresholds FILE)")
        }
        guard let thresholds else { throw BenchError.usage("load results need --thresholds FILE") }
        let results = try read(input)
        return results.check(try LoadThresholdFile.load(from: thresholds)).map {
            CheckOutcome(kind: .threshold, name: $0.name, status: $0.passed ? .passed : .failed, message: $0.message)
        }
    }

    static func merge(_ inputs: [String], into out: String) throws -> ExitCode {
        let shards = try inputs.map { dir -> (source: String, results: LoadResults) in (dir, try read(dir)) }
        var merged = try LoadResults.merged(shards)
        for i in merged.loads.indices {
            merged.loads[i].hlog = try mergeLogs(shards, load: i, into: out)
        }
        try AtomicFile.write(try JSONFile.encode(merged), to: out + "/load.json")
        for l in merged.loads { print(LoadSummary.text(l)) }
        print(
            "merged \(shards.count) load shard(s) → \(out)/load.json"
                + merged.loads.compactMap { $0.hlog.map { ", \(out)/\($0)" } }.joined())
        return .success
    }

    /// The interval log of load `i` summed over the shards (`HistogramLog.merged`), written as
    /// `latency-<transport>.hlog` in `out`; nil (with a note) when a shard has none.
    static func mergeLogs(_ shards: [(source: String, results: LoadResults)], load i: Int, into out: String) throws
        -> String?
    {
        let t = shards[0].results.loads[i].transport.rawValue
        var logs: [HistogramLog] = []
        for (source, r) in shards {
            guard let name = r.loads[i].hlog else {
                writeError("merge: \(source): load \(t) has no interval log; the merged load has none either")
                return nil
            }
            let dir = source.hasSuffix(".json") ? (source as NSString).deletingLastPathComponent : source
            let file = (dir.isEmpty ? "." : dir) + "/" + name
            guard let text = FileManager.default.contents(atPath: file).flatMap({ String(data: $0, encoding: .utf8) })
            else { throw BenchError.data("\(file): cannot read (the interval log load.json names)") }
            do { logs.append(try HistogramLog.parse(text)) } catch {
                throw BenchError.data("\(file): \(error)")
            }
        }
        let name = "latency-\(t).hlog"
        let log: HistogramLog
        do {
            log = try HistogramLog.merged(
                logs,
                comment: "netbench merge of \(shards.count) load shards, \(t), latency in µs, Interval_Max in ms")
        } catch { throw BenchError.data("the shards' \(t) interval logs do not add: \(error)") }
        try AtomicFile.write(Data(log.render().utf8), to: out + "/" + name)
        return name
    }

    /// `netbench report LOAD_DIR`: load-report.html (latency against rate, percentile curves, figures).
    static func report(_ input: String, out: String?) throws -> ExitCode {
        let results = try read(input)
        let dir = out ?? (input.hasSuffix(".json") ? (input as NSString).deletingLastPathComponent : input)
        let path = (dir.isEmpty ? "." : dir) + "/load-report.html"
        try AtomicFile.write(Data(LoadReport.html(try reportInput(results)).utf8), to: path)
        print("wrote \(path)")
        return .success
    }

    static func reportInput(_ r: LoadResults) throws -> LoadReport.Input {
        let series = try r.loads.map { l in
            let h = try l.histogram.decode()
            let curve =
                h.totalCount == 0
                ? []
                : LoadReport.curvePercentiles.map { p in
                    (percentile: p, ms: Double(p >= 100 ? h.maxValue : h.value(atPercentile: p)) / 1000)
                }
            return LoadReport.Series(
                transport: l.transport, label: l.transport.rawValue + (l.model == "closed" ? " (closed)" : ""),
                points: l.steps.map { s in
                    LoadReport.Point(
                        askedRate: s.rate, achievedRate: s.achievedRate, p50: s.latencyMs.p50, p90: s.latencyMs.p90,
                        p99: s.latencyMs.p99, p999: s.latencyMs.p999, max: s.latencyMs.max, count: s.latencyMs.count)
                }, curve: curve)
        }
        let link = r.loads.compactMap(\.link).first
        return LoadReport.Input(
            title: "netbench load, \(r.startedAt)" + (r.shard.map { " (\($0))" } ?? ""), server: r.server,
            series: series, idealMs: link?.idealMs, capacityRate: link?.capacityRate)
    }
}
