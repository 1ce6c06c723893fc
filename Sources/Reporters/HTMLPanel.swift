import BenchCore
import Foundation
import BenchModel
import Statistics

/// One scenario × profile of the HTML report: PLT bars with CI and ideal, the difference against
/// the baseline, CDF, TTFB bars, waterfalls of the median runs, path changes, and every figure.
enum HTMLPanel {
    static func render(_ a: ResultsAnalysis, scenario: String, profile: String, id: String) -> String {
        let cells = a.cells(scenario: scenario, profile: profile)
        let baseline = a.baselineTransport(scenario: scenario, profile: profile)
        var html =
            "<section class=\"card\" id=\"\(HTML.escape(id))\"><h2>\(HTML.escape(scenario)) · "
                + "\(HTML.escape(profile))</h2>\n"
        if let p = a.profile(named: profile) {
            html += "<p class=\"caption\">\(HTML.escape(p.summary)) · RTT = round trip; each direction gets RTT/2</p>\n"
        }

        let isBulk =
            cells.contains { a.summary("goodputMbps", $0) != nil } && !cells.contains { a.summary("pltMs", $0) != nil }
        let primary: Metric = isBulk ? .goodput : .plt
        var charts: [String] = []
        let bars = barRows(a, cells, primary)
        if !bars.isEmpty {
            charts.append(
                "<h3>\(primary.label): median, 95% CI, ideal</h3>"
                    + BarChart.render(
                        bars, unit: primary.unit, label: "\(primary.label) by transport, \(scenario), \(profile)"))
        }
        let diffs = differenceRows(a, cells, primary)
        if let baseline, !diffs.isEmpty {
            charts.append(
                "<h3>Change of the median vs \(baseline.rawValue)</h3>"
                    + DifferenceChart.render(
                        diffs, higherIsBetter: primary.higherIsBetter,
                        label: "Relative difference against \(baseline.rawValue), \(scenario), \(profile)"))
        }
        let series = cells.map { c in
            CDFChart.Series(
                label: c.label, color: Palette.transport(c.transport), values: a.values(primary.name, c),
                ideal: primary.idealName.flatMap { a.summary($0, c)?.median })
        }.filter { !$0.values.isEmpty }
        if !series.isEmpty {
            charts.append(
                "<h3>Distribution (CDF) of \(primary.label.lowercased())</h3>"
                    + CDFChart.render(
                        series, unit: primary.unit, label: "CDF of \(primary.label), \(scenario), \(profile)"))
        }
        let ttfb = barRows(a, cells, .ttfb)
        if !isBulk && !ttfb.isEmpty {
            charts.append(
                "<h3>Time to first byte: median, 95% CI, ideal</h3>"
                    + BarChart.render(ttfb, unit: "ms", label: "TTFB by transport, \(scenario), \(profile)"))
        }
        let goodput = barRows(a, cells, .goodput)
        if primary != .goodput && !goodput.isEmpty {
            charts.append(
                "<h3>Goodput: median, 95% CI (higher is better)</h3>"
                    + BarChart.render(goodput, unit: "Mbit/s", label: "Goodput by transport, \(scenario), \(profile)"))
        }
        html += "<div class=\"grid\">" + charts.map { "<div>\($0)</div>" }.joined() + "</div>\n"
        if !isBulk {
            html += HTMLPaint.render(a, cells, scenario: scenario, profile: profile)
            html += HTMLFilmstrip.render(a, scenario: scenario, profile: profile, panel: id)
            html += HTMLClients.render(a, cells, scenario: scenario, profile: profile)
        }
        html += waterfalls(a, cells)
        if MigrationView.hasPathChanges(cells.flatMap { a.countedRuns($0) }) {
            html += MigrationView.render(a, scenario: scenario, profile: profile)
        }
        html += "<details open><summary>Every figure</summary>\n" + figuresTable(a, cells, baseline) + "</details>\n"
        return html + "</section>\n"
    }

    static func barRows(_ a: ResultsAnalysis, _ cells: [CellKey], _ metric: Metric) -> [BarChart.Row] {
        cells.compactMap { c in
            a.summary(metric.name, c).map { s in
                BarChart.Row(
                    label: c.label, color: Palette.transport(c.transport), median: s.median,
                    low: s.ci95Low, high: s.ci95High, ideal: metric.idealName.flatMap { a.summary($0, c)?.median })
            }
        }
    }

    static func differenceRows(_ a: ResultsAnalysis, _ cells: [CellKey], _ metric: Metric) -> [DifferenceChart.Row] {
        cells.compactMap { c in
            a.comparison(metric.name, c).map { cmp in
                let v = cmp.verdict(higherIsBetter: metric.higherIsBetter)
                return DifferenceChart.Row(
                    label: c.label, comparison: cmp, verdict: v,
                    word: v == .noSignificantChange ? "n.s." : v.transportWord(higherIsBetter: metric.higherIsBetter))
            }
        }
    }

