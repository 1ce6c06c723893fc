/// Foundation's pretty printing (`JSONEncoder` with `.prettyPrinted`) of JSON that the same encoder
/// wrote compact: two spaces per level, `"key" : value`, one element per line, and an empty array
/// or object as its brackets around a blank line. Strings and numbers are copied byte for byte, so
/// the escapes and number formats are the compact encoder's, which are the pretty one's. Pure.
public enum JSONPretty {
    /// Appends `compact` pretty-printed as a value at `depth` (its first line not indented: the
    /// caller writes what precedes it), to `out`. False when `compact` was not compact (white space
    /// between tokens: another writer's JSON, whose other choices may differ too); `out` then holds
    /// a pretty-printed copy all the same.
    @discardableResult
    public static func append(_ compact: UnsafeRawBufferPointer, depth: Int, to out: inout [UInt8]) -> Bool {
        var compactInput = true
        let p = compact.bindMemory(to: UInt8.self)
        var level = depth
        var i = 0
        func newline(_ level: Int) {
            out.append(0x0A)
            for _ in 0..<level { out.append(0x20); out.append(0x20) }
        }
        while i < p.count {
            let b = p[i]
            switch b {
            case UInt8(ascii: "\""):
                var j = i + 1
                while j < p.count, p[j] != UInt8(ascii: "\"") { j += p[j] == UInt8(ascii: "\\") ? 2 : 1 }
                let end = min(j + 1, p.count)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: p[i..<end]))
                i = end
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close: UInt8 = b == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                out.append(b)
                if i + 1 < p.count, p[i + 1] == close {
                    out.append(0x0A)
                    newline(level)
                    out.append(close)
                    i += 2
                    continue
                }
                level += 1
                newline(level)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                level -= 1
                newline(level)
                out.append(b)
            case UInt8(ascii: ","):
                out.append(b)
                newline(level)
            case UInt8(ascii: ":"):
                out.append(contentsOf: [0x20, UInt8(ascii: ":"), 0x20])
            case 0x20, 0x0A, 0x0D, 0x09:
                compactInput = false
            default:
                out.append(b)
            }
            i += 1
        }
        return compactInput
    }
}
