import Foundation
import BenchModel
import Statistics

/// `netbench history`: a series of results directories in commit or date order and, per scenario ×
/// profile × transport (× client) and metric (PLT, TTFB), one point per directory holding that
/// cell: the median with its 95% CI, and the change from the cell's previous point as `compare`
/// decides it (`ResultsComparison`: bootstrap CI of the relative change excluding 0 and
/// Mann-Whitney p < 0.05, beyond the noise band). Points where the host or the netbench version
/// differ from the previous point's are marked: their change may not be the code's.
public struct History: Sendable {
    /// One results directory in the series.
    public struct Entry: Sendable {
        /// How the caller named it (the directory path).
        public var name: String
        public var results: ResultsFile
        public init(name: String, results: ResultsFile) { self.name = name; self.results = results }

        /// What orders the series: the commit's date when recorded, else the run's start.
        public var date: String { results.source?.commitDate ?? results.startedAt }
        /// A short name for axes: the label, else the commit's first 7 characters, else the directory's last component.
        public var shortName: String {
            if let l = results.source?.label { return l }
            if let c = results.source?.commit { return String(c.prefix(7)) }
            return URL(fileURLWithPath: name).lastPathComponent
        }
        public var hostDescription: String {
            let h = results.host
            return "\(h.hostname ?? "unknown host") (\(h.kernel), \(h.cpuCount) CPUs)"
        }
    }

    public struct Point: Sendable {
        /// Index into `entries`.
        public var entry: Int
        public var summary: Summary
        /// Against the series' previous point; nil for the first point (or too few runs to compare).
        public var change: Comparison?
        public var verdict: Verdict?
        public var hostChanged: Bool
        public var versionChanged: Bool
        public var isSignificant: Bool { verdict.map { $0 != .noSignificantChange } ?? false }
    }

    public struct Series: Sendable {
        public var cell: CellKey
        public var metric: Metric
        public var points: [Point]
    }

    public static let metrics: [Metric] = [.plt, .ttfb]

    /// The entries in commit or date order (ties keep the order given).
    public let entries: [Entry]
    public let series: [Series]
    public let noise: Double

    public init(_ given: [Entry], noise: Double = 0, resamples: Int = Bootstrap.defaultResamples) {
        // Parsed, so that a commit date ("…:57Z") and a start time ("…:57.120Z") order by time, not by characters.
        func time(_ text: String) -> Int64 { InfluxLineProtocol.nanoseconds(text) ?? Int64.max }
        let entries = given.enumerated().sorted { a, b in
            (time(a.element.date), time(a.element.results.startedAt), a.offset) < (
                time(b.element.date), time(b.element.results.startedAt), b.offset
            )
        }.map(\.element)
        self.entries = entries
        self.noise = noise
        let analyses = entries.map { ResultsAnalysis($0.results, resamples: resamples) }
        // Cells in the order they first appear along the series.
        var cells: [CellKey] = []
        for a in analyses { for c in a.cells where !cells.contains(c) { cells.append(c) } }
        var comparisons: [[Int]: ResultsComparison] = [:]
        func comparison(_ from: Int, _ to: Int) -> ResultsComparison {
            if let c = comparisons[[from, to]] { return c }
            let c = ResultsComparison(
                a: entries[from].results, b: entries[to].results, metrics: History.metrics,
                noise: noise, resamples: resamples)
            comparisons[[from, to]] = c
            return c
        }
        var series: [Series] = []
        for cell in cells {
            for metric in History.metrics {
                var points: [Point] = []
                for (i, a) in analyses.enumerated() {
                    guard let s = a.summary(metric.name, cell) else { continue }
                    var p = Point(entry: i, summary: s, hostChanged: false, versionChanged: false)
                    if let prev = points.last?.entry {
                        let row = comparison(prev, i).rows.first { $0.cell == cell && $0.metric == metric }
                        p.change = row?.comparison
                        p.verdict = row?.verdict
                        let (x, y) = (entries[prev].results, entries[i].results)
                        p.hostChanged = x.host != y.host
                        p.versionChanged = x.netbenchVersion != y.netbenchVersion
                    }
                    points.append(p)
                }
                if !points.isEmpty { series.append(Series(cell: cell, metric: metric, points: points)) }
            }
        }
        self.series = series
    }

    /// Scenario × profile pairs in the order their cells appear.
    public var panels: [(scenario: String, profile: String)] {
        var out: [(String, String)] = []
        for s in series where !out.contains(where: { $0 == (s.cell.scenario, s.cell.profile) }) {
            out.append((s.cell.scenario, s.cell.profile))
        }
        return out
    }
}

/// `history.csv`: one row per point of every series.
public enum HistoryCSV {
    public static let header = [
        "scenario", "profile", "transport", "client", "metric", "position", "directory", "commit", "branch",
        "label", "date", "host", "netbench_version", "n", "median", "ci95_low", "ci95_high",
        "change", "change_ci95_low", "change_ci95_high", "p", "verdict", "host_changed", "version_changed",
    ]

    public static func render(_ h: History) -> String {
        var out = CSV.record(header)
        for s in h.series {
            for p in s.points {
                let e = h.entries[p.entry], src = e.results.source, c = p.change
                out += CSV.record([
                    s.cell.scenario, s.cell.profile, s.cell.transport.rawValue, s.cell.client?.rawValue ?? "",
                    s.metric.name, String(p.entry + 1), e.name, src?.commit ?? "", src?.branch ?? "", src?.label ?? "",
                    e.date, e.hostDescription, e.results.netbenchVersion, String(p.summary.n),
                    Format.number(p.summary.median), Format.number(p.summary.ci95Low),
                    Format.number(p.summary.ci95High),
                    c?.relativeChange.map { Format.fraction($0) } ?? "",
                    c?.interval.map { Format.fraction($0.low) } ?? "",
                    c?.interval.map { Format.fraction($0.high) } ?? "",
                    c.map { String($0.pValue) } ?? "", p.verdict?.changeWord ?? "",
                    p.hostChanged ? "yes" : "", p.versionChanged ? "yes" : "",
                ])
            }
        }
        return out
    }
}
