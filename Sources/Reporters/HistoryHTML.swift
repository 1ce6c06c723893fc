import Foundation
import BenchModel
import Statistics

/// `history.html`: one self-contained page (inline CSS and SVG, no script): the series' directories,
/// then per scenario × profile a line chart per metric (median and 95% CI per directory, one line
/// per transport), significant changes ringed (green improved, red regressed), host and version
/// changes as dashed vertical lines; and the table of significant changes.
public enum HistoryHTML {
    public static func render(_ h: History) -> String {
        var body = "<header><h1>netbench · history</h1><div class=\"meta\">\(h.entries.count) results · "
        body +=
            "\(HTML.escape(h.entries.first?.date ?? "")) – \(HTML.escape(h.entries.last?.date ?? ""))</div></header>\n"
        body += entriesTable(h)
        for (i, p) in h.panels.enumerated() {
            body += "<section class=\"card\" id=\"\(HTMLReport.panelID(i, p.scenario, p.profile))\">"
            body += "<h2>\(HTML.escape(p.scenario)) · \(HTML.escape(p.profile))</h2>\n"
            let inPanel = h.series.filter { $0.cell.scenario == p.scenario && $0.cell.profile == p.profile }
            var legend: [String] = []
            for s in inPanel where !legend.contains(s.cell.label) { legend.append(s.cell.label) }
            body +=
                "<p class=\"caption\">"
                + legend.map { label in
                    let t = inPanel.first { $0.cell.label == label }!.cell.transport
                    return
                        "<span class=\"swatch\" "
                            + "style=\"background:\(Palette.transport(t))\"></span>\(HTML.escape(label))"
                }.joined(separator: " &nbsp; ")
            body +=
                " &nbsp; · ring: significant change from the previous point (green improved, red regressed); dashed "
                    + "line: host or netbench version changed</p>\n"
            body += "<div class=\"grid\">"
            for metric in History.metrics {
                let rows = inPanel.filter { $0.metric == metric }
                guard !rows.isEmpty else { continue }
                body +=
                    "<div><h3>\(HTML.escape(metric.label)), median and 95% CI</h3>"
                        + chart(h, rows, metric: metric, title: "\(p.scenario) · \(p.profile) · \(metric.label)")
                        + "</div>"
            }
            body += "</div>\n" + changesTable(h, inPanel) + "</section>\n"
        }
        body +=
            "<footer>change = median / previous point's median - 1; 95% CI: percentile bootstrap; p: Mann-Whitney U; "
        body += "significant as netbench compare decides it: the CI excludes 0 and p < 0.05"
        body += h.noise > 0 ? ", and the CI reaches beyond ±\(Format.number(h.noise * 100))%</footer>\n" : "</footer>\n"
        return HTMLStyle.page(title: "netbench · history", body: body)
    }

    static func entriesTable(_ h: History) -> String {
        var s = "<section class=\"card\"><h2>Results, in commit or date order</h2><div class=\"table-wrap\"><table><tr>"
        s +=
            ["#", "directory", "commit", "branch", "label", "date", "host", "netbench"].map { "<th>\($0)</th>" }
            .joined() + "</tr>\n"
        for (i, e) in h.entries.enumerated() {
            let src = e.results.source
            let prev = i > 0 ? h.entries[i - 1].results : nil
            var commit = HTML.escape(src?.commit.map { String($0.prefix(12)) } ?? "unknown")
            if src?.dirty == true { commit += " (uncommitted changes)" }
            let hostCell =
                HTML.escape(e.hostDescription)
                + (prev.map { $0.host != e.results.host } == true ? " <span class=\"chip warn\">changed</span>" : "")
            let versionCell =
                HTML.escape(e.results.netbenchVersion)
                + (prev.map { $0.netbenchVersion != e.results.netbenchVersion } == true
                    ? " <span class=\"chip warn\">changed</span>" : "")
            s +=
                "<tr><td class=\"num\">\(i + 1)</td><td>\(HTML.escape(e.name))</td><td>\(commit)</td><td>"
                    + "\(HTML.escape(src?.branch ?? ""))</td>"
            s +=
                "<td>\(HTML.escape(src?.label ?? ""))</td><td>\(HTML.escape(e.date))</td><td>\(hostCell)</td><td>"
                    + "\(versionCell)</td></tr>\n"
        }
        return s + "</table></div></section>\n"
    }

