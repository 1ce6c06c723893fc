import Foundation
import BenchModel
import Statistics

/// The browser's own page metrics beside the page load time, per transport: first paint, first
/// contentful paint, largest contentful paint and the load event — medians with the same 95%
/// bootstrap CI as PLT — as a milestone chart and a table. Only cells whose runs carry them (a
/// real browser's) appear; without any, nothing is shown.
enum HTMLPaint {
    /// Cells with at least one browser milestone.
    static func cells(_ a: ResultsAnalysis, _ cells: [CellKey]) -> [CellKey] {
        cells.filter { c in Metric.browserMilestones.contains { a.summary($0.metric.name, c) != nil } }
    }

    /// The milestones shown for `cells`: Speed Index too when any of them carries it.
    static func milestones(_ a: ResultsAnalysis, _ cells: [CellKey]) -> [(metric: Metric, short: String)] {
        Metric.browserMilestones(speedIndex: cells.contains { a.summary("speedIndexMs", $0) != nil })
    }

    static func render(_ a: ResultsAnalysis, _ all: [CellKey], scenario: String, profile: String) -> String {
        let cells = cells(a, all)
        guard !cells.isEmpty else { return "" }
        let milestones = milestones(a, cells)
        var html = "<h3>Browser page metrics: median, 95% CI</h3>\n"
        html += chart(a, cells, label: "Browser milestones by transport, \(scenario), \(profile)")
        var rows = ""
        for c in cells {
            rows += "<tr><td>\(HTMLReport.swatch(c.transport))\(HTML.escape(c.label))</td>"
            rows += "<td class=\"num\">\(a.summary("pltMs", c)?.n ?? a.countedRuns(c).count)</td>"
            for m in milestones.map(\.metric) + [.plt] {
                rows += "<td class=\"num\">\(cell(a.summary(m.name, c)))</td>"
            }
            rows += "</tr>\n"
        }
        html +=
            "<div class=\"table-wrap\"><table class=\"figures\"><thead><tr><th>transport</th><th class=\"num\">n</th>"
            + milestones.map {
                "<th class=\"num\">\(HTML.escape($0.metric.label.replacingOccurrences(of: " (browser)", with: ""))) "
                    + "ms</th>"
            }.joined()
            + "<th class=\"num\">Page load time ms</th></tr></thead><tbody>\n" + rows + "</tbody></table></div>\n"
        return html
            + "<p class=\"caption\">As the browser reports them (Paint Timing, Largest Contentful Paint, Navigation "
            + "Timing), "
            + "ms from the start of navigation; PLT is the last byte of the page's last resource. Medians with their "
            + "95% "
            + "bootstrap CI, as for PLT; – where the runs carry none."
            + (milestones.count > Metric.browserMilestones.count
                ? " Speed Index (SI): ∫ (1 − visual progress) dt over the frames the browser painted, "
                    + "WebPageTest's histogram method." : "") + "</p>\n"
    }

    static func cell(_ s: Summary?) -> String {
        guard let s else { return "–" }
        return HTML.escape(
            Format.value(s.median) + " (" + Format.value(s.ci95Low) + "–" + Format.value(s.ci95High) + ")")
    }

    static let markerColors = ["#8c8c8c", "#1b7837", "#b35806", "#542788", "#c51b7d"]

    /// One row per cell: a bar to the median PLT, a marker at each milestone's median with its CI as a whisker.
    static func chart(_ a: ResultsAnalysis, _ cells: [CellKey], label: String) -> String {
        let width = 560.0, left = max(44.0, 14 + 7.5 * Double(cells.map(\.label.count).max() ?? 0)), right = 60.0
        let top = 8.0, rowHeight = 30.0
        let height = top + Double(cells.count) * rowHeight + 52
        let milestones = milestones(a, cells)
        let names = milestones.map(\.metric.name) + ["pltMs"]
        let maxValue = cells.flatMap { c in names.compactMap { a.summary($0, c)?.ci95High } }.max() ?? 1
        let x = LinearScale(from: 0, to: max(maxValue, 1), range: (left, width - right), tickCount: 5)
        var s = BarChart.axis(x, top: top, bottom: height - 48, unit: "ms")
        for (i, c) in cells.enumerated() {
            let y = top + Double(i) * rowHeight + 6
            s += HTML.svgText(left - 8, y + 12, c.label, anchor: "end", cls: "label")
            if let plt = a.summary("pltMs", c) {
                s += HTML.rect(
                    x(0), y + 5, x(plt.median) - x(0), 8, fill: Palette.transport(c.transport),
                    title: "\(c.label): page load time median \(Format.value(plt.median, unit: "ms"))", opacity: 0.35)
            }
            for (k, m) in milestones.enumerated() {
                guard let v = a.summary(m.metric.name, c) else { continue }
                let color = markerColors[k]
                s += HTML.line(x(v.ci95Low), y + 9, x(v.ci95High), y + 9, stroke: color, width: 1.5)
                s += HTML.rect(
                    x(v.median) - 2, y, 4, 18, fill: color,
                    title:
                        "\(c.label): \(m.short) median \(Format.value(v.median, unit: "ms")), 95% CI "
                            + "\(Format.value(v.ci95Low))–\(Format.value(v.ci95High, unit: "ms"))"
                )
            }
        }
        // Legend: the milestones' colours, then the PLT bar.
        var lx = left
        let ly = height - 12
        for (k, m) in milestones.enumerated() {
            s += HTML.rect(lx, ly - 9, 4, 12, fill: markerColors[k]) + HTML.svgText(lx + 8, ly, m.short, cls: "tick")
            lx += 18 + 7 * Double(m.short.count)
        }
        s +=
            HTML.rect(lx, ly - 7, 18, 8, fill: Palette.ink, opacity: 0.35)
            + HTML.svgText(lx + 22, ly, "page load time", cls: "tick")
        return HTML.svg(width: width, height: height, label: label, s)
    }
}
