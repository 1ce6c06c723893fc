import BenchCore
import Foundation
import BenchModel
import Statistics

/// `report.html`: one self-contained page (inline CSS and SVG, no scripts, no fonts or images from
/// the network) that says in a minute which transport loads the page faster, by how much, how close
/// each gets to the physical limit, and how far the emulator can be trusted. Every user-supplied
/// string is escaped.
public enum HTMLReport {
    public static func render(_ a: ResultsAnalysis) -> String {
        let r = a.results
        var body = header(a)
        let panels = CorpusReport.showsPanels(a) ? a.panels : []
        if panels.count > 1 {
            body +=
                "<nav class=\"toc\">"
                + panels.enumerated().map { i, p in
                    HTML.element(
                        "a", [("href", "#" + panelID(i, p.scenario, p.profile))],
                        HTML.escape("\(p.scenario) · \(p.profile)"))
                }.joined(separator: " ") + "</nav>\n"
        }
        if !panels.isEmpty { body += findings(a) }
        body += Fidelity.html(a)
        body += CorpusReport.html(a)
        body += setup(a)
        for (i, p) in panels.enumerated() {
            body += HTMLPanel.render(a, scenario: p.scenario, profile: p.profile, id: panelID(i, p.scenario, p.profile))
        }
        body += failedRuns(a)
        body += methods(a)
        body +=
            "<footer>netbench \(HTML.escape(r.netbenchVersion)) · results schema v\(r.schemaVersion) · every figure is "
                + "computed from the raw timestamps in results.json</footer>\n"
        return HTMLStyle.page(title: "netbench · " + r.suite.name, body: body)
    }

    static func panelID(_ i: Int, _ scenario: String, _ profile: String) -> String {
        "panel-\(i + 1)-" + HTML.slug(scenario + "-" + profile)
    }

    static func header(_ a: ResultsAnalysis) -> String {
        let r = a.results
        let counted = r.runs.filter(\.counts).count
        let failed = a.failedRuns.count
        var meta = "\(HTML.escape(r.startedAt)) · \(counted) counted runs"
        if failed > 0 { meta += " · <span class=\"chip worse\">\(failed) failed</span>" }
        return "<header><h1>netbench · \(HTML.escape(r.suite.name))</h1><div class=\"meta\">\(meta)</div></header>\n"
    }

    /// One line per scenario × profile: the verdict of each transport against the baseline (the
    /// answer people came for), then the medians and how far each is from the ideal.
    static func findings(_ a: ResultsAnalysis) -> String {
        var items = ""
        for p in a.panels {
            guard let base = a.baselineTransport(scenario: p.scenario, profile: p.profile) else { continue }
            var verdicts: [String] = [], medians: [String] = []
            for cell in a.cells(scenario: p.scenario, profile: p.profile) {
                let t = cell.transport, name = HTML.escape(cell.label)
                guard let s = a.summary("pltMs", cell) else {
                    medians.append("\(swatch(t))\(name) no successful runs"); continue
                }
                medians.append(
                    "\(swatch(t))\(name) \(Format.value(s.median, unit: "ms"))" + efficiency(a, cell, s.median))
                guard t != base, let c = a.comparison("pltMs", cell), let rel = c.relativeChange, let ci = c.interval
                else { continue }
                let v = c.verdict(higherIsBetter: false)
                let text =
                    v == .noSignificantChange
                    ? "\(cell.label): no significant difference "
                        + "(\(Format.notSignificant(c).replacingOccurrences(of: "n.s.; ", with: "")))"
                    : "\(cell.label) \(Format.percent(rel).dropFirst())\u{00A0}"
                        + "\(v.transportWord(higherIsBetter: false))"
                verdicts.append(
                    chip(
                        v, text,
                        title:
                            "change of the median \(Format.percent(rel)), 95% CI \(Format.percentInterval(ci)), "
                                + "Mann-Whitney p \(Format.pValue(c.pValue))"
                    ))
            }
            items += "<li><b>\(HTML.escape(p.scenario))</b> on <b>\(HTML.escape(p.profile))</b>: "
            items +=
                verdicts.isEmpty ? "one transport only" : verdicts.joined(separator: " ") + " than \(base.rawValue)"
            items += HTMLClients.findings(a, scenario: p.scenario, profile: p.profile)
            items +=
                "<br><span class=\"note-text\">median page load: " + medians.joined(separator: " · ") + "</span></li>\n"
        }
        guard !items.isEmpty else { return "" }
        return "<section class=\"card\"><h2>At a glance</h2><ul class=\"findings\">\n\(items)</ul>"
            + "<p class=\"caption\">Change of the median page load time against the baseline transport; a verdict "
            + "needs its 95% CI "
            + "to exclude 0 and Mann-Whitney p &lt; 0.05. × is the median over the ideal, the physical lower "
            + "bound.</p></section>\n"
    }

