import Foundation
import BenchCore
import BenchModel

/// The cross-traffic flows of one run: each flow's throughput per 100 ms bin over time (Mbit/s),
/// in ms from the same origin as the run's waterfall (navigation start; the page's load is
/// shaded), with each flow's congestion control, goodput and share in the legend.
enum CrossTrafficChart {
    static let colors = ["#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000", "#999999"]

    static func render(_ c: CrossTrafficRecord, pltMs: Double?, label: String) -> String {
        let width = 1100.0, left = 230.0, right = 70.0, top = 30.0 + 14 * Double(c.flows.count), plotHeight = 160.0
        let height = top + plotHeight + 30
        let end = max(
            c.flows.map { c.originMs + Double($0.bins.count) * c.binMs }.max() ?? 0, pltMs ?? 0, c.originMs + c.binMs)
        let x = LinearScale(from: min(c.originMs, 0), to: end, range: (left, width - right), tickCount: 10)
        let mbps = c.flows.flatMap { $0.bins.map { Double($0) * 8 / (c.binMs / 1000) / 1e6 } }
        let y = LinearScale(from: 0, to: max(mbps.max() ?? 1, 0.001), range: (top + plotHeight, top), tickCount: 4)
        var s = ""
        if let plt = pltMs {
            s += HTML.rect(x(0), top, max(1, x(plt) - x(0)), plotHeight, fill: "#f6f8fa", title: "page load")
        }
        for t in x.ticks {
            s += HTML.line(x(t), top, x(t), top + plotHeight, stroke: Palette.grid)
            s += HTML.svgText(x(t), top + plotHeight + 14, Format.tick(t), anchor: "middle", cls: "tick")
        }
        s += HTML.svgText(width - 4, top + plotHeight + 14, "ms", anchor: "end", cls: "tick")
        for t in y.ticks {
            s += HTML.line(left, y(t), width - right, y(t), stroke: Palette.grid)
            s += HTML.svgText(left - 6, y(t) + 4, Format.tick(t), anchor: "end", cls: "tick")
        }
        s += HTML.svgText(left - 6, top - 4, "Mbit/s", anchor: "end", cls: "tick")
        s += HTML.line(x(0), top, x(0), top + plotHeight, stroke: Palette.ink, dash: "4 3")
        for (i, f) in c.flows.enumerated() {
            let color = colors[i % colors.count]
            var d = ""
            for (k, b) in f.bins.enumerated() {
                let t0 = c.originMs + Double(k) * c.binMs
                let v = Double(b) * 8 / (c.binMs / 1000) / 1e6
                d += (k == 0 ? "M" : "L") + "\(HTML.n(x(t0))) \(HTML.n(y(v)))H\(HTML.n(x(t0 + c.binMs)))"
            }
            if !d.isEmpty {
                s += HTML.empty("path", [("d", d), ("fill", "none"), ("stroke", color), ("stroke-width", "1.5")])
            }
            s += HTML.rect(8, 8 + 14 * Double(i), 14, 4, fill: color)
            s += HTML.svgText(28, 14 + 14 * Double(i), legend(f), cls: "note")
        }
        if let j = c.jainIndex {
            s += HTML.svgText(width - 4, 14, "Jain's fairness index \(Units.format(j, 3))", anchor: "end", cls: "note")
        }
        return HTML.svg(width: width, height: height, label: label, s)
    }

    static func legend(_ f: CrossFlowRecord) -> String {
        var text = "\(f.name): \(f.transport == .h3 ? "QUIC" : "TCP") \(f.congestionControl ?? "")"
        if let r = f.congestionControlReadBack, r != f.congestionControl { text += " (read back \(r))" }
        if let g = f.goodputMbps { text += ", goodput \(Units.format(g, 2)) Mbit/s" }
        if let sh = f.share { text += ", share \(Units.format(sh * 100, 1))%" }
        if let e = f.error { text += " ✕ \(e)" }
        return text
    }
}
