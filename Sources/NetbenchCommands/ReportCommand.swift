import Foundation
import BenchCore
import BenchModel
import Reporters
import CommandLineKit
import SystemIO

struct ReportCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "report",
            abstract: "(re)write the reports of a results directory",
            discussion: """
                Reads DIR/runs.jsonl (or, for older runs and merges, DIR/results.json; DIR may also be either file) \
                and writes its reports next to it, or into --out:
                  html   report.html              one self-contained page: charts, waterfalls, every figure
                  csv    summary.csv, runs.csv    one row per scenario/profile/transport/metric; one per run
                         fidelity.csv             with the built-in client and a browser: per cell built-in \
                median PLT ÷ the browser's, outside ±5% (mobile-median) or ±10% flagged (also in html and md)
                  md     summary.md               tables for a pull-request comment
                  json   results.json             the results re-saved with sorted keys
                  prometheus  metrics.prom        the summary in Prometheus' text format: per \
                  scenario/profile/transport/client \
                median and p95 PLT and TTFB (seconds), runs, failures; labels netbench_version and commit
                  influx      metrics.influx      InfluxDB line protocol, one point per run at the run's own start time
                  har    har/S-P-T-N.har          one HAR 1.2 per run (needs --scenario): a page (onLoad: the load \
                event, else the PLT) and one entry per request with its timings, protocol (httpVersion), connection \
                id, server IP, _priority, _resourceType and _initiator (the parent's URL), so HAR tools read a run \
                and 'netbench import-har' rebuilds the scenario's resources, sizes and dependency tree from it
                Default: html,csv,md (results.json is left as it is unless json is asked for); with --push and no \
                --format, nothing is written.
                --push URL sends the Prometheus text to a Pushgateway with PUT URL/metrics/job/netbench/suite/<suite>\
                [/label/<label>] (the results' suite and --label of the run), replacing that group's metrics: the \
                gateway keeps the latest run, the history stays in the results directories.
                Load results (DIR with load.json from netbench load -o): load-report.html, a chart of each rate step's \
                p50/p90/p99/p99.9 against the rate it achieved (with the emulated link's ideal and capacity when \
                load -p was used), each load's latency by percentile, and a table of the figures.
                """,
            examples: [
                "netbench report results/2024-06-01",
                "netbench report results/2024-06-01 --format md --out /tmp/pr-comment",
                "netbench report results/2024-06-01 --format prometheus,influx",
                "netbench report results/2024-06-01 --push http://127.0.0.1:9091",
                "netbench report results/2024-06-01 --format har --scenario Scenarios/pages/small-page.json",
                "netbench report load-out",
            ],
            exitCodes: [
                ExitCodeDoc(.success, "written (and pushed)"), Netbench.usageExit,
                ExitCodeDoc(.runFailed, "--push: the Pushgateway could not be reached or refused the metrics"),
                ExitCodeDoc(.dataError, "missing or unreadable results, or results of another schema version"),
            ])
    }

    @Argument("DIR", help: "the results directory (or its results.json)", completion: .directory) var input: String
    @Option(
        "--format", "-f", value: "LIST",
        help: "formats to write: html, csv, md, json, prometheus, influx, har (default: html,csv,md)",
        parse: .reportFormats)
    var formatText: String?
    @Option(
        "--scenario", value: "LIST",
        help: "--format har: the scenario files the runs loaded (comma-separated), for URLs and initiators",
        parse: .list(of: .nonEmpty)) var scenarioFiles: [String]?
    @Option("--out", "-o", value: "DIR", help: "where to write (default: next to the results)", parse: .directory)
    var out: String?
    @Option(
        "--push", value: "URL", help: "send the Prometheus metrics to this Pushgateway (http://HOST:PORT)",
        parse: .pushgateway) var push: String?

    func run() throws -> ExitCode {
        if LoadMergeInput.holdsLoad(input) {
            guard formatText == nil || formatText == "html", push == nil, scenarioFiles == nil else {
                throw BenchError.usage("load results (load.json) have one report: html (load-report.html)")
            }
            return try LoadMergeInput.report(input, out: out)
        }
        let formats = ReportFormat.parse(formatText ?? (push == nil ? "html,csv,md" : "")).formats
        // Reports draw requests and connections of a few runs only: the log is skimmed and those runs
        // read whole, and results.json is pretty-printed from the log's lines as they are read (the
        // time and memory of a report of thousands of runs).
        let har = formats.contains(.har)
        if har && scenarioFiles == nil {
            throw BenchError.usage("--format har needs --scenario FILE,... (the scenarios the runs loaded)")
        }
        let scenarios = try (scenarioFiles ?? []).map { try Scenario.load(from: $0) }
        // A HAR needs every run whole; the other reports read a skimmed log.
        let (results, dir, log) = try ResultsInput.loadWithLog(input, forReports: !har)
        for path in try ResultsWriter.write(results, to: out ?? dir, formats: formats.filter { $0 != .har }, log: log) {
            print("wrote \(path)")
        }
        if har {
            let files = try HARExport.files(results, scenarios: scenarios)
            let root = URL(fileURLWithPath: out ?? dir)
            do {
                try FileManager.default.createDirectory(
                    at: root.appendingPathComponent(HARExport.directory), withIntermediateDirectories: true)
            } catch {
                throw BenchError.run(
                    "\(root.path)/\(HARExport.directory): cannot create: \(error.localizedDescription)")
            }
            for (name, data) in files { try AtomicFile.write(data, to: root.appendingPathComponent(name).path) }
            print("wrote \(files.count) HAR file(s) in \(root.appendingPathComponent(HARExport.directory).path)")
        }
        if let push, let target = MetricsPush.parse(push) {
            let body = try PrometheusExposition.reporter.render(results, ResultsAnalysis(results))
            let path = PrometheusExposition.pushPath(results)
            let status = try MetricsPush.put(body, path: path, to: target)
            print(
                "pushed \(body.count) bytes to \(push.hasSuffix("/") ? String(push.dropLast()) : push)\(path) "
                    + "(\(status))"
            )
        }
        return .success
    }
}

