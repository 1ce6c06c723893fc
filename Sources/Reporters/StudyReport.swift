import Foundation
import BenchCore
import Statistics

/// `netbench study` output: per claim, the cells (medians, ratio, failures), the geometric mean
/// with its interval and the verdict; then the bulk transfers' goodput, interop-runner style.
/// Text for the terminal, Markdown for a README. Results in, bytes out.
public enum StudyReport {
    public enum OutputFormat: String, Sendable { case text, md }

    public static func render(_ a: StudyAnalysis, format: OutputFormat) -> String {
        var out = format == .md ? "" : "study of suite \(a.suiteName)\n"
        for c in a.claims { out += claim(c, format: format) }
        if !a.goodput.isEmpty { out += goodput(a.goodput, format: format) }
        if a.claims.isEmpty && a.goodput.isEmpty {
            out += "the suite declares no claims and the results hold no bulk transfer: nothing to study\n"
        }
        return out
    }

    static func ms(_ xs: [Double]) -> String { Descriptive.median(xs).map { Format.value($0) } ?? "-" }
    static func ratio(_ r: Double?) -> String { r.map { String(format: "%.3f", $0) } ?? "-" }

    static func claim(_ o: StudyAnalysis.ClaimOutcome, format: OutputFormat) -> String {
        let c = o.claim
        var out = format == .md ? "**Claim: \(c.name)**" : "\nclaim: \(c.name)"
        out +=
            " — \(c.candidate.rawValue) at least \(String(format: "%.2f", c.minSpeedup))× as fast as "
                + "\(c.baseline.rawValue)"
        out += " (\(c.metricName), median \(c.baseline.rawValue) / median \(c.candidate.rawValue))\n"
        if let s = c.source { out += (format == .md ? "\n" : "") + "source: \(s)\n" }
        out += format == .md ? "\n" : ""
        let header = [
            "page", "profile", "n \(c.baseline.rawValue)", "n \(c.candidate.rawValue)",
            "median \(c.baseline.rawValue) ms", "median \(c.candidate.rawValue) ms", "ratio", "failed",
        ]
        var rows: [[String]] = []
        for cell in o.cells {
            rows.append([
                cell.scenario, cell.profile, "\(cell.baseline.count)", "\(cell.candidate.count)",
                ms(cell.baseline), ms(cell.candidate), ratio(cell.ratio),
                "\(cell.baselineFailed)/\(cell.candidateFailed)",
            ])
        }
        if !rows.isEmpty { out += table(header, rows, format: format) + (format == .md ? "\n" : "") }
        if let r = o.result {
            out +=
                "geometric mean of the ratios: \(ratio(r.geometricMean)), 95% CI [\(ratio(r.interval.low)), "
                    + "\(ratio(r.interval.high))]"
            out +=
                " (two-level bootstrap over \(r.pages) page(s), then the runs within each of \(r.cells) cell(s); "
                    + "\(r.resamples) resamples)\n"
        } else {
            out +=
                "no page and profile of the claim has runs of both \(c.baseline.rawValue) and \(c.candidate.rawValue): "
                    + "no estimate\n"
        }
        out += (format == .md ? "\n" : "") + "verdict: \(o.verdict.rawValue.uppercased())"
        out +=
            " (confirmed if the whole interval lies above \(String(format: "%.2f", c.minSpeedup)), refuted if below)\n"
        if o.verdict == .undecided, let r = o.result, let p = r.pagesOnly {
            out +=
                (format == .md ? "\n" : "")
                + "pages alone (each cell at its median ratio, as if its runs were endless): 95% CI "
                + "[\(ratio(p.low)), \(ratio(p.high))]: "
                + (r.runsCanDecide(minSpeedup: c.minSpeedup)
                    ? "more runs per cell may decide the claim on these \(r.pages) pages\n"
                    : "more runs cannot decide the claim on these \(r.pages) pages; more pages can\n")
        }
        if o.resumedRuns > 0 {
            out +=
                (format == .md ? "\n" : "")
                + "repeat views: \(o.resumedRuns) of \(o.runs) runs resumed a TLS/QUIC session; "
            out += "early data (0-RTT) accepted on \(o.earlyDataConnections) of their \(o.connections) connections\n"
        }
        if o.cells.contains(where: { $0.baselineFailed + $0.candidateFailed > 0 }) {
            out +=
                (format == .md ? "\n" : "")
                + "failed runs (failed = \(c.baseline.rawValue)/\(c.candidate.rawValue)) are left out of the medians: "
                + "a side that timed out looks faster than it was\n"
        }
        return out + (format == .md ? "\n" : "")
    }

    static func goodput(_ rows: [StudyAnalysis.GoodputRow], format: OutputFormat) -> String {
        var out =
            format == .md ? "**Goodput (QUIC interop runner style)**\n\n" : "\ngoodput (QUIC interop runner style)\n"
        let header = ["transfer", "profile", "transport", "n", "goodput kbps, mean (± sd)", "failed"]
        let body = rows.map { r -> [String] in
            let g =
                r.mean.map { m in
                    String(format: "%.0f", m) + (r.standardDeviation.map { String(format: " (± %.0f)", $0) } ?? "")
                } ?? "-"
            return [r.scenario, r.profile, r.transport.rawValue, "\(r.kbps.count)", g, "\(r.failed)"]
        }
        out += table(header, body, format: format)
        out +=
            (format == .md ? "\n" : "")
            + "goodput = 8 × body bytes / (first → last response byte at the client), in kbit/s; mean and sample sd "
            + "over the runs"
        out += " (the runner: 8 × file size / first → last 1-RTT server packet sniffed at the client, 5 repetitions)\n"
        return out
    }

    static func table(_ header: [String], _ rows: [[String]], format: OutputFormat) -> String {
        if format == .md {
            var out = "| " + header.joined(separator: " | ") + " |\n"
            out += "|" + header.map { _ in "---" }.joined(separator: "|") + "|\n"
            for r in rows { out += "| " + r.joined(separator: " | ") + " |\n" }
            return out
        }
        let widths = header.indices.map { i in ([header[i]] + rows.map { $0[i] }).map(\.count).max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, t in
                i < 2
                    ? t.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[i] - t.count) + t
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
        }
        return ([header] + rows).map(line).joined()
    }
}
