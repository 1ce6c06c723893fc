import Foundation
import BenchCore
import BenchModel
import Statistics

/// The report formats `netbench report --format` and `ReportWriter` know.
public enum ReportFormat: String, CaseIterable, Sendable {
    /// `results.json` (the raw results, sorted keys).
    case json
    /// `summary.csv` and `runs.csv` (and `corpus.csv`, `fidelity.csv` when there is something to say).
    case csv
    /// `summary.md`.
    case md
    /// `report.html`.
    case html
    /// `metrics.prom`: the summary in Prometheus' text exposition format (only when asked for).
    case prometheus
    /// `metrics.influx`: one InfluxDB line-protocol point per run (only when asked for).
    case influx
    /// `har/*.har`: one HAR 1.2 per run (only when asked for; `HARExport`, which needs the scenarios).
    case har

    /// The formats a run writes and `ReportWriter` renders by default; the metrics formats only on request.
    public static let standard: [ReportFormat] = [.json, .csv, .md, .html]

    /// Parses `html,csv,md,json,prometheus,influx` (`markdown` for `md`, `prom`, `influxdb`): the formats, and the
    /// names it did not know
    /// (the command turns those into its usage error).
    public static func parse(_ text: String) -> (formats: [ReportFormat], unknown: [String]) {
        var out: [ReportFormat] = [], unknown: [String] = []
        for part in text.split(separator: ",") {
            let name = part.trimmingCharacters(in: .whitespaces).lowercased()
            let alias = ["markdown": "md", "prom": "prometheus", "influxdb": "influx"][name] ?? name
            guard let f = ReportFormat(rawValue: alias) else { unknown.append(name); continue }
            if !out.contains(f) { out.append(f) }
        }
        return (out, unknown)
    }

    /// The reporters that make this format's files.
    public var reporters: [any Reporter] {
        switch self {
        case .json: return [ResultsJSONReporter()]
        case .csv: return [SummaryCSV.reporter, RunsCSV.reporter, CorpusCSV.reporter, FidelityCSV.reporter]
        case .md: return [MarkdownSummary.reporter]
        case .html: return [HTMLReport.reporter]
        case .prometheus: return [PrometheusExposition.reporter]
        case .influx: return [InfluxLineProtocol.reporter]
        case .har: return []  // one file per run, from the results and the scenarios: `HARExport.files`
        }
    }
}

/// What every report shares: results in, bytes out (one file), no I/O. The executable writes the
/// files (`netbench report`, and the runner at the end of a run).
public protocol Reporter: Sendable {
    /// The file it makes, e.g. `summary.csv`.
    var fileName: String { get }
    /// Whether it needs the statistics (`ResultsAnalysis`), which cost a bootstrap per cell.
    var needsAnalysis: Bool { get }
    func render(_ results: ResultsFile, _ analysis: ResultsAnalysis?) throws -> Data
}

/// A reporter from a rendering function.
public struct TextReporter: Reporter {
    public let fileName: String
    public let needsAnalysis: Bool
    let body: @Sendable (ResultsFile, ResultsAnalysis?) -> String
    public init(
        fileName: String, needsAnalysis: Bool, _ body: @escaping @Sendable (ResultsFile, ResultsAnalysis?) -> String
    ) {
        self.fileName = fileName; self.needsAnalysis = needsAnalysis; self.body = body
    }
    public func render(_ results: ResultsFile, _ analysis: ResultsAnalysis?) throws -> Data {
        Data(body(results, analysis).utf8)
    }
}

/// `results.json`: the raw results, sorted keys.
public struct ResultsJSONReporter: Reporter {
    public init() {}
    public var fileName: String { "results.json" }
    public var needsAnalysis: Bool { false }
    public func render(_ results: ResultsFile, _ analysis: ResultsAnalysis?) throws -> Data {
        try JSONFile.encode(results)
    }
}

extension SummaryCSV {
    public static let reporter = TextReporter(fileName: "summary.csv", needsAnalysis: true) { render($1!) }
}
extension RunsCSV {
    public static let reporter = TextReporter(fileName: "runs.csv", needsAnalysis: false) { r, _ in render(r) }
}
extension MarkdownSummary {
    public static let reporter = TextReporter(fileName: "summary.md", needsAnalysis: true) { render($1!) }
}
extension HTMLReport {
    public static let reporter = TextReporter(fileName: "report.html", needsAnalysis: true) { render($1!) }
}

/// Renders the files of several formats in one pass (the statistics computed once).
public enum ReportWriter {
    /// The bytes of each file of `formats`, keyed by file name, in a stable order. Pure: no I/O. A
    /// reporter with nothing to say (`corpus.csv` of results with few pages) renders no file.
    public static func render(
        _ results: ResultsFile, formats: [ReportFormat] = ReportFormat.standard,
        resamples: Int = Bootstrap.defaultResamples
    ) throws -> [(fileName: String, data: Data)] {
        let reporters = formats.flatMap(\.reporters)
        let analysis = reporters.contains { $0.needsAnalysis } ? ResultsAnalysis(results, resamples: resamples) : nil
        return try reporters.map { ($0.fileName, try $0.render(results, analysis)) }.filter { !$0.1.isEmpty }
    }
}
