import Foundation
import BenchCore

/// The report of `netbench load` results (`netbench report LOAD_DIR` writes `load-report.html`):
/// a latency-vs-rate chart (each rate step's p50, p90, p99 and p99.9 against the rate it achieved,
/// per transport, with the emulated link's ideal and capacity when there is one) and percentile
/// curves (latency at each percentile, HdrHistogram's percentile plot, on a log-scaled "nines" axis),
/// then a table of the figures. Pure: the command turns load.json into this input.
public enum LoadReport {
    /// One rate step of one load.
    public struct Point: Sendable, Equatable {
        public var askedRate: Double?
        public var achievedRate: Double
        public var p50: Double, p90: Double, p99: Double, p999: Double, max: Double
        public var count: Int64
        public init(
            askedRate: Double?, achievedRate: Double, p50: Double, p90: Double, p99: Double, p999: Double,
            max: Double, count: Int64
        ) {
            self.askedRate = askedRate; self.achievedRate = achievedRate; self.p50 = p50; self.p90 = p90
            self.p99 = p99; self.p999 = p999; self.max = max; self.count = count
        }
    }

    /// One load (one transport): its steps and its whole histogram's percentile curve.
    public struct Series: Sendable, Equatable {
        public var transport: LoadTransport
        public var label: String
        public var points: [Point]
        /// (percentile, latency ms), ascending percentiles up to 100 (the max).
        public var curve: [(percentile: Double, ms: Double)]
        public init(transport: LoadTransport, label: String, points: [Point], curve: [(percentile: Double, ms: Double)])
        {
            self.transport = transport; self.label = label; self.points = points; self.curve = curve
        }
        public static func == (a: Series, b: Series) -> Bool {
            a.transport == b.transport && a.label == b.label && a.points == b.points
                && a.curve.map(\.percentile) == b.curve.map(\.percentile) && a.curve.map(\.ms) == b.curve.map(\.ms)
        }
    }

    public struct Input: Sendable, Equatable {
        public var title: String
        public var server: String
        public var series: [Series]
        /// The emulated link's ideal latency (ms) and capacity (req/s), when the load crossed one.
        public var idealMs: Double?
        public var capacityRate: Double?
        public init(
            title: String, server: String, series: [Series], idealMs: Double? = nil, capacityRate: Double? = nil
        ) {
            self.title = title; self.server = server; self.series = series; self.idealMs = idealMs
            self.capacityRate = capacityRate
        }
    }

    /// The percentiles the curves are drawn at: 0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 100.
    public static let curvePercentiles: [Double] = [0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 100]

    public static func html(_ input: Input) -> String {
        var body = HTML.element("h1", [], HTML.escape(input.title))
        body += HTML.element("p", [("class", "note")], HTML.escape("server: \(input.server)"))
        var rateCard = HTML.element("h2", [], "Latency against achieved rate")
        rateCard += latencyVsRate(input)
        body += HTML.element("section", [("class", "card")], rateCard)
        var curveCard = HTML.element("h2", [], "Latency by percentile")
        curveCard += percentileCurves(input)
        body += HTML.element("section", [("class", "card")], curveCard)
        body += HTML.element("section", [("class", "card")], HTML.element("h2", [], "Figures") + table(input))
        return HTMLStyle.page(title: input.title, body: body)
    }

    static var percentileStyles: [(name: String, dash: String?, keyPath: KeyPath<Point, Double>)] {
        [
            ("p50", nil, \.p50), ("p90", "6 3", \.p90), ("p99", "2 2", \.p99), ("p99.9", "8 2 2 2", \.p999),
        ]
    }

    /// Each transport's steps: achieved rate (x) against latency (y), one line per percentile.
    static func latencyVsRate(_ input: Input) -> String {
        let width = 560.0, left = 56.0, right = 16.0, top = 40.0, plotHeight = 220.0
        let height = top + plotHeight + 44
        let points = input.series.flatMap(\.points)
        guard !points.isEmpty else { return HTML.element("p", [], "no steps") }
        let xs = points.map(\.achievedRate) + [input.capacityRate].compactMap { $0 }
        let ys = points.flatMap { [$0.p50, $0.p999] } + [input.idealMs].compactMap { $0 }
        let x = LinearScale(
            from: 0, to: xs.max() ?? 1, range: (left, width - right), tickCount: 5, includeZero: true)
        let y = LinearScale(from: 0, to: ys.max() ?? 1, range: (top + plotHeight, top), tickCount: 4, includeZero: true)
        var s = BarChart.axis(x, top: top, bottom: top + plotHeight, unit: "")
        for t in y.ticks {
            s += HTML.line(left, y(t), width - right, y(t), stroke: Palette.grid)
            s += HTML.svgText(left - 6, y(t) + 4, Format.tick(t), anchor: "end", cls: "tick")
        }
        s += HTML.svgText(left - 6, top - 8, "ms", anchor: "end", cls: "tick")
        s += HTML.svgText(width - right, top + plotHeight + 30, "achieved req/s", anchor: "end", cls: "tick")
        if let ideal = input.idealMs {
            s += HTML.line(left, y(ideal), width - right, y(ideal), stroke: Palette.ideal, width: 1, dash: "4 3")
            s += HTML.svgText(
                width - right - 4, y(ideal) - 4, "ideal \(Format.tick(ideal)) ms", anchor: "end",
                cls: "note")
        }
        if let capacity = input.capacityRate {
            s += HTML.line(
                x(capacity), top, x(capacity), top + plotHeight, stroke: Palette.worse, width: 1, dash: "4 3")
            s += HTML.svgText(x(capacity) - 4, top + 12, "capacity", anchor: "end", cls: "note", fill: Palette.worse)
        }
        for series in input.series {
            let color = Palette.transport(series.transport)
            let sorted = series.points.sorted { $0.achievedRate < $1.achievedRate }
            for style in percentileStyles {
                let coords = sorted.map { (x($0.achievedRate), y($0[keyPath: style.keyPath])) }
                if coords.count > 1 {
                    let d = "M" + coords.map { "\(HTML.n($0.0)) \(HTML.n($0.1))" }.joined(separator: "L")
                    var attrs = [("d", d), ("fill", "none"), ("stroke", color), ("stroke-width", "1.5")]
                    if let dash = style.dash { attrs.append(("stroke-dasharray", dash)) }
                    s += HTML.empty("path", attrs)
                }
                for (p, c) in zip(sorted, coords) {
                    let title =
                        "\(series.label) at \(Format.tick(p.achievedRate)) req/s: \(style.name) "
                        + "\(Format.tick(p[keyPath: style.keyPath])) ms"
                    s += HTML.element(
                        "circle", [("cx", HTML.n(c.0)), ("cy", HTML.n(c.1)), ("r", "2.5"), ("fill", color)],
                        HTML.element("title", [], HTML.escape(title)))
                }
            }
        }
        s += legend(input, left: left, top: 8)
        return HTML.svg(width: width, height: height, label: "latency percentiles against achieved rate", s)
    }

