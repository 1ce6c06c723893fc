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
            Reads DIR/results.json (DIR may also be a results file) and writes its reports next to it, or into --out:
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

extension ValueParser where T == String {
    /// Checked here so that a bad format is a usage error before any file is read.
    static var reportFormats: ValueParser<String> {
        .init(expected: "a list of html, csv, md, json", completion: .choices(["html", "csv", "md", "json", "html,csv,md"])) {
            let parsed = ReportFormat.parse($0)
            return parsed.unknown.isEmpty && !parsed.formats.isEmpty ? $0 : nil
        }
    }
}
