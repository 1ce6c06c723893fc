import Foundation
import BenchCore
import BenchModel

/// The emulated link of one run over time, from the emulator's start (ms), in two plots sharing
/// the time axis: each path's downlink throughput (bytes that left the bottleneck per bin, as
/// Mbit/s) against the load offered to it and, for rate-limited links, its capacity (a trace's
/// delivery opportunities, or the constant rate); below, each direction's queueing delay per bin
/// (median solid, maximum thin), serialization included.
enum LinkChart {
    static let departedColor = "#0072B2"
    static let offeredColor = "#E69F00"
    static let capacityColor = "#8c959f"
    static let upColor = "#CC79A7"

    static func render(_ links: [LinkQueueRecord], label: String) -> String {
        let down = links.filter { $0.direction == .down && $0.series != nil }
        let up = links.filter { $0.direction == .up && $0.series != nil }
        guard !down.isEmpty || !up.isEmpty else { return "" }
        let width = 1100.0, left = 70.0, right = 230.0, plotHeight = 130.0, gap = 40.0, top = 16.0
        let height = top + 2 * plotHeight + gap + 30
        let series = (down + up).compactMap(\.series)
        let end = series.map { Double($0.offeredBytes.count) * $0.binMs }.max() ?? 1
        let x = LinearScale(from: 0, to: max(end, 1), range: (left, width - right), tickCount: 10)
        var s = ""
        for t in x.ticks {
            s += HTML.line(x(t), top, x(t), top + 2 * plotHeight + gap, stroke: Palette.grid)
            s += HTML.svgText(x(t), top + 2 * plotHeight + gap + 14, Format.tick(t), anchor: "middle", cls: "tick")
        }
        s += HTML.svgText(width - right, top + 2 * plotHeight + gap + 26, "ms from the emulator's start", anchor: "end",
            cls: "tick")
        s += throughput(down, x, top: top, height: plotHeight, legendX: width - right + 12)
        s += delay(down, up, x, top: top + plotHeight + gap, height: plotHeight, legendX: width - right + 12)
        return HTML.svg(width: width, height: height, label: label, s)
    }

    static func throughput(_ links: [LinkQueueRecord], _ x: LinearScale, top: Double, height: Double,
                           legendX: Double) -> String {
        let all = links.compactMap(\.series)
        let peak = all.flatMap { s in (s.departedBytes + s.offeredBytes + (s.capacityBytes ?? [])).map(s.mbps) }.max()
        let y = LinearScale(from: 0, to: max(peak ?? 1, 0.001), range: (top + height, top), tickCount: 4)
        var s = yAxis(y, x, unit: "Mbit/s down")
        var legend: [(String, String, String?)] = []
        for (i, l) in links.enumerated() {
            guard let ser = l.series else { continue }
            let name = links.count > 1 ? " (\(l.path))" : ""
            let dash = i == 0 ? nil : "6 3"
            if let c = ser.capacityBytes {
                s += step(c.map(ser.mbps), ser.binMs, x, y, color: capacityColor, width: 1, dash: dash)
                legend.append((capacityColor, "capacity" + name, dash))
            }
            s += step(ser.offeredBytes.map(ser.mbps), ser.binMs, x, y, color: offeredColor, width: 1, dash: dash)
            s += step(ser.departedBytes.map(ser.mbps), ser.binMs, x, y, color: departedColor, width: 1.5, dash: dash)
            legend += [(offeredColor, "offered load" + name, dash), (departedColor, "throughput" + name, dash)]
            let drops = ser.drops.reduce(0, +)
            if drops > 0 {
                legend.append((Palette.worse, "\(drops) packet\(drops == 1 ? "" : "s") dropped" + name, nil))
            }
        }
        return s + legendBlock(legend, x: legendX, top: top)
    }

    static func delay(_ down: [LinkQueueRecord], _ up: [LinkQueueRecord], _ x: LinearScale, top: Double,
                      height: Double, legendX: Double) -> String {
        let all = (down + up).compactMap(\.series)
        let peak = all.flatMap(\.delayMaxMs).max() ?? 1
        let y = LinearScale(from: 0, to: max(peak, 0.001), range: (top + height, top), tickCount: 4)
        var s = yAxis(y, x, unit: "queueing ms")
        var legend: [(String, String, String?)] = []
        for (links, color, word) in [(down, departedColor, "down"), (up, upColor, "up")] {
            for (i, l) in links.enumerated() {
                guard let ser = l.series else { continue }
                let name = word + (links.count > 1 ? " (\(l.path))" : "")
                let dash = i == 0 ? nil : "6 3"
                s += step(ser.delayMaxMs, ser.binMs, x, y, color: color, width: 0.8, dash: dash, opacity: 0.5)
                s += step(ser.delayP50Ms, ser.binMs, x, y, color: color, width: 1.5, dash: dash)
                let figures = "p50 \(Format.value(l.sojournP50Ms)), p99 \(Format.value(l.sojournP99Ms)) ms"
                legend.append((color, "\(name): " + figures, dash))
            }
        }
        legend.append((Palette.ink, "per bin: median (thick), max (thin)", nil))
        return s + legendBlock(legend, x: legendX, top: top)
    }

    static func yAxis(_ y: LinearScale, _ x: LinearScale, unit: String) -> String {
        var s = ""
        for t in y.ticks {
            s += HTML.line(x.range.0, y(t), x.range.1, y(t), stroke: Palette.grid)
            s += HTML.svgText(x.range.0 - 6, y(t) + 4, Format.tick(t), anchor: "end", cls: "tick")
        }
        return s + HTML.svgText(4, y.range.1 - 4, unit, cls: "tick")
    }

    /// A step line: value i held over [i·bin, (i+1)·bin).
    static func step(
        _ values: [Double], _ binMs: Double, _ x: LinearScale, _ y: LinearScale, color: String, width: Double,
        dash: String?, opacity: Double? = nil
    ) -> String {
        guard !values.isEmpty else { return "" }
        var d = ""
        for (k, v) in values.enumerated() {
            let start = HTML.n(x(Double(k) * binMs)), end = HTML.n(x(Double(k + 1) * binMs))
            d += (k == 0 ? "M" : "L") + "\(start) \(HTML.n(y(v)))H\(end)"
        }
        var attributes = [("d", d), ("fill", "none"), ("stroke", color), ("stroke-width", HTML.n(width))]
        if let dash { attributes.append(("stroke-dasharray", dash)) }
        if let opacity { attributes.append(("stroke-opacity", HTML.n(opacity))) }
        return HTML.empty("path", attributes)
    }

    static func legendBlock(_ items: [(color: String, text: String, dash: String?)], x: Double, top: Double) -> String {
        var s = ""
        for (i, item) in items.enumerated() {
            let y = top + 6 + 14 * Double(i)
            s += HTML.line(x, y, x + 14, y, stroke: item.color, width: 2, dash: item.dash)
            s += HTML.svgText(x + 18, y + 4, item.text, cls: "note")
        }
        return s
    }
}