    /// Transports by color, percentiles by dash.
    static func legend(_ input: Input, left: Double, top: Double) -> String {
        var s = "", lx = left
        for series in input.series {
            s += HTML.rect(lx, top, 14, 4, fill: Palette.transport(series.transport))
            s += HTML.svgText(lx + 18, top + 5, series.label, cls: "note")
            lx += 30 + Double(series.label.count) * 6
        }
        for style in percentileStyles {
            s += HTML.line(lx, top + 2, lx + 18, top + 2, stroke: Palette.ink, width: 1.5, dash: style.dash)
            s += HTML.svgText(lx + 22, top + 5, style.name, cls: "note")
            lx += 34 + Double(style.name.count) * 6
        }
        return s
    }

    /// The x position of a percentile on the "nines" axis: -log10(1 - p/100), 100 drawn one step past 99.999.
    static func nines(_ p: Double) -> Double { p >= 100 ? 5.5 : -log10(1 - p / 100) }

    /// Latency at each percentile of each transport's whole load, on a log axis of nines.
    static func percentileCurves(_ input: Input) -> String {
        let width = 560.0, left = 56.0, right = 16.0, top = 26.0, plotHeight = 200.0
        let height = top + plotHeight + 44
        let values = input.series.flatMap { $0.curve.map(\.ms) } + [input.idealMs].compactMap { $0 }
        guard let hi = values.max() else { return HTML.element("p", [], "no latencies") }
        let x = LinearScale(from: 0, to: 5.5, range: (left, width - right), tickCount: 5)
        let y = LinearScale(from: 0, to: hi, range: (top + plotHeight, top), tickCount: 4, includeZero: true)
        var s = ""
        for (label, p) in [
            ("0%", 0.0), ("90%", 90), ("99%", 99), ("99.9%", 99.9), ("99.99%", 99.99),
            ("99.999%", 99.999), ("max", 100),
        ] {
            s += HTML.line(x(nines(p)), top, x(nines(p)), top + plotHeight, stroke: Palette.grid)
            s += HTML.svgText(x(nines(p)), top + plotHeight + 14, label, anchor: "middle", cls: "tick")
        }
        for t in y.ticks {
            s += HTML.line(left, y(t), width - right, y(t), stroke: Palette.grid)
            s += HTML.svgText(left - 6, y(t) + 4, Format.tick(t), anchor: "end", cls: "tick")
        }
        s += HTML.svgText(left - 6, top - 8, "ms", anchor: "end", cls: "tick")
        if let ideal = input.idealMs {
            s += HTML.line(left, y(ideal), width - right, y(ideal), stroke: Palette.ideal, width: 1, dash: "4 3")
            s += HTML.svgText(left + 4, y(ideal) - 4, "ideal \(Format.tick(ideal)) ms", cls: "note")
        }
        var lx = left
        for series in input.series where !series.curve.isEmpty {
            let color = Palette.transport(series.transport)
            let d =
                "M"
                + series.curve.map { "\(HTML.n(x(nines($0.percentile)))) \(HTML.n(y($0.ms)))" }
                .joined(separator: "L")
            s += HTML.empty("path", [("d", d), ("fill", "none"), ("stroke", color), ("stroke-width", "2")])
            s += HTML.rect(lx, 8, 14, 4, fill: color)
            s += HTML.svgText(lx + 18, 13, series.label, cls: "note")
            lx += 30 + Double(series.label.count) * 6
        }
        return HTML.svg(width: width, height: height, label: "latency at each percentile", s)
    }

    static func table(_ input: Input) -> String {
        func ms(_ v: Double) -> String { Units.format(v, v < 10 ? 3 : 1) }
        var rows = HTML.element(
            "tr", [],
            ["load", "asked req/s", "achieved req/s", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms", "n"]
                .map { HTML.element("th", [], $0) }.joined())
        for series in input.series {
            for p in series.points {
                let cells = [
                    series.label, p.askedRate.map { Units.format($0, 1) } ?? "closed", Units.format(p.achievedRate, 1),
                    ms(p.p50), ms(p.p90), ms(p.p99), ms(p.p999), ms(p.max), "\(p.count)",
                ]
                rows += HTML.element("tr", [], cells.map { HTML.element("td", [], HTML.escape($0)) }.joined())
            }
        }
        return HTML.element("table", [], rows)
    }
}
