import BenchCore

/// A duration in JSON: a number (milliseconds) or a string with a unit (`"40ms"`, `"1.5s"`).
public struct DurationValue: Codable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: Nanoseconds
    public init(nanoseconds: Nanoseconds) { self.nanoseconds = nanoseconds }
    public static func ms(_ v: Double) -> DurationValue { DurationValue(nanoseconds: .milliseconds(v)) }
    public var milliseconds: Double { nanoseconds.inMilliseconds }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let d = try? c.decode(Double.self) {
            guard d >= 0, d.isFinite else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "duration \(d) must be ≥ 0")
            }
            guard d <= DurationValue.largest.milliseconds else {
                throw DecodingError.dataCorruptedError(
                    in: c, debugDescription: "duration \(d) ms is longer than \(DurationValue.largestText)")
            }
            nanoseconds = .milliseconds(d); return
        }
        let s = try c.decode(String.self)
        guard let ns = Units.parseDuration(s) else {
            throw DecodingError.dataCorruptedError(
                in: c, debugDescription: "'\(s)' is not a duration (e.g. 40, \"40ms\", \"1.5s\")")
        }
        guard ns <= DurationValue.largest.nanoseconds else {
            throw DecodingError.dataCorruptedError(
                in: c, debugDescription: "'\(s)' is longer than \(DurationValue.largestText)")
        }
        nanoseconds = ns
    }

    /// The longest duration a file may give (an RTT, an event offset, a suite's budget): a week.
    /// Longer is a typo, and sums of such values must stay far from `Int64` nanoseconds' end.
    public static let largest = DurationValue(nanoseconds: 7 * 86_400 * 1_000_000_000)
    static let largestText = "7 days (604800000 ms)"

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(Units.format(milliseconds, 3) + "ms")
    }

    public var description: String { Units.format(milliseconds, 3) + " ms" }
}

/// A rate in JSON: a number (bit/s) or a string with a unit (`"1.6Mbit"`, `"384kbit"`).
public struct BitrateValue: Codable, Hashable, Sendable, CustomStringConvertible {
    public var bitsPerSecond: Double
    public init(bitsPerSecond: Double) { self.bitsPerSecond = bitsPerSecond }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let d = try? c.decode(Double.self) {
            guard d > 0, d.isFinite else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "rate \(d) must be > 0")
            }
            guard d <= BitrateValue.largest else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "rate \(d) bit/s is above 1 Tbit/s")
            }
            bitsPerSecond = d; return
        }
        let s = try c.decode(String.self)
        guard let r = Units.parseBitrate(s), r > 0 else {
            throw DecodingError.dataCorruptedError(
                in: c, debugDescription: "'\(s)' is not a rate (e.g. \"1.6Mbit\", \"384kbit\")")
        }
        guard r <= BitrateValue.largest else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "'\(s)' is above 1 Tbit/s")
        }
        bitsPerSecond = r
    }

    /// The fastest rate a file may give: 1 Tbit/s, beyond any link netbench emulates (per-byte
    /// times stay representable in nanoseconds).
    public static let largest = 1e12

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(
            Units.formatBitrate(bitsPerSecond).replacingOccurrences(of: " ", with: "").replacingOccurrences(
                of: "/s", with: ""))
    }

    public var description: String { Units.formatBitrate(bitsPerSecond) }
}

/// A probability in JSON: a fraction (`0.02`) or a percentage string (`"2%"`).
public struct Fraction: Codable, Hashable, Sendable, CustomStringConvertible {
    public var value: Double
    public init(_ value: Double) { self.value = value }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        var v: Double
        if let d = try? c.decode(Double.self) {
            v = d
        } else {
            let s = try c.decode(String.self)
            guard s.hasSuffix("%"), let p = Double(s.dropLast().trimmingCharacters(in: .whitespaces)) else {
                throw DecodingError.dataCorruptedError(
                    in: c, debugDescription: "'\(s)' is not a probability (e.g. 0.02 or \"2%\")")
            }
            v = p / 100
        }
        guard v >= 0, v <= 1 else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "probability \(v) is outside [0, 1]")
        }
        value = v
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(value)
    }

    public var description: String { Units.format(value * 100, 3) + "%" }
}

import Foundation
