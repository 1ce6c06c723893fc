import Foundation
import BenchModel
import Statistics

/// The table `netbench run` prints after a run: per scenario × profile × transport, the counted
/// runs, median and p95 of page load time, TTFB and handshake, the ideal page load time and the
/// change of the median page load time against the baseline transport.
public enum TextSummary {
    public static func render(_ results: ResultsFile, resamples: Int = Bootstrap.defaultResamples) -> String {
        render(ResultsAnalysis(results, resamples: resamples))
    }

    public static func render(_ a: ResultsAnalysis) -> String {
        var out = ""
        for panel in a.panels {
            let baseline = a.baselineTransport(scenario: panel.scenario, profile: panel.profile)
            out += panel.scenario + " · " + panel.profile
            if let p = a.profile(named: panel.profile) { out += "  (" + p.summary + ")" }
            out += "\n"
            var rows = [
                [
                    "transport", "n", "PLT med", "p95", "TTFB med", "p95", "HS med", "p95", "ideal PLT",
                    "Δ PLT vs \(baseline?.rawValue ?? "-")",
                ]
                    + (a.referenceClient.map { ["Δ PLT vs \($0)"] } ?? [])
            ]
            for cell in a.cells(scenario: panel.scenario, profile: panel.profile) {
                let t = cell.transport
                let failed = a.runs(cell).filter { $0.status == .failed }.count
                var row = [cell.label, String(a.countedRuns(cell).count) + (failed > 0 ? " (\(failed) failed)" : "")]
                for m in ["pltMs", "ttfbMs", "handshakeMs"] {
                    let s = a.summary(m, cell)
                    // Next to the PLT median: how far the emulator's lateness could have moved it.
                    let bound =
                        m == "pltMs" ? EmulatorFlags.pltBoundMs(a, cell).map { " emu≤" + Format.value($0) } ?? "" : ""
                    row += [s.map { Format.value($0.median) + bound } ?? "-", s.map { Format.value($0.p95) } ?? "-"]
                }
                row.append(a.summary("idealPltMs", cell).map { Format.value($0.median) } ?? "-")
                if t == baseline {
                    row.append("baseline")
                } else if let c = a.comparison("pltMs", cell), let rel = c.relativeChange {
                    let v = c.verdict(higherIsBetter: false)
                    row.append(
                        Format.percent(rel) + " "
                            + (v == .noSignificantChange
                                ? "(" + Format.notSignificant(c) + ")" : v.transportWord(higherIsBetter: false)))
                } else {
                    row.append("-")
                }
                if let reference = a.referenceClient {
                    if cell.client == reference {
                        row.append("reference")
                    } else if let c = a.clientComparison("pltMs", cell), let rel = c.relativeChange {
                        let v = c.verdict(higherIsBetter: false)
                        row.append(
                            Format.percent(rel) + " "
                                + (v == .noSignificantChange
                                    ? "(" + Format.notSignificant(c) + ")" : v.transportWord(higherIsBetter: false)))
                    } else {
                        row.append("-")
                    }
                }
                rows.append(row)
            }
            out += TextTable.render(rows, rightAligned: Set(1...8), indent: "  ")
        }
        if out.isEmpty { out = "no runs\n" }
        out += "times in ms; medians and p95 over counted runs; RTT = round trip, each direction gets RTT/2\n"
        if a.results.runs.contains(where: { $0.emulator?.pltLatenessBoundMs != nil }) {
            out +=
                "emu≤B: the emulator's release lateness could have moved that median PLT by at most B ms (median over "
                + "the cell's runs)\n"
        }
        if let sentence = EmulatorFlags(a).sentence { out += sentence + "\n" }
        if let q = QueueingSummary.sentence(a.results.runs.filter(\.counts)) { out += q + "\n" }
        if let n = notFoundSentence(a.results.runs) { out += n + "\n" }
        return out
    }
}

extension TextSummary {
    /// How many requests the replay server answered 404 (URLs not in the scenario, e.g. a recorded page's
    /// script asking for one the recording lacks), in how many runs, and the most frequent; nil: none.
    static func notFoundSentence(_ runs: [RunRecord]) -> String? {
        let lists = runs.compactMap { $0.server?.notFound }.filter { !$0.isEmpty }
        guard !lists.isEmpty else { return nil }
        var count: [String: Int] = [:]
        for l in lists { for u in l { count[u, default: 0] += 1 } }
        let top = count.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(3).map { "\($0.key) ×\($0.value)" }
        return
            "not in the scenario (404): \(lists.reduce(0) { $0 + $1.count }) request(s) in \(lists.count) run(s), e.g. "
            + top.joined(separator: ", ") + " (runs[].server.notFound)"
    }
}

/// A plain-text table with columns padded to their widest cell.
enum TextTable {
    static func render(_ rows: [[String]], rightAligned: Set<Int> = [], indent: String = "") -> String {
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        var out = ""
        for row in rows {
            var line = indent
            for (i, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                line += (rightAligned.contains(i) ? pad + cell : cell + pad)
                if i < row.count - 1 { line += "  " }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            out += line + "\n"
        }
        return out
    }
}
