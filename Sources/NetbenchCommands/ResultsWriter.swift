import Foundation
import BenchCore
import BenchModel
import Reporters

/// Writes a run's files: results.json and summary.csv after every run (atomically, so a crash or
/// Ctrl-C loses nothing), every format once the run ends.
enum ResultsWriter {
    static func writeProgress(_ results: ResultsFile, to directory: String) throws {
        try ReportWriter.writeAll(results: results, to: directory, formats: [.json, .csv])
    }

    static func writeFinal(_ results: ResultsFile, to directory: String) throws {
        try ReportWriter.writeAll(results: results, to: directory)
    }

    static func terminalSummary(_ results: ResultsFile) -> String { TextSummary.render(results) }
}
