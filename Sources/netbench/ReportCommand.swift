import Foundation
import BenchCore
import BenchModel
import Reporters

struct ReportCommand: Command {
    static let name = "report"
    static let summary = "(re)write the reports of a results directory"
    static let help = """
    usage: netbench report DIR [--format html,csv,md,json] [--out DIR]

    Reads DIR/results.json (DIR may also be a results file) and writes its reports next to it, or
    into --out:
      html   report.html              one self-contained page: charts, waterfalls, every figure
      csv    summary.csv, runs.csv    one row per scenario/profile/transport/metric; one per run
      md     summary.md               tables for a pull-request comment
      json   results.json             the results re-saved with sorted keys
    Default: html,csv,md (results.json is left as it is unless json is asked for).

    examples:
      netbench report results/2024-06-01
      netbench report results/2024-06-01 --format md --out /tmp/pr-comment
    """

    static func run(_ args: inout Arguments) throws -> ExitCode {
        let formats = try ReportFormat.parseList(try args.option("--format", "-f") ?? "html,csv,md")
        let out = try args.option("--out", "-o")
        let positionals = try args.positionals()
        guard positionals.count == 1 else {
            throw BenchError.usage(positionals.isEmpty ? "give the results directory (netbench report DIR)"
                                                       : "one results directory at a time (got \(positionals.count))")
        }
        let (results, dir) = try ResultsInput.load(positionals[0])
        for path in try ReportWriter.writeAll(results: results, to: out ?? dir, formats: formats) {
            print("wrote \(path)")
        }
        return .success
    }
}

/// Where a command finds `results.json`: a directory holding one, or the file itself.
enum ResultsInput {
    /// Loads the results (refusing other schema versions) and returns the directory they live in.
    static func load(_ path: String, role: String = "results") throws -> (ResultsFile, String) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw BenchError.data("\(path): \(role) not found (give a results directory or a results.json)")
        }
        if isDirectory.boolValue {
            let file = URL(fileURLWithPath: path).appendingPathComponent("results.json").path
            guard FileManager.default.fileExists(atPath: file) else {
                throw BenchError.data("\(path): no results.json in this directory (\(role))")
            }
            return (try ResultsFile.load(from: file), path)
        }
        return (try ResultsFile.load(from: path), URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }
}