/// Where a command finds its results: a directory holding `runs.jsonl` (the append-only log, read
/// first) or `results.json` (older runs, merges), or one of those files itself.
enum ResultsInput {
    /// Loads the results (refusing other schema versions) and returns the directory they live in.
    /// A cut-off last line of a log (a run killed mid-write) is dropped, and said on standard error.
    /// `forReports`: a log's runs are skimmed, whole only where `ResultsAnalysis.runsDrawnWhole` says.
    static func load(_ path: String, role: String = "results", forReports: Bool = false) throws -> (ResultsFile, String)
    {
        let (results, dir, _) = try loadWithLog(path, role: role, forReports: forReports)
        return (results, dir)
    }

    /// `load`, and when the results came from a log, where each run's line lies in it.
    static func loadWithLog(_ path: String, role: String = "results", forReports: Bool = false) throws -> (
        ResultsFile, String, ResultsWriter.LogLines?
    ) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw BenchError.data(
                "\(path): \(role) not found (give a results directory, its runs.jsonl or its results.json)")
        }
        if isDirectory.boolValue {
            let log = URL(fileURLWithPath: path).appendingPathComponent(ResultsLog.fileName).path
            if FileManager.default.fileExists(atPath: log) {
                let (results, lines) = try loadLog(log, forReports: forReports)
                return (results.withFilmstrips(from: path), path, ResultsWriter.LogLines(path: log, lines: lines))
            }
            let file = URL(fileURLWithPath: path).appendingPathComponent("results.json").path
            guard FileManager.default.fileExists(atPath: file) else {
                throw BenchError.data("\(path): no runs.jsonl or results.json in this directory (\(role))")
            }
            return (try ResultsFile.load(from: file), path, nil)
        }
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if path.hasSuffix(".jsonl") {
            let (results, lines) = try loadLog(path, forReports: forReports)
            return (results.withFilmstrips(from: dir), dir, ResultsWriter.LogLines(path: path, lines: lines))
        }
        return (try ResultsFile.load(from: path), dir, nil)
    }

    static func loadLog(_ path: String, forReports: Bool = false) throws -> (ResultsFile, [ResultsLog.LineRange]) {
        let contents = try ResultsLog.load(from: path, skimming: forReports)
        if contents.droppedBytes > 0 {
            writeError(
                "netbench: note: \(path): the last line was cut off (\(contents.droppedBytes) bytes, a run interrupted "
                    + "mid-write): dropped; \(contents.runs.count) full run(s) read"
            )
        }
        var results = contents.resultsFile
        if forReports {
            let whole = try ResultsLog.details(of: ResultsAnalysis.runsDrawnWhole(results), in: contents, path: path)
            for (i, run) in whole { results.runs[i] = run }
        }
        return (results, contents.lines)
    }
}

extension ResultsFile {
    /// The log keeps runs only: `run --filmstrip`'s frames are in the directory's results.json.
    func withFilmstrips(from directory: String) -> ResultsFile {
        struct Strips: Decodable { var filmstrips: [FilmstripRecord]? }
        let file = URL(fileURLWithPath: directory).appendingPathComponent("results.json").path
        guard let data = FileManager.default.contents(atPath: file),
            let strips = try? JSONDecoder().decode(Strips.self, from: data).filmstrips
        else { return self }
        var out = self
        out.filmstrips = strips
        return out
    }
}

extension ValueParser where T == String {
    /// Checked here so that a bad format is a usage error before any file is read.
    static var reportFormats: ValueParser<String> {
        .init(
            expected: "a list of html, csv, md, json, prometheus, influx, har",
            completion: .choices(["html", "csv", "md", "json", "prometheus", "influx", "har", "html,csv,md"])
        ) {
            let parsed = ReportFormat.parse($0)
            return parsed.unknown.isEmpty && !parsed.formats.isEmpty ? $0 : nil
        }
    }
}

extension ValueParser where T == String {
    static var pushgateway: ValueParser<String> {
        .init(expected: "a Pushgateway URL, http://HOST:PORT", completion: .none) {
            MetricsPush.parse($0) == nil ? nil : $0
        }
    }
}
