import Foundation
import BenchModel
import Statistics

/// `summary.md`, for pull-request comments: per scenario × profile a table of transports with the
/// median page load time, its p95 and 95% CI, the ideal, and the change against the baseline
/// transport with its CI and verdict.
public enum MarkdownSummary {
    public static func render(_ analysis: ResultsAnalysis) -> String {
        let r = analysis.results
        var out = "## netbench: \(escape(r.suite.name))\n\n"
        let warmup = (r.suite.warmupRuns ?? 0) > 0 ? " (+\(r.suite.warmupRuns!) warm-up)" : ""
        out += "\(r.suite.runs) runs per cell\(warmup) · netbench \(escape(r.netbenchVersion)) · \(escape(r.startedAt))"
        out += " · \(escape(r.host.kernel)), \(r.host.cpuCount) CPUs\n\n"
        out += "Median page load time (PLT) with its 95% bootstrap CI; *ideal* is the physical lower bound. "
        out += "Δ is the change of the median against the baseline transport, with its 95% CI; a verdict needs the CI "
        out += "to exclude 0 and Mann-Whitney p < 0.05. RTT = round trip; each direction gets RTT/2.\n"
        out += CorpusReport.markdown(analysis)
        out += Fidelity.markdown(analysis)
        for panel in CorpusReport.showsPanels(analysis) ? analysis.panels : [] {
            out += "\n" + table(analysis, scenario: panel.scenario, profile: panel.profile)
        }
        out += footer(analysis)
        return out
    }

    static func table(_ a: ResultsAnalysis, scenario: String, profile: String) -> String {
        let baseline = a.baselineTransport(scenario: scenario, profile: profile)
        var out = "### \(escape(scenario)) · \(escape(profile))\n\n"
        if let p = a.profile(named: profile) { out += "_\(escape(p.summary))_\n\n" }
        let base = baseline?.rawValue ?? "baseline"
        out += "| transport | n | median PLT | p95 PLT | 95% CI | ideal | Δ vs \(base) (95% CI) | verdict |\n"
        out += "|---|--:|--:|--:|--:|--:|--:|---|\n"
        for cell in a.cells(scenario: scenario, profile: profile) {
            let t = cell.transport
            let failed = a.runs(cell).filter { $0.status == .failed }.count
            let name = t == baseline ? "**\(escape(cell.label))** (baseline)" : escape(cell.label)
            guard let s = a.summary("pltMs", cell) else {
                out += "| \(name) | 0 | – | – | – | – | – | \(failed) failed |\n"
                continue
            }
            let n = failed > 0 ? "\(s.n) (+\(failed) failed)" : "\(s.n)"
            let ideal = a.summary("idealPltMs", cell).map { Format.value($0.median, unit: "ms") } ?? "–"
            var delta = "–", verdict = t == baseline ? "baseline" : "–"
            if let c = a.comparison("pltMs", cell), let rel = c.relativeChange {
                delta = Format.percent(rel) + (c.interval.map { " (" + Format.percentInterval($0) + ")" } ?? "")
                let v = c.verdict(higherIsBetter: false)
                let word = v.transportWord(higherIsBetter: false)
                verdict = v == .noSignificantChange ? word : "**\(word)**"
                verdict += " (p \(Format.pValue(c.pValue)))"
            }
            // How far the emulator's lateness could have moved this median, when it was emulated.
            let bound = EmulatorFlags.pltBoundMs(a, cell).map { " (emulator ≤ \(Format.value($0, unit: "ms")))" } ?? ""
            out +=
                "| \(name) | \(n) | \(Format.value(s.median, unit: "ms"))\(bound) | \(Format.value(s.p95, unit: "ms")) "
                    + "| "
            out +=
                "\(Format.value(s.ci95Low))–\(Format.value(s.ci95High, unit: "ms")) | \(ideal) | \(delta) | \(verdict) "
                    + "|\n"
        }
        return out + paintTable(a, scenario: scenario, profile: profile)
            + clientsTable(a, scenario: scenario, profile: profile)
    }

