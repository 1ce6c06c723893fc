import Foundation
import BenchCore
import BenchModel
import Reporters
import CommandLineKit

struct ReportCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "report",
            abstract: "(re)write the reports of a results directory",
            discussion: """
            Reads DIR/runs.jsonl (or, for older runs and merges, DIR/results.json; DIR may also be either file) and writes its reports next to it, or into --out:
              html   report.html              one self-contained page: charts, waterfalls, every figure
              csv    summary.csv, runs.csv    one row per scenario/profile/transport/metric; one per run
              md     summary.md               tables for a pull-request comment
              json   results.json             the results re-saved with sorted keys
            Default: html,csv,md (results.json is left as it is unless json is asked for).
            """,
            examples: ["netbench report results/2024-06-01", "netbench report results/2024-06-01 --format md --out /tmp/pr-comment"],
            exitCodes: [ExitCodeDoc(.success, "written"), Netbench.usageExit,
                        ExitCodeDoc(.dataError, "missing or unreadable results, or results of another schema version")])
    }

    @Argument("DIR", help: "the results directory (or its results.json)", completion: .directory) var input: String
    @Option("--format", "-f", value: "LIST", default: "html,csv,md", help: "formats to write: html, csv, md, json", parse: .reportFormats) var formatText: String
    @Option("--out", "-o", value: "DIR", help: "where to write (default: next to the results)", parse: .directory) var out: String?

    func run() throws -> ExitCode {
        let formats = ReportFormat.parse(formatText).formats
        let (results, dir) = try ResultsInput.load(input)
        for path in try ResultsWriter.write(results, to: out ?? dir, formats: formats) {
            print("wrote \(path)")
        }
        return .success
    }
}

/// Where a command finds its results: a directory holding `runs.jsonl` (the append-only log, read
/// first) or `results.json` (older runs, merges), or one of those files itself.
enum ResultsInput {
    /// Loads the results (refusing other schema versions) and returns the directory they live in.
    /// A cut-off last line of a log (a run killed mid-write) is dropped, and said on standard error.
    static func load(_ path: String, role: String = "results") throws -> (ResultsFile, String) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw BenchError.data("\(path): \(role) not found (give a results directory, its runs.jsonl or its results.json)")
        }
        if isDirectory.boolValue {
            let log = URL(fileURLWithPath: path).appendingPathComponent(ResultsLog.fileName).path
            if FileManager.default.fileExists(atPath: log) { return (try loadLog(log), path) }
            let file = URL(fileURLWithPath: path).appendingPathComponent("results.json").path
            guard FileManager.default.fileExists(atPath: file) else {
                throw BenchError.data("\(path): no runs.jsonl or results.json in this directory (\(role))")
            }
            return (try ResultsFile.load(from: file), path)
        }
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if path.hasSuffix(".jsonl") { return (try loadLog(path), dir) }
        return (try ResultsFile.load(from: path), dir)
    }

    static func loadLog(_ path: String) throws -> ResultsFile {
        let contents = try ResultsLog.load(from: path)
        if contents.droppedBytes > 0 {
            writeError("netbench: note: \(path): the last line was cut off (\(contents.droppedBytes) bytes, a run interrupted mid-write): dropped; \(contents.runs.count) full run(s) read")
        }
        return contents.resultsFile
    }
}

extension ValueParser where T == String {
    /// Checked here so that a bad format is a usage error before any file is read.
    static var reportFormats: ValueParser<String> {
        .init(expected: "a list of html, csv, md, json", completion: .choices(["html", "csv", "md", "json", "html,csv,md"])) {
            let parsed = ReportFormat.parse($0)
            return parsed.unknown.isEmpty && !parsed.formats.isEmpty ? $0 : nil
        }
    }
}
