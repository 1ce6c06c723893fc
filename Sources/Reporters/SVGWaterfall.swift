import Foundation
import BenchModel

/// A waterfall of one run from its request timestamps: one row per request, segments for the
/// phases that happened (queued, TCP connect, TLS or QUIC handshake, request sent → first byte,
/// first byte → last byte), path events as red vertical lines.
enum Waterfall {
    static let phases: [(name: String, color: String)] = [
        ("queued", "#d0d7de"), ("TCP connect", "#f4a261"), ("TLS / QUIC handshake", "#9b72cf"),
        ("waiting (request → first byte)", "#7fc97f"), ("receiving (first → last byte)", "#3b82c4"),
    ]
    static let maxRows = 80

    static func render(_ run: RunRecord, label: String) -> String {
        let requests = run.requests.sorted { ($0.queued, $0.id) < ($1.queued, $1.id) }
        let shown = Array(requests.prefix(maxRows))
        let width = 1100.0, left = 230.0, right = 70.0, top = 40.0, rowHeight = 15.0
        let height = top + Double(shown.count) * rowHeight + 26
        let end = ([run.metrics.pltMs ?? 0] + shown.compactMap { $0.lastByte } + run.pathEvents.map(\.at)).max() ?? 1
        let x = LinearScale(from: 0, to: max(end, 1), range: (left, width - right), tickCount: 10)
        var s = ""
        // Legend.
        var lx = left
        for p in phases {
            s += HTML.rect(lx, 6, 12, 10, fill: p.color)
            s += HTML.svgText(lx + 16, 15, p.name, cls: "note")
            lx += 34 + Double(p.name.count) * 5.6
        }
        for t in x.ticks {
            s += HTML.line(x(t), top - 6, x(t), height - 24, stroke: Palette.grid)
            s += HTML.svgText(x(t), top - 10, Format.tick(t), anchor: "middle", cls: "tick")
        }
        s += HTML.svgText(width - 4, top - 10, "ms", anchor: "end", cls: "tick")
        for (i, r) in shown.enumerated() {
            let y = top + Double(i) * rowHeight
            if i % 2 == 1 { s += HTML.rect(0, y, width, rowHeight, fill: "#f6f8fa") }
            var name = r.id
            if name.count > 30 { name = String(name.prefix(29)) + "…" }
            s += HTML.svgText(8, y + 11, name, cls: "label small")
            s += HTML.svgText(
                left - 6, y + 11, r.origin + (r.connection.map { " #\($0)" } ?? ""), anchor: "end", cls: "note")
            s += segments(r, x: x, y: y + 2, height: rowHeight - 4)
            if let e = r.error {
                s += HTML.svgText(
                    x(r.lastByte ?? r.firstByte ?? r.requestSent ?? r.queued) + 4, y + 11, "✕ " + e, cls: "note",
                    fill: Palette.worse)
            }
        }
        for e in run.pathEvents {
            s += HTML.line(x(e.at), top - 4, x(e.at), height - 24, stroke: Palette.event, width: 1.5, dash: "5 3")
            s += HTML.svgText(x(e.at) + 4, height - 12, pathEventText(e), cls: "note", fill: Palette.event)
        }
        if requests.count > shown.count {
            s += HTML.svgText(8, height - 8, "first \(shown.count) of \(requests.count) requests", cls: "note")
        }
        return HTML.svg(width: width, height: height, label: label, s)
    }

    /// The phases of one request as adjacent rectangles; a phase that did not happen is skipped.
    static func segments(_ r: RequestRecord, x: LinearScale, y: Double, height: Double) -> String {
        var bounds: [(Double, Double, Int)] = []
        let sent = r.requestSent
        let setupEnd = r.tlsEnd ?? r.connectEnd
        if let cs = r.connectStart {
            bounds.append((r.queued, cs, 0))
        } else if let sent {
            bounds.append((r.queued, sent, 0))
        }
        if let cs = r.connectStart, let ce = r.connectEnd { bounds.append((cs, ce, 1)) }
        if let te = r.tlsEnd, let from = r.connectEnd ?? r.connectStart { bounds.append((from, te, 2)) }
        if let sent, let setupEnd, sent > setupEnd { bounds.append((setupEnd, sent, 0)) }
        if let fb = r.firstByte, let from = sent ?? setupEnd ?? r.connectStart { bounds.append((from, fb, 3)) }
        if let fb = r.firstByte, let lb = r.lastByte { bounds.append((fb, lb, 4)) }
        var s = ""
        for (a, b, phase) in bounds where b > a {
            s += HTML.rect(
                x(a), y, max(x(b) - x(a), 0.8), height, fill: phases[phase].color,
                title: "\(r.id): \(phases[phase].name) \(Format.value(a))–\(Format.value(b, unit: "ms"))")
        }
        if let lb = r.lastByte {
            s += HTML.svgText(x(lb) + 4, y + height - 2, Format.value(lb - r.queued), cls: "note")
        }
        return s
    }

    static func pathEventText(_ e: PathEventRecord) -> String {
        var t = e.type
        if let from = e.from, let to = e.to { t += " " + from + " → " + to }
        return t + " @ " + Format.value(e.at, unit: "ms")
    }
}
