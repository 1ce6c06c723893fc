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

    /// The name Chromium's DevTools give this level (`Network.ResourcePriority`, and what Chrome
    /// writes in a HAR's `_priority`): VeryHigh, High, Medium, Low, VeryLow for net's HIGHEST, MEDIUM,
    /// LOW, LOWEST, IDLE.
    public var devToolsName: String {
        switch self {
        case .highest: return "VeryHigh"
        case .medium: return "High"
        case .low: return "Medium"
        case .lowest: return "Low"
        case .idle: return "VeryLow"
        }
    }

    /// The priority of a DevTools name (`devToolsName`); nil for another name.
    public init?(devTools name: String) {
        guard let p = Self.allCases.first(where: { $0.devToolsName == name }) else { return nil }
        self = p
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
