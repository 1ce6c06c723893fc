import BenchCore
import Foundation
import BenchModel

/// A waterfall of one run from its request timestamps: one row per request, segments for the
/// phases that happened (queued, TCP connect, TLS or QUIC handshake, request sent → first byte,
/// first byte → last byte), path events as red vertical lines.
///
/// Each row names the request's origin, its connection (`#N`, the index into the run's
/// connections) and the protocol it used (the request's own, else its connection's ALPN), both
/// "unknown" when the run did not record them. A protocol other than the run's transport (an h3
/// page falling back to h2) gets a red cell, and the legend counts such requests
/// ("1 request over h2 in an h3 run").
enum Waterfall {
    static let phases: [(name: String, color: String)] = [
        ("queued", "#d0d7de"), ("TCP connect", "#f4a261"), ("TLS / QUIC handshake", "#9b72cf"),
        ("waiting (request → first byte)", "#7fc97f"), ("receiving (first → last byte)", "#3b82c4"),
    ]
    static let maxRows = 80

    /// The protocol cell of a request whose protocol is unknown.
    static let unknownColor = Palette.neutral

    /// The protocol a request used as the report names it: `h1`, `h2`, `h3` (matched as the HAR
    /// export maps versions), another protocol's own name, or nil when not recorded. The request's
    /// protocol first, else the ALPN of its connection.
    static func protocolName(_ r: RequestRecord, run: RunRecord) -> String? {
        var p = r.protocol
        if p?.isEmpty ?? true, let c = r.connection, c >= 0, c < run.connections.count {
            p = run.connections[c].alpn
        }
        guard let p, !p.isEmpty else { return nil }
        let version = HARExport.httpVersion(p)
        return TransportKind.allCases.first { HARExport.httpVersion($0.alpn) == version }?.rawValue ?? p
    }

    /// `#N`, or "unknown" for a request without a recorded connection.
    static func connectionName(_ r: RequestRecord) -> String {
        r.connection.map { "#\($0)" } ?? "unknown"
    }

    /// The requests that used a protocol other than the run's transport, counted per protocol
    /// ("1 request over h2 in an h3 run"), then those whose protocol is unknown.
    static func protocolNotes(_ run: RunRecord) -> [String] {
        var other: [String: Int] = [:]
        var unknown = 0
        for r in run.requests {
            guard let p = protocolName(r, run: run) else {
                unknown += 1
                continue
            }
            if p != run.transport.rawValue { other[p, default: 0] += 1 }
        }
        let t = run.transport.rawValue
        var notes = other.sorted { $0.key < $1.key }.map { p, n in
            "\(n) request\(n == 1 ? "" : "s") over \(p) in an \(t) run"
        }
        if unknown > 0 { notes.append("\(unknown) request\(unknown == 1 ? "" : "s") over an unknown protocol") }
        return notes
    }

    static func protocolColor(_ p: String?, run: RunRecord) -> String {
        guard let p else { return unknownColor }
        guard p == run.transport.rawValue, let t = TransportKind(rawValue: p) else { return Palette.worse }
        return Palette.transport(t)
    }

    static func render(_ run: RunRecord, label: String) -> String {
        let requests = run.requests.sorted { ($0.queued, $0.id) < ($1.queued, $1.id) }
        let shown = Array(requests.prefix(maxRows))
        // Notes on requests over another protocol stand left of the legend, one a line.
        let notes = protocolNotes(run)
        let width = 1200.0, left = 400.0, right = 70.0, rowHeight = 15.0
        let top = 58.0 + Double(max(notes.count - 2, 0)) * 17
        let protoX = left - 58, protoWidth = 52.0, connX = protoX - 6, originX = connX - 60
        let height = top + Double(shown.count) * rowHeight + 26
        let end = ([run.metrics.pltMs ?? 0] + shown.compactMap { $0.lastByte } + run.pathEvents.map(\.at)).max() ?? 1
        let x = LinearScale(from: 0, to: max(end, 1), range: (left, width - right), tickCount: 10)
        var s = ""
        // Legend: the phases, then the protocols and the requests over another protocol.
        var lx = left
        for p in phases {
            s += HTML.rect(lx, 6, 12, 10, fill: p.color)
            s += HTML.svgText(lx + 16, 15, p.name, cls: "note")
            lx += 34 + Double(p.name.count) * 5.6
        }
        lx = left
        let legend: [(String, String)] = [
            (Palette.transport(run.transport), "protocol of the run (\(run.transport.rawValue))"),
            (Palette.worse, "another protocol"), (unknownColor, "unknown"),
        ]
        for (color, text) in legend {
            s += HTML.rect(lx, 23, 12, 10, fill: color)
            s += HTML.svgText(lx + 16, 32, text, cls: "note")
            lx += 34 + Double(text.count) * 5.6
        }
        for (i, note) in notes.enumerated() {
            s += HTML.svgText(8, 15 + Double(i) * 17, "⚠ " + note, cls: "warn")
        }
        s += HTML.svgText(originX, top - 10, "origin", anchor: "end", cls: "tick")
        s += HTML.svgText(connX, top - 10, "conn.", anchor: "end", cls: "tick")
        s += HTML.svgText(protoX + protoWidth / 2, top - 10, "protocol", anchor: "middle", cls: "tick")
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
            var origin = r.origin
            if origin.count > 14 { origin = String(origin.prefix(13)) + "…" }
            s += HTML.svgText(originX, y + 11, origin, anchor: "end", cls: "note")
            s += HTML.svgText(connX, y + 11, connectionName(r), anchor: "end", cls: "note")
            let p = protocolName(r, run: run)
            let other = p != nil && p != run.transport.rawValue
            var title = "\(r.id): protocol \(p ?? "unknown"), connection \(connectionName(r))"
            if other { title += "; the run is \(run.transport.rawValue)" }
            s += HTML.rect(protoX, y + 1.5, protoWidth, rowHeight - 3, fill: protocolColor(p, run: run), title: title)
            s += HTML.svgText(
                protoX + protoWidth / 2, y + 11, (other ? "⚠ " : "") + (p ?? "unknown"), anchor: "middle",
                cls: p == nil ? "proto unknown" : "proto")
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
