import Foundation
import Statistics

/// Medians as horizontal bars with their 95% CI as whiskers, and each row's ideal (the physical
/// lower bound) as a slim grey bar right beneath it.
enum BarChart {
    struct Row {
        var label: String
        var color: String
        var median: Double
        var low: Double
        var high: Double
        var ideal: Double?
    }

    static func render(_ rows: [Row], unit: String, label: String) -> String {
        // Room on the left for the longest label (with several clients: "h2 · chromium").
        let width = 560.0, left = max(44.0, 14 + 7.5 * Double(rows.map(\.label.count).max() ?? 0)), right = 150.0,
            top = 8.0, rowHeight = 44.0
        let height = top + Double(rows.count) * rowHeight + 34
        let maxValue = rows.map { max($0.high, $0.ideal ?? 0, $0.median) }.max() ?? 1
        let x = LinearScale(from: 0, to: maxValue, range: (left, width - right), tickCount: 5)
        var s = axis(x, top: top, bottom: height - 30, unit: unit)
        for (i, r) in rows.enumerated() {
            let y = top + Double(i) * rowHeight + 6
            s += HTML.svgText(left - 8, y + 13, r.label, anchor: "end", cls: "label")
            s += HTML.rect(
                x(0), y, x(r.median) - x(0), 18, fill: r.color,
                title:
                    "\(r.label): median \(Format.value(r.median, unit: unit)), 95% CI "
                        + "\(Format.value(r.low))–\(Format.value(r.high, unit: unit))"
            )
            // Whisker: the 95% CI of the median.
            s += HTML.line(x(r.low), y + 9, x(r.high), y + 9, stroke: Palette.ink, width: 1.5)
            s += HTML.line(x(r.low), y + 4, x(r.low), y + 14, stroke: Palette.ink, width: 1.5)
            s += HTML.line(x(r.high), y + 4, x(r.high), y + 14, stroke: Palette.ink, width: 1.5)
            let labelX = x(max(r.high, r.median)) + 6
            s += HTML.svgText(labelX, y + 13, Format.value(r.median, unit: unit), cls: "value")
            if let ideal = r.ideal {
                s += HTML.rect(
                    x(0), y + 22, x(ideal) - x(0), 6, fill: Palette.ideal,
                    title: "ideal (lower bound) \(Format.value(ideal, unit: unit))")
                var text = "ideal " + Format.value(ideal, unit: unit)
                // A median below its lower bound means the ideal's assumptions do not hold: say so in red.
                if ideal > 0 { text += " · median " + String(format: "%.2f", r.median / ideal) + "×" }
                s += HTML.svgText(x(ideal) + 6, y + 29, text, cls: "note", fill: r.median < ideal ? Palette.worse : nil)
            }
        }
        return HTML.svg(width: width, height: height, label: label, s)
    }

    /// Vertical grid lines with tick labels at the bottom.
    static func axis(_ x: LinearScale, top: Double, bottom: Double, unit: String, percent: Bool = false) -> String {
        var s = ""
        for t in x.ticks {
            s += HTML.line(x(t), top, x(t), bottom, stroke: Palette.grid)
            let text =
                percent
                ? (t == 0 ? "0%" : Format.percent(t).replacingOccurrences(of: ".0%", with: "%")) : Format.tick(t)
            s += HTML.svgText(x(t), bottom + 14, text, anchor: "middle", cls: "tick")
        }
        if !unit.isEmpty { s += HTML.svgText(x.range.1, bottom + 26, unit, anchor: "end", cls: "tick") }
        return s
    }
}

/// Relative difference of each transport against the baseline: the change of the median with its
/// 95% bootstrap CI, coloured by verdict (a forest plot).
enum DifferenceChart {
    struct Row {
        var label: String
        var comparison: Comparison
        var verdict: Verdict
        var word: String
    }

