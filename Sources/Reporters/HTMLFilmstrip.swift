import Foundation
import BenchModel

/// `run --filmstrip`: what the page showed while it loaded, one row per transport side by side, a
/// frame every 100 ms (WebPageTest's filmstrip view): each column shows the last frame the browser
/// had painted by then, framed in colour where it changed. The frames come from a load of their
/// own per cell (not a measured run); each distinct frame is embedded once, as a CSS class.
enum HTMLFilmstrip {
    /// At most this many columns: a longer load is shown at a coarser step.
    static let maxColumns = 120

    static func render(_ a: ResultsAnalysis, scenario: String, profile: String, panel: String) -> String {
        let strips = (a.results.filmstrips ?? []).filter { $0.scenario == scenario && $0.profile == profile }
        guard !strips.isEmpty else { return "" }
        let end =
            strips.map { s in max(s.frames.last?.ms ?? 0, s.loadEventMs ?? 0, s.largestContentfulPaintMs ?? 0) }.max()
            ?? 0
        let step = max(100, Int((end / Double(maxColumns) / 100).rounded(.up)) * 100)
        let columns = Int(end / Double(step)) + 2
        var style = "", rows = ""
        let prefix = "fs" + HTML.slug(panel)
        for (i, s) in strips.enumerated() {
            for (j, f) in s.frames.enumerated() {
                style +=
                    ".\(prefix)-\(i)-\(j){background-image:url(data:image/jpeg;base64,"
                        + "\(f.jpeg.filter { $0.isLetter || $0.isNumber || "+/=".contains($0) }))}\n"
            }
            rows += row(s, index: i, prefix: prefix, step: step, columns: columns)
        }
        var html = "<h3>Filmstrip: what the page showed, every \(Format.value(Double(step), unit: "ms"))</h3>\n"
        html += "<style>\n\(css)\n\(style)</style>\n<div class=\"filmstrip\">\(rows)</div>\n"
        return html
            + "<p class=\"caption\">One load per transport made after the measured runs, by the same browser over the "
            + "same "
            + "network, capturing every frame it painted (capturing costs the browser CPU, so no measured run does "
            + "it). A coloured "
            + "frame changed since the previous column; the milestones are this load's own.</p>\n"
    }

    static func row(_ s: FilmstripRecord, index i: Int, prefix: String, step: Int, columns: Int) -> String {
        let label = s.transport.rawValue + (s.client == .chromium ? "" : " · \(s.client.rawValue)")
        var html =
            "<div class=\"fs-row\"><div class=\"fs-label\">\(HTMLReport.swatch(s.transport))\(HTML.escape(label))"
        let milestones = [
            ("FCP", s.firstContentfulPaintMs), ("LCP", s.largestContentfulPaintMs), ("load", s.loadEventMs),
        ]
        .compactMap { name, v in v.map { "\(name) \(Format.value($0, unit: "ms"))" } }
        if !milestones.isEmpty {
            html += "<br><span class=\"note-text\">\(HTML.escape(milestones.joined(separator: " · ")))</span>"
        }
        if let e = s.error { html += "<br><span class=\"note-text\">\(HTML.escape(e))</span>" }
        html += "</div><div class=\"fs-frames\">"
        var previous: Int? = nil
        for c in 0..<columns {
            let t = Double(c * step)
            let frame = s.frameIndex(at: t)
            let changed = c > 0 && frame != previous
            html += "<figure class=\"fs-frame\(changed ? " fs-changed" : "")\">"
            html += "<div class=\"fs-img\(frame.map { " \(prefix)-\(i)-\($0)" } ?? "")\"></div>"
            html += "<figcaption>\(String(format: "%.1f", t / 1000)) s</figcaption></figure>"
            previous = frame
        }
        return html + "</div></div>\n"
    }

    static let css = """
        .filmstrip{overflow-x:auto;margin:6px 0}
        .fs-row{display:flex;align-items:flex-start;gap:8px;margin-bottom:8px}
        .fs-label{flex:0 0 110px;font-weight:600;font-size:13px}
        .fs-frames{display:flex;gap:4px}
        .fs-frame{margin:0;flex:0 0 auto;text-align:center;font-size:11px;color:#57606a}
        .fs-img{width:120px;height:76px;background:#fff center/contain no-repeat;border:2px solid #d0d7de}
        .fs-changed .fs-img{border-color:#e3b341}
        """
}
