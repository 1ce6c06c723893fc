import Foundation
import BenchCore
import BenchModel

/// The page `netbench shell --log DIR` writes beside its JSON: one self-contained HTML file (inline
/// CSS and SVG, no script) with the session's facts, each link direction's counts and queueing
/// delay, and the link over time — throughput against offered load and capacity, queueing delay —
/// drawn by the same chart as a run's panel in report.html.
public enum LinkSessionHTML {
    /// - Parameters:
    ///   - title: what ran (the command line).
    ///   - facts: lines shown under the title (profile, exit status, lateness…), escaped here.
    ///   - emulator: the session's emulator record (its `links` carry the counts and series).
    public static func render(title: String, facts: [String], emulator: EmulatorRecord) -> String {
        var body = "<header><h1>netbench shell · \(HTML.escape(emulator.profile))</h1>"
        body += "<div class=\"meta\">\(HTML.escape(title))</div></header>\n"
        body += "<section class=\"card\"><ul>"
        for f in facts { body += "<li>\(HTML.escape(f))</li>" }
        body += "</ul></section>\n"
        let links = emulator.links ?? []
        if !links.isEmpty {
            body += "<section class=\"card\"><h2>Link directions</h2><table><thead><tr>"
            let heads = [
                "path", "direction", "received", "forwarded", "dropped", "queueing p50 ms", "p90", "p99", "max",
            ]
            body += heads.map { "<th>\($0)</th>" }.joined() + "</tr></thead><tbody>"
            for l in links {
                let cells = [
                    l.path, l.direction.rawValue, "\(l.received)", "\(l.forwarded)", "\(l.dropped)",
                    ms(l.sojournP50Ms), ms(l.sojournP90Ms), ms(l.sojournP99Ms), ms(l.sojournMaxMs),
                ]
                body += "<tr>" + cells.map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>"
            }
            body += "</tbody></table></section>\n"
            body += "<section class=\"card\"><h2>The link over time</h2>"
            body += LinkChart.render(links, label: "Emulated link during the shell session")
            body += "</section>\n"
        }
        return HTMLStyle.page(title: "netbench shell · " + emulator.profile, body: body)
    }

    private static func ms(_ v: Double?) -> String { v.map { Units.format($0, 2) } ?? "unknown" }
}