    /// The browser's page metrics beside PLT, per transport (only cells whose runs carry them).
    static func paintTable(_ a: ResultsAnalysis, scenario: String, profile: String) -> String {
        let cells = HTMLPaint.cells(a, a.cells(scenario: scenario, profile: profile))
        guard !cells.isEmpty else { return "" }
        let milestones = HTMLPaint.milestones(a, cells)
        let metrics = milestones.map(\.metric) + [.plt]
        var out =
            "\nBrowser page metrics, median (95% CI), ms:\n\n| transport | "
            + milestones.map { $0.short == "load" ? "load event" : $0.short }.joined(separator: " | ")
            + " | PLT |\n"
        out += "|---|" + String(repeating: "--:|", count: metrics.count) + "\n"
        for c in cells {
            out +=
                "| \(escape(c.label)) | "
                + metrics.map { m in
                    a.summary(m.name, c).map {
                        "\(Format.value($0.median)) (\(Format.value($0.ci95Low))–\(Format.value($0.ci95High)))"
                    } ?? "–"
                }.joined(separator: " | ") + " |\n"
        }
        return out
    }

    /// Each other client against the reference one (a browser against the built-in client), per transport.
    static func clientsTable(_ a: ResultsAnalysis, scenario: String, profile: String) -> String {
        guard let reference = a.referenceClient else { return "" }
        var rows = ""
        for cell in a.cells(scenario: scenario, profile: profile) where cell.client != reference {
            guard let c = a.clientComparison("pltMs", cell), let rel = c.relativeChange,
                let mine = a.summary("pltMs", cell), let ref = a.summary("pltMs", a.cell(cell, client: reference))
            else { continue }
            let v = c.verdict(higherIsBetter: false)
            rows +=
                "| \(cell.transport.rawValue) | \(Format.value(ref.median, unit: "ms")) | "
                    + "\(escape(cell.client?.rawValue ?? "")) \(Format.value(mine.median, unit: "ms")) | "
            rows +=
                "\(Format.value(mine.median - ref.median, unit: "ms")) | "
                    + "\(String(format: "%.2f", mine.median / ref.median))× | "
            rows += Format.percent(rel) + (c.interval.map { " (" + Format.percentInterval($0) + ")" } ?? "")
            rows +=
                " | \(v == .noSignificantChange ? Format.notSignificant(c) : v.transportWord(higherIsBetter: false)) "
                    + "(p \(Format.pValue(c.pValue))) |\n"
        }
        guard !rows.isEmpty else { return "" }
        return
            "\nMedian PLT by client, against \(escape(reference.rawValue)):\n\n| transport | "
                + "\(escape(reference.rawValue)) | other | difference | ratio | Δ (95% CI) | verdict |\n"
            + "|---|--:|--:|--:|--:|--:|---|\n" + rows
    }

    static func footer(_ a: ResultsAnalysis) -> String {
        var out = ""
        if let sentence = EmulatorFlags(a).sentence { out += "\n> **Emulator accuracy:** " + escape(sentence) + "\n" }
        let failed = a.failedRuns
        if !failed.isEmpty {
            out += "\n<details><summary>\(failed.count) failed run\(failed.count == 1 ? "" : "s")</summary>\n\n"
            out += "| scenario | profile | transport | run | error |\n|---|---|---|--:|---|\n"
            for run in failed {
                let client = (run.client ?? .builtin) == .builtin ? "" : " · " + escape(run.client!.rawValue)
                out +=
                    "| \(escape(run.scenario)) | \(escape(run.profile)) | \(run.transport.rawValue)\(client) | "
                        + "\(run.index) | "
                out += "\(escape(run.error ?? "(no message)")) |\n"
            }
            out += "\n</details>\n"
        }
        return out
    }

    /// Markdown-escapes text for a table cell: punctuation Markdown acts on gets a backslash,
    /// `<`, `>` and `&` become entities (GitHub renders inline HTML), line breaks become spaces.
    public static func escape(_ text: String) -> String {
        var out = ""
        for ch in text {
            switch ch {
            case "\\", "|", "*", "_", "`", "[", "]", "#", "~": out += "\\" + String(ch)
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\n", "\r", "\r\n": out += " "
            default: out.append(ch)
            }
        }
        return out
    }
}
