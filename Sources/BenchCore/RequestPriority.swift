/// A request's priority as Chromium's network stack names it (`net::RequestPriority`), from the
/// most to the least urgent. Blink computes it per resource (a render-blocking stylesheet
/// "VeryHigh" → `highest`, a parser-blocking script "High" → `medium`, an async script or an image
/// "Low" → `lowest`, a print stylesheet "VeryLow" → `idle`); the network stack turns it into what
/// goes on the wire: an HTTP/2 dependency chain with a weight, an HTTP/3 urgency.
public enum RequestPriority: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case idle = 0, lowest, low, medium, highest

    public static func < (a: RequestPriority, b: RequestPriority) -> Bool { a.rawValue < b.rawValue }

    /// SPDY/3 priority (0 most urgent): Chromium's `ConvertRequestPriorityToSpdyPriority`,
    /// `MAXIMUM_PRIORITY - priority`.
    public var spdyLevel: Int { RequestPriority.highest.rawValue - rawValue }

    /// The HTTP/2 weight Chromium sends (`Spdy3PriorityToHttp2Weight`: 255.9 / 7 × (7 − level),
    /// truncated, + 1): 256, 220, 183, 147, 110 from `highest` down.
    public var http2Weight: Int { Int(255.9 / 7 * Double(7 - spdyLevel)) + 1 }

    /// The RFC 9218 urgency Chromium gives an HTTP/3 request: its SPDY level (0 most urgent).
    public var urgency: Int { spdyLevel }

    /// The priority of a name Chromium's DevTools give (`Network.ResourcePriority`: VeryHigh, High,
    /// Medium, Low, VeryLow for net's HIGHEST, MEDIUM, LOW, LOWEST, IDLE); nil for another name.
    public init?(devTools name: String) {
        switch name {
        case "VeryHigh": self = .highest
        case "High": self = .medium
        case "Medium": self = .low
        case "Low": self = .lowest
        case "VeryLow": self = .idle
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .idle: return "idle"
        case .lowest: return "lowest"
        case .low: return "low"
        case .medium: return "medium"
        case .highest: return "highest"
        }
    }
}