    static func render(_ rows: [Row], higherIsBetter: Bool, label: String) -> String {
        // Margins grow with long labels (several clients) and long intervals (large differences).
        let notes = rows.map { r in
            r.comparison.interval.map {
                "CI \(Format.percentInterval($0)), p \(Format.pValue(r.comparison.pValue))".count
            } ?? 0
        }
        let width = 560.0, left = max(36.0, 14 + 7.5 * Double(rows.map(\.label.count).max() ?? 0))
        let longest = notes.max() ?? 0
        let right = longest > 30 ? 16 + 6.6 * Double(longest) : 196.0, top = 8.0, rowHeight = 36.0
        let height = top + Double(rows.count) * rowHeight + 34
        let extent = rows.compactMap { r in r.comparison.interval.map { max(abs($0.low), abs($0.high)) } }.max() ?? 0.05
        let x = LinearScale(from: -max(extent, 0.02), to: max(extent, 0.02), range: (left, width - right), tickCount: 4)
        var s = BarChart.axis(x, top: top, bottom: height - 30, unit: "", percent: true)
        s += HTML.line(x(0), top, x(0), height - 30, stroke: Palette.ink, width: 1.2)
        let (lower, higher) = higherIsBetter ? ("lower", "higher") : ("faster", "slower")
        s += HTML.svgText(
            x(x.domain.0), height - 4, "◀ " + lower, cls: "tick", fill: higherIsBetter ? Palette.worse : Palette.better)
        s += HTML.svgText(
            x(x.domain.1), height - 4, higher + " ▶", anchor: "end", cls: "tick",
            fill: higherIsBetter ? Palette.better : Palette.worse)
        for (i, r) in rows.enumerated() {
            let y = top + Double(i) * rowHeight + 18
            let color = r.verdict == .better ? Palette.better : r.verdict == .worse ? Palette.worse : Palette.neutral
            s += HTML.svgText(left - 8, y + 4, r.label, anchor: "end", cls: "label")
            guard let ci = r.comparison.interval, let rel = r.comparison.relativeChange else { continue }
            s += HTML.line(x(ci.low), y, x(ci.high), y, stroke: color, width: 3)
            s += HTML.line(x(ci.low), y - 6, x(ci.low), y + 6, stroke: color, width: 1.5)
            s += HTML.line(x(ci.high), y - 6, x(ci.high), y + 6, stroke: color, width: 1.5)
            s += HTML.element(
                "circle", [("cx", HTML.n(x(rel))), ("cy", HTML.n(y)), ("r", "5"), ("fill", color)],
                HTML.element(
                    "title", [],
                    HTML.escape(
                        "\(Format.percent(rel)), 95% CI \(Format.percentInterval(ci)), Mann-Whitney p "
                            + "\(Format.pValue(r.comparison.pValue))"
                    )))
            s += HTML.svgText(width - right + 12, y - 2, "\(Format.percent(rel)) \(r.word)", cls: "value", fill: color)
            s += HTML.svgText(
                width - right + 12, y + 12, "CI \(Format.percentInterval(ci)), p \(Format.pValue(r.comparison.pValue))",
                cls: "note")
        }
        return HTML.svg(width: width, height: height, label: label, s)
    }
}

/// Empirical CDF of a metric per transport: the fraction of runs at or below each value, with each
/// transport's ideal as a dashed vertical line.
enum CDFChart {
    struct Series {
        var label: String
        var color: String
        var values: [Double]
        var ideal: Double?
    }

    static func render(_ series: [Series], unit: String, label: String) -> String {
        // The legend wraps onto more rows above the plot when the labels are long (several clients).
        let width = 560.0, left = 44.0, right = 16.0, plotHeight = 190.0
        let legendRows = legendRowCount(series, left: left, right: width - right)
        let top = 26.0 + 14 * Double(legendRows - 1)
        let height = top + plotHeight + 44
        let all = series.flatMap(\.values) + series.compactMap(\.ideal)
        guard let lo = all.min(), let hi = all.max() else { return "" }
        let x = LinearScale(from: lo, to: hi, range: (left, width - right), tickCount: 6)
        let y = LinearScale(from: 0, to: 1, range: (top + plotHeight, top), tickCount: 4)
        var s = BarChart.axis(x, top: top, bottom: top + plotHeight, unit: unit)
        for t in y.ticks {
            s += HTML.line(left, y(t), width - right, y(t), stroke: Palette.grid)
            s += HTML.svgText(left - 6, y(t) + 4, "\(Int((t * 100).rounded()))%", anchor: "end", cls: "tick")
        }
        // Legend above the plot, where it never hides a curve.
        var legend = "", lx = left, ly = 8.0
        for ser in series {
            let xs = ser.values.sorted()
            guard !xs.isEmpty else { continue }
            var d = "M\(HTML.n(x(x.domain.0))) \(HTML.n(y(0)))"
            for (k, v) in xs.enumerated() {
                d += "H\(HTML.n(x(v)))V\(HTML.n(y(Double(k + 1) / Double(xs.count))))"
            }
            d += "H\(HTML.n(x(x.domain.1)))"
            s += HTML.empty("path", [("d", d), ("fill", "none"), ("stroke", ser.color), ("stroke-width", "2")])
            if let ideal = ser.ideal {
                s += HTML.line(x(ideal), top, x(ideal), top + plotHeight, stroke: ser.color, width: 1, dash: "4 3")
            }
            let text = "\(ser.label) (n=\(xs.count))"
            if lx > left && lx + 30 + Double(text.count) * 6 > width - right { lx = left; ly += 14 }
            legend += HTML.rect(lx, ly, 14, 4, fill: ser.color)
            legend += HTML.svgText(lx + 18, ly + 5, text, cls: "note")
            lx += 30 + Double(text.count) * 6
        }
        if lx > left && lx + 50 > width - right { lx = left; ly += 14 }
        legend += HTML.line(lx, ly + 2, lx + 14, ly + 2, stroke: Palette.ink, dash: "4 3")
        legend += HTML.svgText(lx + 18, ly + 5, "ideal", cls: "note")
        s += legend
        return HTML.svg(width: width, height: height, label: label, s)
    }

    /// How many rows the legend takes (the same wrapping `render` does).
    static func legendRowCount(_ series: [Series], left: Double, right: Double) -> Int {
        var lx = left, rows = 1
        for ser in series where !ser.values.isEmpty {
            let w = 30 + Double("\(ser.label) (n=\(ser.values.count))".count) * 6
            if lx > left && lx + w > right { lx = left; rows += 1 }
            lx += w
        }
        if lx > left && lx + 50 > right { rows += 1 }
        return rows
    }
}
