import Foundation
import BenchModel
import Statistics

/// `summary.csv`: one row per (scenario, profile, transport, metric) of the counted runs (status ok,
/// not warm-up), with the columns of the file contract:
/// `scenario,profile,transport,metric,n,median,p90,p95,mean,sd,ci95_low,ci95_high`.
/// `sd` is empty below two runs; the interval is the percentile bootstrap 95% CI of the median.
/// Runs of another client than the built-in one add a last column, `client`.
public enum SummaryCSV {
    public static let header = [
        "scenario", "profile", "transport", "metric", "n", "median", "p90", "p95",
        "mean", "sd", "ci95_low", "ci95_high",
    ]

    public static func render(_ analysis: ResultsAnalysis) -> String {
        let withClient = analysis.clients != [.builtin]
        var out = CSV.record(header + (withClient ? ["client"] : []))
        for cell in analysis.cells {
            for metric in Metric.all {
                guard let s = analysis.summary(metric.name, cell) else { continue }
                out += CSV.record(
                    [
                        cell.scenario, cell.profile, cell.transport.rawValue, metric.name, String(s.n),
                        Format.number(s.median), Format.number(s.p90), Format.number(s.p95),
                        Format.number(s.mean), s.sd.map(Format.number) ?? "",
                        Format.number(s.ci95Low), Format.number(s.ci95High),
                    ]
                        + (withClient ? [(cell.client ?? analysis.clients[0]).rawValue] : []))
            }
        }
        return out
    }
}
