import Foundation
import BenchModel
import Statistics

/// Clients side by side (a real browser against netbench's built-in loader): per transport the
/// median page load and first byte of each, the difference, the ratio, and the relative change of
/// the median with its 95% bootstrap CI and Mann-Whitney p. Shown only when the runs come from
/// more than one client.
enum HTMLClients {
    static func render(_ a: ResultsAnalysis, _ cells: [CellKey], scenario: String, profile: String) -> String {
        guard let reference = a.referenceClient else { return "" }
        let others = cells.filter { $0.client != reference }
        var rows = "", diffs: [DifferenceChart.Row] = []
        for metric in [Metric.plt, Metric.ttfb] {
            var first = true
            for cell in others {
                let refCell = a.cell(cell, client: reference)
                guard let mine = a.summary(metric.name, cell), let ref = a.summary(metric.name, refCell) else {
                    continue
                }
                let cmp = a.clientComparison(metric.name, cell)
                rows += first ? "<tr class=\"metric-start\">" : "<tr>"
                rows += "<td>\(first ? HTML.escape(metric.label) : "")</td>"
                rows += "<td>\(HTMLReport.swatch(cell.transport))\(cell.transport.rawValue)</td>"
                rows +=
                    "<td class=\"num\">\(median(ref))</td><td "
                        + "class=\"num\">\(HTML.escape(cell.client?.rawValue ?? "")): \(median(mine))</td>"
                rows += "<td class=\"num\">\(HTML.escape(Format.value(mine.median - ref.median, unit: "ms")))</td>"
                rows +=
                    "<td class=\"num\">\(ref.median > 0 ? String(format: "%.2f×", mine.median / ref.median) : "–")</td>"
                rows += HTMLPanel.differenceCells(cmp, metric, isBaseline: false) + "</tr>\n"
                first = false
                if metric == .plt, let cmp {
                    let v = cmp.verdict(higherIsBetter: false)
                    diffs.append(
                        DifferenceChart.Row(
                            label: "\(cell.transport.rawValue) · \(cell.client?.rawValue ?? "")", comparison: cmp,
                            verdict: v,
                            word: v == .noSignificantChange ? "n.s." : v.transportWord(higherIsBetter: false)))
                }
            }
        }
        guard !rows.isEmpty else { return "" }
        var html = "<h3>Clients side by side: against \(HTML.escape(reference.rawValue))</h3>\n"
        if !diffs.isEmpty {
            html += DifferenceChart.render(
                diffs, higherIsBetter: false, label: "Page load time against \(reference), \(scenario), \(profile)")
        }
        html +=
            "<div class=\"table-wrap\"><table class=\"figures\"><thead><tr><th>metric</th><th>transport</th>"
            + "<th class=\"num\">\(HTML.escape(reference.rawValue)) median (95% CI)</th><th class=\"num\">median (95% "
            + "CI)</th>"
            + "<th class=\"num\">difference</th><th class=\"num\">ratio</th><th class=\"num\">Δ</th><th "
            + "class=\"num\">95% CI of Δ</th>"
            + "<th class=\"num\">p</th><th>verdict</th></tr></thead><tbody>\n" + rows + "</tbody></table></div>\n"
        return html
            + "<p class=\"caption\">Same scenario, server, network and run order; only the client differs. A browser "
            + "parses, "
            + "executes and renders what it loads and opens its connections its own way: the difference is what "
            + "netbench's "
            + "built-in client leaves out. Δ is the change of the median against "
            + "\(HTML.escape(reference.rawValue)).</p>\n"
    }

    /// The at-a-glance line: each other client's page load against the reference client's, per transport.
    static func findings(_ a: ResultsAnalysis, scenario: String, profile: String) -> String {
        guard let reference = a.referenceClient else { return "" }
        var chips: [String] = []
        for cell in a.cells(scenario: scenario, profile: profile) where cell.client != reference {
            guard let c = a.clientComparison("pltMs", cell), let rel = c.relativeChange, let ci = c.interval else {
                continue
            }
            let v = c.verdict(higherIsBetter: false)
            let text =
                v == .noSignificantChange
                ? "\(cell.label): no significant difference"
                : "\(cell.label) \(Format.percent(rel).dropFirst())\u{00A0}\(v.transportWord(higherIsBetter: false))"
            chips.append(
                HTMLReport.chip(
                    v, text,
                    title:
                        "change of the median \(Format.percent(rel)), 95% CI \(Format.percentInterval(ci)), "
                            + "Mann-Whitney p \(Format.pValue(c.pValue))"
                ))
        }
        return chips.isEmpty ? "" : "<br>" + chips.joined(separator: " ") + " than \(HTML.escape(reference.rawValue))"
    }

    private static func median(_ s: Summary) -> String {
        HTML.escape(
            Format.value(s.median, unit: "ms") + " (" + Format.value(s.ci95Low) + "–" + Format.value(s.ci95High) + ")")
    }
}
