/// Parsing and printing of the units the command line and the JSON files accept.
///
/// Sizes: `B`, `KB`, `MB`, `GB` (powers of 1000) and `KiB`, `MiB`, `GiB` (powers of 1024).
/// Durations: `ns`, `us`, `ms`, `s`. Rates: `bit`, `kbit`, `Mbit`, `Gbit` per second.
/// A bare number is bytes, milliseconds or bit/s respectively.
public enum Units {
    /// Parses a size such as `2.3MB`, `64 KiB` or `1500` into bytes.
    public static func parseBytes(_ text: String) -> Int64? {
        guard let (value, unit) = split(text) else { return nil }
        let factor: Double
        switch unit {
        case "", "b": factor = 1
        case "kb": factor = 1e3
        case "mb": factor = 1e6
        case "gb": factor = 1e9
        case "kib": factor = 1024
        case "mib": factor = 1024 * 1024
        case "gib": factor = 1024 * 1024 * 1024
        default: return nil
        }
        let bytes = (value * factor).rounded()
        guard bytes >= 0, bytes < 9e18 else { return nil }
        return Int64(bytes)
    }

    /// Parses a duration such as `40ms`, `1.5s` or `250us` into nanoseconds.
    public static func parseDuration(_ text: String) -> Nanoseconds? {
        guard let (value, unit) = split(text) else { return nil }
        let factor: Double
        switch unit {
        case "ns": factor = 1
        case "us", "µs": factor = 1e3
        case "", "ms": factor = 1e6
        case "s": factor = 1e9
        default: return nil
        }
        let ns = (value * factor).rounded()
        guard ns >= 0, ns < 9e18 else { return nil }
        return Nanoseconds(ns)
    }

    /// Parses a rate such as `10Mbit`, `384kbit` or `1.5 Mbit/s` into bits per second.
    public static func parseBitrate(_ text: String) -> Double? {
        var t = text
        if t.hasSuffix("/s") { t.removeLast(2) }
        if t.lowercased().hasSuffix("ps") { t.removeLast(2); t += "it" }  // 10Mbps
        guard let (value, unit) = split(t) else { return nil }
        let factor: Double
        switch unit {
        case "", "bit": factor = 1
        case "kbit": factor = 1e3
        case "mbit": factor = 1e6
        case "gbit": factor = 1e9
        default: return nil
        }
        guard value >= 0 else { return nil }
        return value * factor
    }

    /// `1.5 MB`, `340 KB`, `812 B` (powers of 1000, as the results use).
    public static func formatBytes(_ bytes: Int64) -> String {
        let b = Double(bytes)
        if b >= 1e9 { return format(b / 1e9, 2) + " GB" }
        if b >= 1e6 { return format(b / 1e6, 2) + " MB" }
        if b >= 1e3 { return format(b / 1e3, 1) + " KB" }
        return "\(bytes) B"
    }

    /// `12 Mbit/s`, `384 kbit/s`.
    public static func formatBitrate(_ bps: Double) -> String {
        if bps >= 1e9 { return format(bps / 1e9, 3) + " Gbit/s" }
        if bps >= 1e6 { return format(bps / 1e6, 3) + " Mbit/s" }
        if bps >= 1e3 { return format(bps / 1e3, 3) + " kbit/s" }
        return format(bps, 0) + " bit/s"
    }

    /// Fixed-point formatting without Foundation, trailing zeros trimmed.
    public static func format(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        // Beyond 2^53 (or when scaling would leave Int64) there are no fraction digits to show.
        guard abs(value) < 9e15 / max(1, pow10(decimals)) else { return "\(value.rounded())" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int64(scaled / scale)
        var frac = Int64(scaled - Double(whole) * scale)
        var text = (value < 0 && scaled != 0 ? "-" : "") + String(whole)
        if decimals > 0 && frac > 0 {
            var digits = String(frac)
            while digits.count < decimals { digits = "0" + digits }
            while digits.hasSuffix("0") { digits.removeLast(); frac /= 10 }
            text += "." + digits
        }
        return text
    }

    private static func pow10(_ n: Int) -> Double {
        var p = 1.0
        for _ in 0..<max(0, n) { p *= 10 }
        return p
    }

    private static func split(_ text: String) -> (Double, String)? {
        let t = text.trimmingCharacters(in: " ")
        var end = t.startIndex
        while end < t.endIndex, "0123456789.eE+-".contains(t[end]) {
            // an 'e' followed by a letter starts a unit, not an exponent
            if t[end] == "e" || t[end] == "E" {
                let next = t.index(after: end)
                if next == t.endIndex || !"0123456789+-".contains(t[next]) { break }
            }
            end = t.index(after: end)
        }
        guard let value = Double(t[t.startIndex..<end]), value.isFinite else { return nil }
        let unit = String(t[end...]).trimmingCharacters(in: " ").lowercased()
        return (value, unit)
    }
}

extension String {
    /// Drops every leading and trailing `set` character (no Foundation needed).
    public func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s.removeFirst() }
        while s.last == set { s.removeLast() }
        return String(s)
    }
}
