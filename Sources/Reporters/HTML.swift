import BenchCore
import Foundation
import BenchModel

/// Hand-written HTML/SVG output: escaping and the few primitives every chart uses.
enum HTML {
    /// Escapes text for element content and attribute values alike: `& < > " '`.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for ch in text.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// An element with escaped attribute values; `content` is inserted as is (already HTML).
    static func element(_ tag: String, _ attributes: [(String, String)] = [], _ content: String) -> String {
        "<\(tag)\(attributeText(attributes))>\(content)</\(tag)>"
    }

    /// A self-closed SVG element (`<line … />`).
    static func empty(_ tag: String, _ attributes: [(String, String)]) -> String {
        "<\(tag)\(attributeText(attributes))/>"
    }

    static func attributeText(_ attributes: [(String, String)]) -> String {
        attributes.map { " \($0.0)=\"\(escape($0.1))\"" }.joined()
    }

    /// Coordinates with one decimal, `.0` trimmed: compact and stable.
    static func n(_ v: Double) -> String {
        let s = String(format: "%.1f", v.isFinite ? v : 0)
        if s.hasSuffix(".0") { return s == "-0.0" ? "0" : String(s.dropLast(2)) }
        return s
    }

    /// A fragment-safe id: lowercase letters, digits and dashes.
    static func slug(_ text: String) -> String {
        var out = ""
        for ch in text.lowercased().unicodeScalars {
            if ("a"..."z").contains(ch) || ("0"..."9").contains(ch) {
                out.unicodeScalars.append(ch)
            } else if !out.hasSuffix("-") {
                out += "-"
            }
        }
        return out
    }

    static func svgText(
        _ x: Double, _ y: Double, _ text: String, anchor: String = "start", cls: String? = nil, fill: String? = nil
    ) -> String {
        var attrs = [("x", n(x)), ("y", n(y))]
        if anchor != "start" { attrs.append(("text-anchor", anchor)) }
        if let cls { attrs.append(("class", cls)) }
        if let fill { attrs.append(("fill", fill)) }
        return element("text", attrs, escape(text))
    }

    static func line(
        _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, width: Double = 1, dash: String? = nil,
        cls: String? = nil
    ) -> String {
        var attrs = [
            ("x1", n(x1)), ("y1", n(y1)), ("x2", n(x2)), ("y2", n(y2)), ("stroke", stroke), ("stroke-width", n(width)),
        ]
        if let dash { attrs.append(("stroke-dasharray", dash)) }
        if let cls { attrs.append(("class", cls)) }
        return empty("line", attrs)
    }

    static func rect(
        _ x: Double, _ y: Double, _ w: Double, _ h: Double, fill: String, title: String? = nil, opacity: Double? = nil
    ) -> String {
        var attrs = [("x", n(x)), ("y", n(y)), ("width", n(max(w, 0))), ("height", n(h)), ("fill", fill)]
        if let opacity { attrs.append(("fill-opacity", String(format: "%.2f", opacity))) }
        guard let title else { return empty("rect", attrs) }
        return element("rect", attrs, element("title", [], escape(title)))
    }

    /// An `<svg>` that scales to its container, with a text alternative for screen readers.
    static func svg(width: Double, height: Double, label: String, _ content: String) -> String {
        element(
            "svg",
            [
                ("viewBox", "0 0 \(n(width)) \(n(height))"), ("width", n(width)), ("role", "img"),
                ("aria-label", label), ("class", "chart"),
            ], content)
    }
}

/// A linear scale with "nice" ticks (steps of 1, 2 or 5 × 10ᵏ).
struct LinearScale {
    var domain: (Double, Double)
    var range: (Double, Double)
    var ticks: [Double]

    init(from lo: Double, to hi: Double, range: (Double, Double), tickCount: Int = 5, includeZero: Bool = false) {
        var lo = includeZero ? min(lo, 0) : lo, hi = includeZero ? max(hi, 0) : hi
        if !(hi > lo) { hi = lo + max(abs(lo) * 0.1, 1) }
        let step = LinearScale.niceStep((hi - lo) / Double(max(tickCount, 1)))
        lo = (lo / step).rounded(.down) * step
        hi = (hi / step).rounded(.up) * step
        var t: [Double] = []
        var v = lo
        while v <= hi + step * 1e-9 { t.append(abs(v) < step * 1e-9 ? 0 : v); v += step }
        domain = (lo, hi)
        self.range = range
        ticks = t
    }

    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        let r = raw / magnitude
        return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * magnitude
    }

    func callAsFunction(_ v: Double) -> Double {
        let (d0, d1) = domain, (r0, r1) = range
        return r0 + (v - d0) / (d1 - d0) * (r1 - r0)
    }
}

/// Colours: one per transport (Okabe–Ito, readable by colour-blind readers) and per verdict.
enum Palette {
    static func transport(_ t: TransportKind) -> String {
        switch t {
        case .h1: return "#E69F00"
        case .h2: return "#0072B2"
        case .h3: return "#009E73"
        }
    }
    /// A load's transport: HTTP's colours, and quic-perf in reddish purple (Okabe-Ito).
    static func transport(_ t: LoadTransport) -> String { t.http.map { transport($0) } ?? "#CC79A7" }
    static let better = "#1a7f37"
    static let worse = "#cf222e"
    static let neutral = "#6e7781"
    static let ideal = "#8c959f"
    static let ink = "#24292f"
    static let grid = "#e5e8eb"
    static let event = "#cf222e"
}
