import BenchModel
import Statistics

/// The runs the emulator flagged and what they change: a flagged run stays in the results and
/// the statistics; this says how many there are, how far lateness could have moved each cell's
/// median, and whether any verdict would differ without them.
public struct EmulatorFlags: Sendable {
    /// Counted runs (ok, not warm-up) that went through the emulator, and those flagged.
    public let emulatedRuns: Int
    public let flaggedRuns: Int
    /// Verdicts that differ when the flagged runs are left out, one line each
    /// (`4G · page · h3 pltMs: faster → no significant change`).
    public let changedVerdicts: [String]

    public init(_ a: ResultsAnalysis) {
        let counted = a.results.runs.filter { $0.counts && $0.emulator != nil }
        emulatedRuns = counted.count
        let flagged = counted.filter { $0.emulator?.flagged == true }
        flaggedRuns = flagged.count
        guard !flagged.isEmpty else { changedVerdicts = []; return }
        var kept = a.results
        kept.runs = a.results.runs.filter { $0.emulator?.flagged != true }
        let without = ResultsAnalysis(kept, resamples: a.resamples)
        var changed: [String] = []
        for panel in a.panels {
            for cell in a.cells(scenario: panel.scenario, profile: panel.profile) {
                for metric in Metric.compared {
                    guard let c = a.comparison(metric.name, cell) else { continue }
                    let before = c.verdict(higherIsBetter: metric.higherIsBetter)
                    let after = without.comparison(metric.name, cell)?.verdict(higherIsBetter: metric.higherIsBetter)
                    guard after != before else { continue }
                    let word = { (v: Verdict?) in
                        v.map {
                            $0 == .noSignificantChange
                                ? "no significant change" : $0.transportWord(higherIsBetter: metric.higherIsBetter)
                        } ?? "no comparison left"
                    }
                    changed.append(
                        "\(panel.profile) · \(panel.scenario) · \(cell.label) \(metric.name): \(word(before)) → "
                            + "\(word(after))"
                    )
                }
            }
        }
        changedVerdicts = changed
    }

    /// Median over a cell's counted runs of how far lateness could have moved its PLT (ms);
    /// nil when no run of the cell carries the bound (loopback, older results).
    public static func pltBoundMs(_ a: ResultsAnalysis, _ cell: CellKey) -> Double? {
        Descriptive.median(a.countedRuns(cell).compactMap { $0.emulator?.pltLatenessBoundMs })
    }

    /// One sentence for a report's footer; nil when nothing was flagged.
    public var sentence: String? {
        guard flaggedRuns > 0 else { return nil }
        var s =
            "\(flaggedRuns) of \(emulatedRuns) emulated runs were flagged (the emulator's release lateness could move "
            + "their PLT or TTFB by more than 1%, or packets were lost outside the link model); they stay in the "
            + "statistics. "
        s +=
            changedVerdicts.isEmpty
            ? "Leaving them out changes no verdict."
            : "Leaving them out changes \(changedVerdicts.count) verdict\(changedVerdicts.count == 1 ? "" : "s"): "
                + changedVerdicts.joined(separator: "; ") + "."
        return s
    }
}
