import Foundation
import BenchCore
import BenchModel
import Reporters
import SystemIO

/// Writes a run's files: results.json and summary.csv after every run (atomically, so a crash or
/// Ctrl-C loses nothing), every format once the run ends. The reporters render; this writes.
enum ResultsWriter {
    static func writeProgress(_ results: ResultsFile, to directory: String) throws {
        try write(results, to: directory, formats: [.json, .csv])
    }

    static func writeFinal(_ results: ResultsFile, to directory: String) throws {
        try write(results, to: directory)
    }

    /// Every file of `formats` into `directory` (created if missing), atomically; the paths written.
    @discardableResult
    static func write(_ results: ResultsFile, to directory: String, formats: [ReportFormat] = ReportFormat.allCases) throws -> [String] {
        try ReportWriter.render(results, formats: formats).map { name, data in
            let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
            try AtomicFile.write(data, to: path)
            return path
        }
    }

    static func terminalSummary(_ results: ResultsFile) -> String { TextSummary.render(results) }
}