    static func efficiency(_ a: ResultsAnalysis, _ cell: CellKey, _ median: Double) -> String {
        guard let ideal = a.summary("idealPltMs", cell)?.median, ideal > 0 else { return "" }
        return " (\(String(format: "%.2f", median / ideal))×)"
    }

    static func swatch(_ t: TransportKind) -> String {
        "<span class=\"swatch\" style=\"background:\(Palette.transport(t))\"></span>"
    }

    static func chip(_ v: Verdict, _ text: String, title: String) -> String {
        let cls = v == .better ? "better" : v == .worse ? "worse" : "neutral"
        return "<span class=\"chip \(cls)\" title=\"\(HTML.escape(title))\">\(HTML.escape(text))</span>"
    }

    static func setup(_ a: ResultsAnalysis) -> String {
        let r = a.results, suite = r.suite
        var dl = ""
        func row(_ k: String, _ v: String) { dl += "<dt>\(HTML.escape(k))</dt><dd>\(v)</dd>\n" }
        row("Scenarios", a.scenarios.map(HTML.escape).joined(separator: ", "))
        let base =
            suite.baselineTransport.map { " (baseline \($0.rawValue))" }
            ?? " (baseline: h2 where present, else the first)"
        row("Transports", a.transports.map { swatch($0) + $0.rawValue }.joined(separator: " ") + HTML.escape(base))
        var runs = runsPlanned(a)
        if let w = suite.warmupRuns, w > 0 {
            runs += ", after \(w) warm-up run\(w == 1 ? "" : "s") (left out of statistics)"
        }
        row("Runs", HTML.escape(runs))
        row("Client", HTML.escape(suite.client ?? "builtin"))
        var machine = "\(r.host.kernel), \(r.host.cpuCount) CPUs"
        if let h = r.host.hostname { machine = h + " · " + machine }
        row("Machine", HTML.escape(machine))
        row("netbench", HTML.escape("\(r.netbenchVersion), seed \(suite.seed)"))
        row("Emulator accuracy", emulatorAccuracy(r.runs))
        if let q = QueueingSummary.figures(r.runs.filter(\.counts)) {
            let note = "medians over the counted runs of each packet's time in the bottleneck, serialization included"
            row("Queueing delay", HTML.escape(q) + "<br><span class=\"note-text\">\(HTML.escape(note))</span>")
        }
        return "<section class=\"card\"><h2>Setup</h2><div class=\"grid\"><div><dl class=\"setup\">\n\(dl)</dl></div>"
            + "<div>\(profilesTable(a))</div></div></section>\n"
    }

    /// What the plan asked for: a fixed count, or (`--runs auto`) a maximum with the precision aimed at
    /// and the counted runs each cell made.
    static func runsPlanned(_ a: ResultsAnalysis) -> String {
        let r = a.results
        guard let adaptive = r.suite.adaptive else {
            return "\(r.suite.runs) per scenario × profile × transport, interleaved"
        }
        let cells = a.cells.map { a.runs($0).filter { $0.warmup != true }.count }
        let made =
            cells.isEmpty
            ? ""
            : cells.min() == cells.max()
                ? "; \(cells[0]) made"
                : "; \(cells.min()!)–\(cells.max()!) made"
        let precision = Units.format(adaptive.precision * 100, 1)
        return "adaptive, ≤ \(adaptive.maxRuns) per scenario × profile × transport (until the median's 95% CI "
            + "is within ±\(precision)%\(made)), interleaved"
    }

    static func profilesTable(_ a: ResultsAnalysis) -> String {
        var rows = ""
        for name in a.profiles {
            guard let p = a.profile(named: name) else {
                rows +=
                    "<tr><td>\(HTML.escape(name))</td><td colspan=\"5\">(not described in results.json)</td></tr>\n";
                continue
            }
            guard p.isEmulated else {
                let what =
                    name == "loopback" ? "loopback, no emulation (RTT as measured)" : (p.description ?? "no emulation")
                rows += "<tr><td>\(HTML.escape(name))</td><td colspan=\"5\">\(HTML.escape(what))</td></tr>\n"; continue
            }
            let trace = { (t: String?) in t.map { "trace " + URL(fileURLWithPath: $0).lastPathComponent } }
            let down = trace(p.downTrace) ?? p.down?.description ?? "–"
            let up = trace(p.upTrace) ?? p.up?.description ?? "–"
            rows += "<tr><td>\(HTML.escape(name))</td><td class=\"num\">\(HTML.escape(p.rtt?.description ?? "–"))</td>"
            rows += "<td class=\"num\">\(HTML.escape(down))</td><td class=\"num\">\(HTML.escape(up))</td>"
            rows += "<td class=\"num\">\(HTML.escape(p.loss?.description ?? "0%"))</td>"
            rows += "<td class=\"num\">\(HTML.escape(p.queue?.description ?? "BDP"))</td></tr>\n"
        }
        return
            "<table><thead><tr><th>profile</th><th class=\"num\">RTT</th><th class=\"num\">down</th><th "
                + "class=\"num\">up</th>"
            + "<th class=\"num\">loss</th><th class=\"num\">queue</th></tr></thead><tbody>\n\(rows)</tbody></table>"
            + "<p class=\"caption\">RTT = round trip; each direction gets RTT/2 of one-way delay.</p>"
    }

