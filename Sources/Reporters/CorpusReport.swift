import BenchCore
import BenchModel
import Statistics

/// The "Across pages" parts of `report.html` and `summary.md` (see `CorpusSummary`): per profile, a
/// table of each transport's ratio quantiles and decided shares, and a CDF of the per-page ratios.
enum CorpusReport {
    static let caption =
        "Ratio = median page load time of the transport / that of the baseline, per page (below 1: faster); "
        + "p10 to p90 are quantiles of the ratio across pages. "
        + "Decided: two-sided Mann-Whitney p of the page's runs at most 0.05 after the Benjamini–Hochberg correction "
        + "across "
        + "the pages of the row (false-discovery rate 5%); \"raw\" counts p &lt; 0.05 before the correction. "
        + "In the chart, a filled dot is a decided page, a hollow one undecided."

    /// Page × profile panels beyond which a corpus result shows only the "Across pages" figures: a
    /// panel (bars, CDF, waterfalls) is ~90 KB of HTML, so 10,000 pages on 2 profiles would make a
    /// 2 GB report. The per-page figures stay in summary.csv, runs.csv and corpus.csv.
    static let maxPanels = 40

    /// Whether the reports show every page × profile panel (always without a corpus).
    static func showsPanels(_ a: ResultsAnalysis) -> Bool {
        a.panels.count <= maxPanels || CorpusSummary(a) == nil
    }

    static func omittedNote(_ a: ResultsAnalysis) -> String {
        showsPanels(a)
            ? ""
            : "The \(a.panels.count) page × profile panels are left out (more than \(maxPanels)): "
                + "per-page figures are in summary.csv, runs.csv and corpus.csv."
    }

    static func html(_ a: ResultsAnalysis) -> String {
        guard let corpus = CorpusSummary(a) else { return "" }
        var body = ""
        let note = omittedNote(a)
        if !note.isEmpty { body += "<p class=\"note-text\">\(HTML.escape(note))</p>\n" }
        for profile in a.profiles {
            let rows = corpus.series.filter { $0.profile == profile }
            guard !rows.isEmpty else { continue }
            body += "<h3>\(HTML.escape(profile))</h3>\n" + htmlTable(rows)
            body += RatioCDFChart.render(rows, label: "CDF across pages of the median page load ratio on \(profile)")
        }
        return "<section class=\"card\" id=\"across-pages\"><h2>Across pages</h2>\n" + body
            + "<p class=\"caption\">\(caption)</p></section>\n"
    }

    static func htmlTable(_ rows: [CorpusSummary.Series]) -> String {
        var out = "<table><thead><tr><th>transport</th><th class=\"num\">pages</th>"
        for q in CorpusSummary.shownQuantiles { out += "<th class=\"num\">\(q == 50 ? "median" : "p\(Int(q))")</th>" }
        out +=
            "<th class=\"num\">faster</th><th class=\"num\">slower</th><th class=\"num\">undecided</th><th "
                + "class=\"num\">p &lt; 0.05 raw</th></tr></thead><tbody>\n"
        for s in rows {
            let n = s.pages.count
            out +=
                "<tr><td style=\"white-space:nowrap\">\(RatioCDFChart.swatch(s.transport))\(s.transport.rawValue) vs "
                    + "\(s.baseline.rawValue)</td><td class=\"num\">\(n)</td>"
            for q in CorpusSummary.shownQuantiles { out += "<td class=\"num\">\(s.quantile(q).map(ratio) ?? "–")</td>" }
            for d in [CorpusSummary.Decision.faster, .slower, .undecided] {
                out += "<td class=\"num\">\(share(s.count(d), n))</td>"
            }
            out += "<td class=\"num\">\(share(s.uncorrectedDecided, n))</td></tr>\n"
        }
        out += "</tbody></table>\n"
        let notes = rows.compactMap(powerNote)
        return out + (notes.isEmpty ? "" : "<p class=\"note-text\">\(HTML.escape(notes.joined(separator: " ")))</p>\n")
    }

    /// Says when too few runs per cell keep the correction from deciding any page on its own.
    static func powerNote(_ s: CorpusSummary.Series) -> String? {
        let k = s.pagesNeededToDecide
        guard k > 1, let floor = s.pages.map(\.smallestPossibleP).min() else { return nil }
        return "\(s.transport.rawValue) vs \(s.baseline.rawValue): with these runs per cell no page's p can be below "
            + "\(Format.pValue(floor)), so Benjamini–Hochberg over \(s.pages.count) pages decides none unless at least "
            + "\(k) pages "
            + "have p ≤ \(String(format: "%.4f", CorpusSummary.fdr * Double(k) / Double(s.pages.count))); more runs "
            + "per cell lower that floor."
    }

