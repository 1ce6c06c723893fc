import Foundation
import BenchCore
import BenchModel

/// Writes a run's files after every run (atomically) and renders the terminal summary.
enum ResultsWriter {
    static func write(_ results: ResultsFile, to directory: String) throws {
        try JSONFile.save(results, to: directory + "/results.json")
    }

    static func terminalSummary(_ results: ResultsFile) -> String {
        "\(results.runs.filter { $0.status == .ok }.count) of \(results.runs.count) run(s) ok"
    }
}