    /// Release lateness of the emulator over the runs it served, and the runs it flagged.
    static func emulatorAccuracy(_ runs: [RunRecord]) -> String {
        let records = runs.compactMap(\.emulator)
        guard !records.isEmpty else { return "not emulated (loopback) or not recorded" }
        let flagged = records.filter(\.flagged).count
        var parts: [String] = []
        if let p50 = Descriptive.median(records.compactMap(\.releaseLatenessP50Us)) {
            parts.append("release lateness p50 \(Format.value(p50)) µs")
        }
        let p99s = records.compactMap(\.releaseLatenessP99Us)
        if let p99 = Descriptive.median(p99s), let worst = p99s.max() {
            parts.append("p99 \(Format.value(p99)) µs (worst run \(Format.value(worst)) µs)")
        }
        let drops = records.compactMap(\.tunDrops).reduce(0, +)
        parts.append("TUN drops \(drops)")
        let status =
            flagged == 0
            ? "<span class=\"chip ok\">no flagged runs</span>"
            : "<span class=\"chip warn\">\(flagged) of \(records.count) runs flagged</span>"
        var html = status + " " + HTML.escape(parts.joined(separator: ", "))
        // Name the flagged runs: their figures are suspect, and a reader should be able to find them.
        let named = runs.filter { $0.emulator?.flagged == true }.map { run -> String in
            var why: [String] = []
            if let p99 = run.emulator?.releaseLatenessP99Us { why.append("lateness p99 \(Format.value(p99)) µs") }
            if let b = run.emulator?.pltLatenessBoundMs { why.append("could move PLT by ≤ \(Format.value(b)) ms") }
            if let d = run.emulator?.tunDrops, d > 0 { why.append("\(d) TUN drops") }
            return "\(run.scenario) · \(run.profile) · \(run.transport.rawValue) run \(run.index)"
                + (why.isEmpty ? "" : " (" + why.joined(separator: ", ") + ")")
        }
        if !named.isEmpty {
            let shown =
                named.prefix(8).joined(separator: "; ") + (named.count > 8 ? "; and \(named.count - 8) more" : "")
            html +=
                "<br><span class=\"note-text\">flagged (lateness could move PLT or TTFB by &gt; 1%, or TUN drops): "
                    + "\(HTML.escape(shown))</span>"
        }
        return html
    }

    static func failedRuns(_ a: ResultsAnalysis) -> String {
        let failed = a.failedRuns
        guard !failed.isEmpty else {
            return "<section class=\"card\"><h2>Failed runs</h2><p>None.</p></section>\n"
        }
        var rows = ""
        for r in failed {
            let client = (r.client ?? .builtin) == .builtin ? "" : " · " + HTML.escape(r.client!.rawValue)
            rows +=
                "<tr><td>\(HTML.escape(r.scenario))</td><td>\(HTML.escape(r.profile))</td><td>\(r.transport.rawValue)"
                    + "\(client)</td>"
            rows +=
                "<td class=\"num\">\(r.index)</td><td "
                    + "class=\"error\">\(HTML.escape(r.error ?? "(no message)"))</td></tr>\n"
        }
        return
            "<section class=\"card\"><h2>Failed runs (\(failed.count))</h2><p class=\"caption\">Left out of every "
                + "figure.</p>"
            + "<table><thead><tr><th>scenario</th><th>profile</th><th>transport</th><th "
            + "class=\"num\">run</th><th>error</th></tr></thead><tbody>\n"
            + rows + "</tbody></table></section>\n"
    }

    static func methods(_ a: ResultsAnalysis) -> String {
        """
        <section class="card"><h2>Method</h2><p class="note-text">
        Statistics use counted runs only (status ok, not warm-up). Percentiles interpolate linearly between closest \
        ranks (numpy's default).
        Intervals are 95% percentile-bootstrap intervals (\(a.resamples) resamples, seeded from the suite's seed): of \
        the median, and of the
        relative difference of medians (median / baseline median − 1). Verdicts need both that interval to exclude 0 \
        and a two-sided
        Mann-Whitney U test (normal approximation with tie and continuity correction) to give p &lt; 0.05. The ideal \
        is the physical lower
        bound of each run: handshake round trips (TCP+TLS 1.3 ≥ 3 RTT to the first byte, QUIC ≥ 2 RTT), serialization \
        at the bottleneck rate
        and the critical path of the page's dependency graph. Outliers: |x − median| &gt; 3.5 · 1.4826 · MAD; counted, \
        never removed.
        </p></section>

        """
    }
}
