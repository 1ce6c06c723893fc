import BenchCore
import Foundation
import BenchModel
import Statistics

/// What happened when the client's path changed: per transport, survival, stall and recovery over
/// the runs, and a timeline of a typical run (connections, receiving activity, path events and
/// QUIC path validation).
enum MigrationView {
    static func hasPathChanges(_ runs: [RunRecord]) -> Bool {
        runs.contains { !$0.pathEvents.isEmpty || $0.metrics.migration != nil }
    }

    static func render(_ a: ResultsAnalysis, scenario: String, profile: String) -> String {
        let cells = a.cells(scenario: scenario, profile: profile)
        var html = "<h3>Path change</h3>\n" + table(a, cells)
        let lanes: [(TransportKind, RunRecord)] = cells.compactMap { cell in
            let runs = a.countedRuns(cell).filter { !$0.pathEvents.isEmpty }
            guard let m = Descriptive.median(runs.compactMap(\.metrics.pltMs)) else { return nil }
            let run = runs.min { abs(($0.metrics.pltMs ?? 0) - m) < abs(($1.metrics.pltMs ?? 0) - m) }
            return run.map { (cell.transport, $0) }
        }
        if !lanes.isEmpty {
            html += "<p class=\"caption\">Timeline of the median run of each transport: connections (handshake darker, "
            html +=
                "× where one closed), bytes arriving (shaded), path events (red) and QUIC path validation (◆ challenge "
                    + "→ ◆ validated).</p>\n"
            html += timeline(lanes, label: "Path change timeline, \(scenario), \(profile)")
        }
        return html
    }

    static func table(_ a: ResultsAnalysis, _ cells: [CellKey]) -> String {
        var rows = ""
        for cell in cells {
            let runs = a.countedRuns(cell).filter { !$0.pathEvents.isEmpty || $0.metrics.migration != nil }
            let m = runs.compactMap(\.metrics.migration)
            guard !runs.isEmpty else { continue }
            func med(_ xs: [Double], unit: String) -> String {
                Descriptive.median(xs).map { Format.value($0, unit: unit) } ?? "–"
            }
            let survived = m.filter(\.survived).count
            rows += "<tr><td>\(HTML.escape(cell.label))</td><td class=\"num\">\(runs.count)</td>"
            rows += "<td class=\"num\">\(survived) of \(m.count)</td>"
            rows += "<td class=\"num\">\(med(m.compactMap(\.stallMs), unit: "ms"))</td>"
            rows += "<td class=\"num\">\(med(m.compactMap(\.recoveryMs), unit: "ms"))</td>"
            rows += "<td class=\"num\">\(med(m.map { Double($0.extraHandshakes) }, unit: ""))</td>"
            rows += "<td class=\"num\">\(med(m.map { Double($0.bytesRedownloaded) }, unit: "B"))</td>"
            rows += "<td class=\"num\">\(med(runs.compactMap(\.metrics.pltMs), unit: "ms"))</td>"
            rows += "<td class=\"num\">\(med(m.compactMap(\.baselinePltMs), unit: "ms"))</td></tr>\n"
        }
        return "<table class=\"figures\"><thead><tr><th>transport</th><th>runs</th><th>connection survived</th>"
            + "<th>stall (median)</th><th>recovery (median)</th><th>extra handshakes</th><th>re-downloaded</th>"
            + "<th>PLT with change</th><th>PLT without</th></tr></thead><tbody>\n" + rows + "</tbody></table>\n"
    }

    static func timeline(_ lanes: [(TransportKind, RunRecord)], label: String) -> String {
        let width = 1100.0, left = 230.0, right = 24.0, top = 24.0
        let laneHeights = lanes.map { 44.0 + 10.0 * Double(max($0.1.connections.count, 1)) }
        let height = top + laneHeights.reduce(0, +) + 20
        let end =
            lanes.flatMap { l in
                [l.1.metrics.pltMs ?? 0] + l.1.requests.compactMap(\.lastByte) + l.1.pathEvents.map(\.at)
            }.max() ?? 1
        let x = LinearScale(from: 0, to: max(end, 1), range: (left, width - right), tickCount: 10)
        var s = ""
        for t in x.ticks {
            s += HTML.line(x(t), top - 4, x(t), height - 18, stroke: Palette.grid)
            s += HTML.svgText(x(t), top - 8, Format.tick(t), anchor: "middle", cls: "tick")
        }
        s += HTML.svgText(left - 14, top - 8, "ms", anchor: "end", cls: "tick")
        var y = top
        for (i, (transport, run)) in lanes.enumerated() {
            let color = Palette.transport(transport)
            s += HTML.svgText(8, y + 16, transport.rawValue + " · run \(run.index)", cls: "label")
            if let m = run.metrics.migration {
                var words = [m.survived ? "survived" : "reconnected"]
                if let st = m.stallMs { words.append("stall " + Format.value(st, unit: "ms")) }
                if let rc = m.recoveryMs { words.append("recovered " + Format.value(rc, unit: "ms")) }
                s += HTML.svgText(8, y + 30, words.joined(separator: " · "), cls: "note")
            }
            // Connections, one thin row each.
            for (k, c) in run.connections.enumerated() {
                let cy = y + 6 + Double(k) * 10
                let closed = c.closedAt ?? run.metrics.pltMs ?? end
                s += HTML.rect(
                    x(c.connectStart), cy, x(closed) - x(c.connectStart), 4, fill: color,
                    title: "connection #\(c.id) \(c.path ?? "")", opacity: 0.45)
                if let hs = c.handshakeEnd {
                    s += HTML.rect(
                        x(c.connectStart), cy - 1, x(hs) - x(c.connectStart), 6, fill: "#9b72cf",
                        title: "handshake #\(c.id)")
                }
                if c.closedAt != nil { s += HTML.svgText(x(closed), cy + 5, "×", anchor: "middle", cls: "note") }
                for v in c.quic?.pathValidations ?? [] {
                    for at in [v.challengeAt, v.validatedAt].compactMap({ $0 }) {
                        s += HTML.svgText(x(at), cy + 5, "◆", anchor: "middle", cls: "note", fill: "#9b72cf")
                    }
                }
            }
            // Receiving activity: overlapping transfers shade darker.
            let band = y + 10 + 10 * Double(max(run.connections.count, 1))
            for r in run.requests {
                guard let fb = r.firstByte, let lb = r.lastByte else { continue }
                s += HTML.rect(x(fb), band, max(x(lb) - x(fb), 0.8), 12, fill: color, opacity: 0.3)
            }
            for e in run.pathEvents {
                s += HTML.line(
                    x(e.at), y + 2, x(e.at), y + laneHeights[i] - 4, stroke: Palette.event, width: 1.5, dash: "5 3")
                s += HTML.svgText(x(e.at) + 4, band + 22, Waterfall.pathEventText(e), cls: "note", fill: Palette.event)
            }
            y += laneHeights[i]
            s += HTML.line(left, y - 2, width - right, y - 2, stroke: Palette.grid)
        }
        return HTML.svg(width: width, height: height, label: label, s)
    }
}
