import Foundation

/// Where in a JSON text a parse failed, as a key path (`log.entries[12].response.content`), so a
/// truncated or hand-damaged HAR names the entry at fault instead of a byte offset.
///
/// A structural scan only (strings, escapes, brackets, commas, colons): it finds unbalanced or
/// mismatched brackets and a text that ends inside a value; finer errors (a missing comma, a bad
/// literal) are left to `JSONSerialization`, whose line and column it can translate to a path.
enum JSONLocator {
    private enum Frame {
        case object(key: String?, expectingKey: Bool)
        case array(index: Int, empty: Bool)
    }

    /// The failure the scan itself detects: `(path, what)`, or nil if the structure is sound.
    static func structuralError(in data: Data) -> (path: String, problem: String)? {
        let bytes = [UInt8](data)
        var stack: [Frame] = []
        var i = 0
        var sawValue = false
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case UInt8(ascii: "\""):
                let start = i + 1
                i += 1
                while i < bytes.count && bytes[i] != UInt8(ascii: "\"") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
                if i >= bytes.count { return (path(stack), "the text ends inside a string (truncated file?)") }
                if case .object(_, true)? = stack.last {
                    stack[stack.count - 1] = .object(
                        key: String(decoding: bytes[start..<i], as: UTF8.self), expectingKey: false)
                }
                markValue(&stack)
            case UInt8(ascii: "{"):
                markValue(&stack)
                stack.append(.object(key: nil, expectingKey: true))
            case UInt8(ascii: "["):
                markValue(&stack)
                stack.append(.array(index: 0, empty: true))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                let wantObject = b == UInt8(ascii: "}")
                guard let top = stack.last else {
                    return ("(top level)", "unexpected '\(Character(UnicodeScalar(b)))' at byte \(i)")
                }
                switch (top, wantObject) {
                case (.object, true), (.array, false): stack.removeLast()
                default: return (path(stack), "mismatched '\(Character(UnicodeScalar(b)))' at byte \(i)")
                }
                sawValue = true
            case UInt8(ascii: ","):
                switch stack.last {
                case .array(let n, _)?: stack[stack.count - 1] = .array(index: n + 1, empty: false)
                case .object(let k, _)?: stack[stack.count - 1] = .object(key: k, expectingKey: true)
                case nil: return ("(top level)", "unexpected ',' at byte \(i)")
                }
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"), UInt8(ascii: ":"):
                break
            default:
                markValue(&stack)
            }
            if stack.isEmpty && ![9, 10, 13, 32].contains(b) { sawValue = true }
            i += 1
        }
        if !stack.isEmpty { return (path(stack), "the text ends before this value is complete (truncated file?)") }
        if !sawValue { return ("(top level)", "the file is empty") }
        return nil
    }

    /// The path of the value that contains byte `offset`.
    static func path(at offset: Int, in data: Data) -> String {
        structuralError(in: data.prefix(max(0, offset)))?.path ?? "(top level)"
    }

    /// Byte offset of "line L, column C" (1-based) as Foundation's JSON errors give them.
    static func offset(line: Int, column: Int, in data: Data) -> Int {
        var l = 1
        var i = 0
        let bytes = [UInt8](data)
        while i < bytes.count && l < line { if bytes[i] == 10 { l += 1 }; i += 1 }
        return min(bytes.count, i + max(0, column - 1))
    }

    private static func markValue(_ stack: inout [Frame]) {
        if case .array(let n, true)? = stack.last { stack[stack.count - 1] = .array(index: n, empty: false) }
    }

    private static func path(_ stack: [Frame]) -> String {
        var s = ""
        for f in stack {
            switch f {
            case .object(let key, let expectingKey): if let key, !expectingKey { s += (s.isEmpty ? "" : ".") + key }
            case .array(let n, let empty): if !empty { s += "[\(n)]" }
            }
        }
        return s.isEmpty ? "(top level)" : s
    }
}
