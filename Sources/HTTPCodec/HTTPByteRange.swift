/// A single byte range of a `Range: bytes=...` request field (RFC 9110 §14.1.2).
///
/// Only one range is supported: a multi-range request parses as nil, and RFC 9110 lets a
/// server answer such a request with the whole representation (200).
public enum HTTPByteRange: Hashable, Sendable, CustomStringConvertible {
    /// `bytes=N-`: from offset N to the end (what a resumed download sends).
    case from(Int64)
    /// `bytes=N-M`, both offsets inclusive.
    case closed(first: Int64, last: Int64)
    /// `bytes=-N`: the last N bytes.
    case suffix(length: Int64)

    /// Parses a `Range` field value; nil for another unit, several ranges or bad syntax.
    public init?(headerValue: String) {
        let value = headerValue.trimmingHTTPWhitespace()
        guard value.count > 6, value.prefix(6).lowercased() == "bytes=" else { return nil }
        let spec = value.dropFirst(6).trimmingHTTPWhitespace()
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let firstText = spec[..<dash], lastText = spec[spec.index(after: dash)...]
        switch (parseDecimal(firstText), parseDecimal(lastText)) {
        case let (first?, nil) where lastText.isEmpty:
            self = .from(first)
        case let (first?, last?) where first <= last:
            self = .closed(first: first, last: last)
        case let (nil, length?) where firstText.isEmpty && length > 0:
            self = .suffix(length: length)
        default:
            return nil
        }
    }

    public var headerValue: String {
        switch self {
        case .from(let first): "bytes=\(first)-"
        case .closed(let first, let last): "bytes=\(first)-\(last)"
        case .suffix(let length): "bytes=-\(length)"
        }
    }

    public var description: String { headerValue }

    /// The inclusive offsets this range selects from a representation of `totalLength` bytes,
    /// or nil when it is unsatisfiable (the server answers 416 with `bytes */total`).
    public func resolved(totalLength: Int64) -> ClosedRange<Int64>? {
        guard totalLength > 0 else { return nil }
        switch self {
        case .from(let first):
            return first < totalLength ? first...(totalLength - 1) : nil
        case .closed(let first, let last):
            return first < totalLength ? first...min(last, totalLength - 1) : nil
        case .suffix(let length):
            return max(0, totalLength - length)...(totalLength - 1)
        }
    }
}

/// The value of a `Content-Range` response field (RFC 9110 §14.4): `bytes first-last/complete`,
/// with `*` for an unknown complete length.
public struct HTTPContentRange: Hashable, Sendable, CustomStringConvertible {
    public var first: Int64
    public var last: Int64
    public var completeLength: Int64?

    public init(first: Int64, last: Int64, completeLength: Int64?) {
        self.first = first
        self.last = last
        self.completeLength = completeLength
    }

    public init(_ range: ClosedRange<Int64>, completeLength: Int64?) {
        self.init(first: range.lowerBound, last: range.upperBound, completeLength: completeLength)
    }

    /// Parses `bytes first-last/complete` or `bytes first-last/*`; nil otherwise (including
    /// the unsatisfied form `bytes */complete`, which carries no range).
    public init?(headerValue: String) {
        let value = headerValue.trimmingHTTPWhitespace()
        guard value.count > 6, value.prefix(6).lowercased() == "bytes " else { return nil }
        let spec = value.dropFirst(6)
        guard let slash = spec.firstIndex(of: "/"), let dash = spec[..<slash].firstIndex(of: "-"),
            let first = parseDecimal(spec[..<dash]),
            let last = parseDecimal(spec[spec.index(after: dash)..<slash]), first <= last
        else { return nil }
        let completeText = spec[spec.index(after: slash)...]
        if completeText == "*" {
            completeLength = nil
        } else {
            guard let complete = parseDecimal(completeText), last < complete else { return nil }
            completeLength = complete
        }
        self.first = first
        self.last = last
    }

    /// Number of bytes the partial response carries.
    public var length: Int64 { last - first + 1 }

    public var headerValue: String {
        "bytes \(first)-\(last)/" + (completeLength.map(String.init) ?? "*")
    }

    /// `bytes */total`: the `Content-Range` of a 416 response.
    public static func unsatisfiedHeaderValue(completeLength: Int64) -> String {
        "bytes */\(completeLength)"
    }

    public var description: String { headerValue }
}

/// A non-negative decimal of at most 18 digits (so it always fits Int64); nil otherwise.
func parseDecimal<S: StringProtocol>(_ text: S) -> Int64? {
    let utf8 = text.utf8
    guard !utf8.isEmpty, utf8.count <= 18 else { return nil }
    var value: Int64 = 0
    for byte in utf8 {
        guard byte >= 0x30, byte <= 0x39 else { return nil }
        value = value * 10 + Int64(byte - 0x30)
    }
    return value
}