    static func changesTable(_ h: History, _ series: [History.Series]) -> String {
        var rows = ""
        for s in series {
            for p in s.points where p.isSignificant || p.hostChanged || p.versionChanged {
                guard let c = p.change else { continue }
                let cls = p.verdict == .better ? "better" : p.verdict == .worse ? "worse" : ""
                var notes: [String] = []
                if p.hostChanged { notes.append("host changed") }
                if p.versionChanged { notes.append("netbench version changed") }
                rows += "<tr><td>\(HTML.escape(s.cell.label))</td><td>\(HTML.escape(s.metric.name))</td>"
                rows += "<td>\(HTML.escape(h.entries[p.entry].shortName))</td>"
                rows +=
                    "<td class=\"num\">\(Format.value(c.baselineMedian, unit: s.metric.unit)) → "
                        + "\(Format.value(c.candidateMedian, unit: s.metric.unit))</td>"
                rows += "<td class=\"num\">\(c.relativeChange.map { Format.percent($0) } ?? "-")</td>"
                rows +=
                    "<td class=\"num\">\(c.interval.map { Format.percentInterval($0) } ?? "-")</td><td "
                        + "class=\"num\">\(Format.pValue(c.pValue))</td>"
                rows +=
                    "<td class=\"verdict "
                        + "\(cls)\">\(p.verdict?.changeWord ?? "")</td><td>"
                        + "\(HTML.escape(notes.joined(separator: ", ")))</td></tr>\n"
            }
        }
        if rows.isEmpty {
            return
                "<p class=\"note-text\">No significant change and no host or version change between consecutive "
                    + "points.</p>\n"
        }
        let head = ["transport", "metric", "at", "median", "change", "95% CI", "p", "verdict", "note"].map {
            "<th>\($0)</th>"
        }.joined()
        return "<h3>Changes</h3><div class=\"table-wrap\"><table><tr>\(head)</tr>\n\(rows)</table></div>\n"
    }

    static func chart(_ h: History, _ series: [History.Series], metric: Metric, title: String) -> String {
        let width = 560.0, left = 56.0, right = 16.0, top = 22.0, plotHeight = 180.0
        let bottom = top + plotHeight, height = bottom + 48
        let lows = series.flatMap { $0.points.map(\.summary.ci95Low) },
            highs = series.flatMap { $0.points.map(\.summary.ci95High) }
        let y = LinearScale(from: lows.min() ?? 0, to: highs.max() ?? 1, range: (bottom, top), tickCount: 4)
        let step = (width - left - right) / Double(max(h.entries.count, 1))
        func x(_ i: Int) -> Double { left + (Double(i) + 0.5) * step }
        var s = ""
        for t in y.ticks {
            s += HTML.line(left, y(t), width - right, y(t), stroke: Palette.grid)
            s += HTML.svgText(left - 6, y(t) + 4, Format.tick(t), anchor: "end", cls: "tick")
        }
        s += HTML.svgText(left - 6, top - 8, metric.unit, anchor: "end", cls: "tick")
        for (i, e) in h.entries.enumerated() {
            s += HTML.svgText(x(i), bottom + 16, e.shortName, anchor: "middle", cls: "tick")
        }
        // Host / version changes: a dashed line before the first point that saw one.
        var marked = Set<Int>()
        for sr in series {
            for p in sr.points where (p.hostChanged || p.versionChanged) && !marked.contains(p.entry) {
                marked.insert(p.entry)
                let what = [p.hostChanged ? "host" : nil, p.versionChanged ? "version" : nil].compactMap { $0 }.joined(
                    separator: "+")
                s += HTML.line(
                    x(p.entry) - step / 2, top - 4, x(p.entry) - step / 2, bottom, stroke: Palette.neutral, dash: "4 3")
                s += HTML.svgText(x(p.entry) - step / 2 + 3, top + 6, what + " changed", cls: "note")
            }
        }
        for (k, sr) in series.enumerated() {
            let color = Palette.transport(sr.cell.transport)
            // Transports side by side around the directory's x, so their whiskers do not hide each other.
            let shift = (Double(k) - Double(series.count - 1) / 2) * min(6, step / Double(series.count + 1))
            func x(_ i: Int) -> Double { left + (Double(i) + 0.5) * step + shift }
            let pts = sr.points.map { "\(HTML.n(x($0.entry))),\(HTML.n(y($0.summary.median)))" }.joined(separator: " ")
            if sr.points.count > 1 {
                s += HTML.empty(
                    "polyline", [("points", pts), ("fill", "none"), ("stroke", color), ("stroke-width", "2")])
            }
            for p in sr.points {
                let px = x(p.entry), m = p.summary
                s += HTML.line(px, y(m.ci95Low), px, y(m.ci95High), stroke: color, width: 1.5)
                var tip =
                    "\(sr.cell.label) · \(h.entries[p.entry].shortName): median "
                        + "\(Format.value(m.median, unit: metric.unit)), "
                tip += "95% CI \(Format.value(m.ci95Low))–\(Format.value(m.ci95High, unit: metric.unit)), n = \(m.n)"
                if let c = p.change, let r = c.relativeChange {
                    tip +=
                        "; \(Format.percent(r)) vs previous (p \(Format.pValue(c.pValue))): "
                            + "\(p.verdict?.changeWord ?? "")"
                }
                s += HTML.element(
                    "circle", [("cx", HTML.n(px)), ("cy", HTML.n(y(m.median))), ("r", "3.5"), ("fill", color)],
                    HTML.element("title", [], HTML.escape(tip)))
                if p.isSignificant {
                    s += HTML.empty(
                        "circle",
                        [
                            ("cx", HTML.n(px)), ("cy", HTML.n(y(m.median))), ("r", "7.5"), ("fill", "none"),
                            ("stroke", p.verdict == .better ? Palette.better : Palette.worse), ("stroke-width", "2"),
                            ("class", p.verdict == .better ? "significant improved" : "significant regressed"),
                        ])
                }
            }
        }
        return HTML.svg(width: width, height: height, label: title, s)
    }
}

extension HistoryCSV { public static let fileName = "history.csv" }
extension HistoryHTML { public static let fileName = "history.html" }
