import Foundation
import BenchCore
import BenchModel
import Statistics

/// The report formats `netbench report --format` and `ReportWriter` know.
public enum ReportFormat: String, CaseIterable, Sendable {
    /// `results.json` (the raw results, `JSONFile.save` format: sorted keys).
    case json
    /// `summary.csv` and `runs.csv`.
    case csv
    /// `summary.md`.
    case md
    /// `report.html`.
    case html

    public var fileNames: [String] {
        switch self {
        case .json: return ["results.json"]
        case .csv: return ["summary.csv", "runs.csv"]
        case .md: return ["summary.md"]
        case .html: return ["report.html"]
        }
    }

    /// Parses `html,csv,md,json` (`markdown` for `md`); a usage error names an unknown format.
    public static func parseList(_ text: String) throws -> [ReportFormat] {
        var out: [ReportFormat] = []
        for part in text.split(separator: ",") {
            let name = part.trimmingCharacters(in: .whitespaces).lowercased()
            guard let f = ReportFormat(rawValue: name == "markdown" ? "md" : name) else {
                throw BenchError.usage("unknown format '\(name)' (formats: html, csv, md, json)")
            }
            if !out.contains(f) { out.append(f) }
        }
        guard !out.isEmpty else { throw BenchError.usage("--format needs at least one of html, csv, md, json") }
        return out
    }
}

/// Renders reports and writes them, atomically, next to `results.json`. The runner calls
/// `writeAll` after every run, so a crash loses at most the run in flight.
public enum ReportWriter {
    /// The bytes of each file of `formats`, keyed by file name, in a stable order. Pure: no I/O.
    public static func render(_ results: ResultsFile, formats: [ReportFormat] = ReportFormat.allCases,
                              resamples: Int = Bootstrap.defaultResamples) throws -> [(fileName: String, data: Data)] {
        // Statistics only when a format needs them.
        let needsAnalysis = formats.contains { $0 != .json }
        let analysis = needsAnalysis ? ResultsAnalysis(results, resamples: resamples) : nil
        var out: [(String, Data)] = []
        for format in formats {
            switch format {
            case .json: out.append(("results.json", try JSONFile.encode(results)))
            case .csv:
                out.append(("summary.csv", Data(SummaryCSV.render(analysis!).utf8)))
                out.append(("runs.csv", Data(RunsCSV.render(results).utf8)))
            case .md: out.append(("summary.md", Data(MarkdownSummary.render(analysis!).utf8)))
            case .html: out.append(("report.html", Data(HTMLReport.render(analysis!).utf8)))
            }
        }
        return out
    }

    /// Writes every file of `formats` into `directory` (created if missing) with
    /// `JSONFile.writeAtomically`; returns the paths written, in order.
    @discardableResult
    public static func writeAll(results: ResultsFile, to directory: String, formats: [ReportFormat] = ReportFormat.allCases,
                                resamples: Int = Bootstrap.defaultResamples) throws -> [String] {
        var written: [String] = []
        for (name, data) in try render(results, formats: formats, resamples: resamples) {
            let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
            try JSONFile.writeAtomically(data, to: path)
            written.append(path)
        }
        return written
    }
}
