/// Header fields in the order they were received or are to be sent.
///
/// Names keep the case they were given (HTTP/1.1 peers see what the scenario recorded); every
/// lookup compares names ASCII-case-insensitively, as RFC 9110 §5.1 requires. A name may repeat.
public struct HTTPHeaders: Sendable, RandomAccessCollection, ExpressibleByDictionaryLiteral,
    CustomStringConvertible
{
    public typealias Element = (name: String, value: String)

    /// Unlabeled pairs: `pairs` hands them out as they are, with no copy per request.
    private var fields: [(String, String)]

    public init() { fields = [] }

    public init(_ pairs: [(String, String)]) {
        fields = pairs
    }

    /// Keeps the literal's order: `["host": "a", "range": "bytes=0-"]`.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    public var startIndex: Int { fields.startIndex }
    public var endIndex: Int { fields.endIndex }
    public subscript(position: Int) -> Element {
        let field = fields[position]
        return (name: field.0, value: field.1)
    }

    /// The fields as name-value pairs (shares the storage: no copy).
    public var pairs: [(String, String)] { fields }

    /// Room for `count` fields without growing (a decoder filling a head one field at a time).
    public mutating func reserveCapacity(_ count: Int) { fields.reserveCapacity(count) }

    /// The first value of the field `name`, or nil.
    public subscript(name: String) -> String? {
        fields.first { Self.namesEqual($0.0, name) }?.1
    }

    /// Every value of the field `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.namesEqual($0.0, name) }.map(\.1)
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { Self.namesEqual($0.0, name) }
    }

    /// The comma-separated list elements of every `name` field, trimmed and lowercased
    /// (for `Connection` and `Transfer-Encoding`, whose tokens are case-insensitive).
    public func tokens(for name: String) -> [String] {
        values(for: name).flatMap { value in
            value.split(separator: ",").map {
                $0.trimmingHTTPWhitespace().lowercased()
            }.filter { !$0.isEmpty }
        }
    }

    public mutating func add(name: String, value: String) {
        fields.append((name, value))
    }

    /// Removes every `name` field.
    public mutating func remove(name: String) {
        fields.removeAll { Self.namesEqual($0.0, name) }
    }

    /// Replaces every `name` field with one field holding `value`, at the first one's place.
    public mutating func replaceOrAdd(name: String, value: String) {
        if let first = fields.firstIndex(where: { Self.namesEqual($0.0, name) }) {
            fields[first].1 = value
            var index = fields.index(after: first)
            while index < fields.endIndex {
                if Self.namesEqual(fields[index].0, name) { fields.remove(at: index) } else { index += 1 }
            }
        } else {
            add(name: name, value: value)
        }
    }

    public var description: String {
        "[" + fields.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + "]"
    }

    /// ASCII case-insensitive equality of field names; no Unicode folding (names are tokens).
    static func namesEqual(_ a: String, _ b: String) -> Bool {
        var ai = a.utf8.makeIterator()
        var bi = b.utf8.makeIterator()
        while true {
            switch (ai.next(), bi.next()) {
            case (nil, nil): return true
            case let (x?, y?):
                if x != y && asciiLower(x) != asciiLower(y) { return false }
            default: return false
            }
        }
    }
}

extension HTTPHeaders: Equatable {
    /// Same fields in the same order, names compared case-insensitively, values exactly.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.count == rhs.count
            && zip(lhs.fields, rhs.fields).allSatisfy { namesEqual($0.0, $1.0) && $0.1 == $1.1 }
    }
}

@inline(__always)
func asciiLower(_ byte: UInt8) -> UInt8 {
    byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
}

extension StringProtocol {
    /// Strips SP and HTAB (HTTP's OWS) from both ends.
    func trimmingHTTPWhitespace() -> String {
        let isOWS: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isOWS($0) }) else { return "" }
        let last = lastIndex(where: { !isOWS($0) })!
        return String(self[first...last])
    }
}