    static func waterfalls(_ a: ResultsAnalysis, _ cells: [CellKey]) -> String {
        var html = ""
        var first = true
        for c in cells {
            guard let run = a.medianRun(c), !run.requests.isEmpty else { continue }
            let m = run.metrics
            var summary = "\(c.label) · waterfall of the median run (run \(run.index))"
            if let plt = m.pltMs { summary += ": page load \(Format.value(plt, unit: "ms"))" }
            summary += ", \(run.requests.count) requests, \(m.connections ?? run.connections.count) connections"
            let notes = Waterfall.protocolNotes(run)
            if !notes.isEmpty { summary += " · ⚠ " + notes.joined(separator: "; ") }
            html += "<details\(first ? " open" : "")><summary>\(HTML.escape(summary))</summary>\n"
            html += Waterfall.render(run, label: "Waterfall of \(c.label) run \(run.index)")
            if let cross = run.crossTraffic {
                html += CrossTrafficChart.render(
                    cross, pltMs: m.pltMs, label: "Cross traffic during \(c.label) run \(run.index)")
            }
            if let links = run.emulator?.links, links.contains(where: { $0.series != nil }) {
                html += "<p class=\"caption\">The emulated link during this run: throughput, offered load and "
                    + "capacity per bin; queueing delay (each packet's time in the bottleneck, serialization "
                    + "included).</p>"
                html += LinkChart.render(links, label: "Emulated link during \(c.label) run \(run.index)")
            }
            html += "</details>\n"
            first = false
        }
        return html.isEmpty ? "" : "<h3>Waterfalls</h3>\n" + html
    }

    /// Every metric of every transport: n, median, percentiles, mean, sd, CI, outliers, and the
    /// change against the baseline with its CI, p-value and verdict. Units stand once, by the metric.
    static func figuresTable(_ a: ResultsAnalysis, _ cells: [CellKey], _ baseline: TransportKind?) -> String {
        var rows = ""
        for metric in Metric.all {
            var firstRow = true
            for c in cells {
                guard let s = a.summary(metric.name, c) else { continue }
                var tr = firstRow ? "<tr class=\"metric-start\">" : "<tr>"
                let unit =
                    metric.unit.isEmpty || metric.unit == "B"
                    ? "" : " <span class=\"note-text\">\(HTML.escape(metric.unit))</span>"
                tr += "<td>\(firstRow ? HTML.escape(metric.name) + unit : "")</td>"
                tr += "<td>\(HTMLReport.swatch(c.transport))\(HTML.escape(c.label))</td>" + figureCells(s, metric)
                tr += differenceCells(
                    a.comparison(metric.name, c), metric,
                    isBaseline: c.transport == baseline && Metric.compared.contains(metric))
                rows += tr + "</tr>\n"
                firstRow = false
            }
        }
        return
            "<div class=\"table-wrap\"><table class=\"figures\"><thead><tr><th>metric</th><th>transport</th><th "
                + "class=\"num\">n</th>"
            + "<th class=\"num\">median</th><th class=\"num\">p90</th><th class=\"num\">p95</th><th "
            + "class=\"num\">mean</th>"
            + "<th class=\"num\">sd</th><th class=\"num\">95% CI of median</th><th class=\"num\">outliers</th>"
            + "<th class=\"num\">Δ vs \(baseline?.rawValue ?? "baseline")</th><th class=\"num\">95% CI of Δ</th>"
            + "<th class=\"num\">p</th><th>verdict</th></tr></thead><tbody>\n" + rows + "</tbody></table></div>\n"
    }

    static func figureCells(_ s: Summary, _ metric: Metric) -> String {
        // Sizes keep their own unit (KB, MB); counts stay whole; other units are in the metric cell.
        func text(_ v: Double) -> String {
            metric.unit == "B" || metric.unit.isEmpty ? Format.value(v, unit: metric.unit) : Format.value(v)
        }
        var td = "<td class=\"num\">\(s.n)</td>"
        for v in [s.median, s.p90, s.p95, s.mean] { td += "<td class=\"num\">\(HTML.escape(text(v)))</td>" }
        td += "<td class=\"num\">\(s.sd.map { HTML.escape(text($0)) } ?? "–")</td>"
        let interval = text(s.ci95Low) + (metric.unit == "B" ? " – " : "–") + text(s.ci95High)
        td += "<td class=\"num\">\(HTML.escape(interval))</td>"
        return td + "<td class=\"num\">\(s.outliers)</td>"
    }

    static func differenceCells(_ cmp: Comparison?, _ metric: Metric, isBaseline: Bool) -> String {
        guard let cmp, let rel = cmp.relativeChange else {
            return
                "<td class=\"num\">–</td><td class=\"num\">–</td><td class=\"num\">–</td><td "
                    + "class=\"verdict\">\(isBaseline ? "baseline" : "")</td>"
        }
        let v = cmp.verdict(higherIsBetter: metric.higherIsBetter)
        let cls = v == .better ? " better" : v == .worse ? " worse" : ""
        let verdictWord = v == .noSignificantChange
            ? Format.notSignificant(cmp) : v.transportWord(higherIsBetter: metric.higherIsBetter)
        return "<td class=\"num\">\(Format.percent(rel))</td>"
            + "<td class=\"num\">\(cmp.interval.map { Format.percentInterval($0) } ?? "–")</td>"
            + "<td class=\"num\">\(HTML.escape(Format.pValue(cmp.pValue)))</td>"
            + "<td class=\"verdict\(cls)\">"
            + "\(HTML.escape(verdictWord))</td>"
    }
}