    static func markdown(_ a: ResultsAnalysis) -> String {
        guard let corpus = CorpusSummary(a) else { return "" }
        var out = "\n### Across pages\n\n"
        out +=
            "| profile | transport | pages | ratio p10 | p25 | median | p75 | p90 | faster | slower | undecided | p < "
                + "0.05 raw |\n"
        out += "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n"
        for s in corpus.series {
            let n = s.pages.count
            out +=
                "| \(MarkdownSummary.escape(s.profile)) | \(s.transport.rawValue) vs \(s.baseline.rawValue) | \(n) | "
            out += CorpusSummary.shownQuantiles.map { s.quantile($0).map(ratio) ?? "–" }.joined(separator: " | ")
            out +=
                " | \(share(s.count(.faster), n)) | \(share(s.count(.slower), n)) | \(share(s.count(.undecided), n)) | "
                    + "\(share(s.uncorrectedDecided, n)) |\n"
        }
        let notes = corpus.series.compactMap { s in powerNote(s).map { "\(s.profile), " + $0 } }
        if !notes.isEmpty { out += "\n" + notes.joined(separator: "\n") + "\n" }
        let note = omittedNote(a)
        return out + "\n" + caption.replacingOccurrences(of: "&lt;", with: "<") + " Per page: `corpus.csv`.\n"
            + (note.isEmpty ? "" : "\n" + note + "\n")
    }

    static func ratio(_ r: Double) -> String { String(format: "%.3f", r) }

    /// `12 (24%)`.
    static func share(_ k: Int, _ n: Int) -> String {
        n == 0 ? "–" : "\(k) (\(Int((Double(k) / Double(n) * 100).rounded()))%)"
    }
}

/// The empirical CDF across pages of each transport's ratio against the baseline on one profile:
/// a step per page, a dot per page (filled when decided after the FDR correction, hollow when not;
/// dots are left out above 300 pages), and the line of equal speed at 1.
enum RatioCDFChart {
    static let maxDots = 300

    static func swatch(_ t: TransportKind) -> String {
        "<span class=\"swatch\" style=\"background:\(Palette.transport(t))\"></span>"
    }

    static func render(_ rows: [CorpusSummary.Series], label: String) -> String {
        let width = 560.0, left = 44.0, right = 16.0, top = 26.0, plotHeight = 190.0
        let height = top + plotHeight + 44
        let all = rows.flatMap(\.ratios) + [1]
        let x = LinearScale(from: all.min()!, to: all.max()!, range: (left, width - right), tickCount: 6)
        let y = LinearScale(from: 0, to: 1, range: (top + plotHeight, top), tickCount: 4)
        var s = BarChart.axis(x, top: top, bottom: top + plotHeight, unit: "ratio to baseline")
        for t in y.ticks {
            s += HTML.line(left, y(t), width - right, y(t), stroke: Palette.grid)
            s += HTML.svgText(left - 6, y(t) + 4, "\(Int((t * 100).rounded()))%", anchor: "end", cls: "tick")
        }
        s += HTML.line(x(1), top, x(1), top + plotHeight, stroke: Palette.ink, width: 1.2)
        s += HTML.svgText(x(1) - 4, top + plotHeight + 40, "◀ faster", anchor: "end", cls: "tick", fill: Palette.better)
        s += HTML.svgText(x(1) + 4, top + plotHeight + 40, "slower ▶", cls: "tick", fill: Palette.worse)
        var lx = left
        for row in rows {
            let color = Palette.transport(row.transport), n = Double(row.pages.count)
            var d = "M\(HTML.n(x(x.domain.0))) \(HTML.n(y(0)))"
            for (k, p) in row.pages.enumerated() { d += "H\(HTML.n(x(p.ratio)))V\(HTML.n(y(Double(k + 1) / n)))" }
            d += "H\(HTML.n(x(x.domain.1)))"
            s += HTML.empty("path", [("d", d), ("fill", "none"), ("stroke", color), ("stroke-width", "2")])
            if row.pages.count <= maxDots {
                for (k, p) in row.pages.enumerated() {
                    let decided = p.decision != .undecided
                    let tip =
                        "\(p.scenario): \(row.transport.rawValue) \(Format.value(p.median, unit: "ms")) / "
                            + "\(row.baseline.rawValue) "
                        + "\(Format.value(p.baselineMedian, unit: "ms")) = \(CorpusReport.ratio(p.ratio)); p "
                        + "\(Format.pValue(p.pValue)), "
                        + "BH-adjusted \(Format.pValue(p.adjustedP)): \(p.decision.rawValue)"
                    s += HTML.element(
                        "circle",
                        [
                            ("cx", HTML.n(x(p.ratio))), ("cy", HTML.n(y(Double(k + 1) / n))), ("r", "3"),
                            ("fill", decided ? color : "white"), ("stroke", color),
                        ],
                        HTML.element("title", [], HTML.escape(tip)))
                }
            }
            let text = "\(row.transport.rawValue) vs \(row.baseline.rawValue) (\(row.pages.count) pages)"
            s += HTML.rect(lx, 8, 14, 4, fill: color) + HTML.svgText(lx + 18, 13, text, cls: "note")
            lx += 30 + Double(text.count) * 6
        }
        return HTML.svg(width: width, height: height, label: label, s)
    }
}
