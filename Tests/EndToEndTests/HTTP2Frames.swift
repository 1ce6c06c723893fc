/// Hand-encoded HTTP/2 frames (RFC 9113 §4.1) and HPACK (RFC 7541) for the hostile clients:
/// enough to send what no well-behaved library would.
enum H2 {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    static let data: UInt8 = 0, headers: UInt8 = 1, rstStream: UInt8 = 3, settings: UInt8 = 4, ping: UInt8 = 6
    static let goaway: UInt8 = 7, continuation: UInt8 = 9
    static let endStream: UInt8 = 0x1, endHeaders: UInt8 = 0x4

    static func frame(_ type: UInt8, flags: UInt8 = 0, stream: UInt32 = 0, _ payload: [UInt8] = []) -> [UInt8] {
        let n = payload.count
        return [
            UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF), type, flags,
            UInt8(stream >> 24 & 0x7F), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF),
        ] + payload
    }

    /// An HPACK integer with an `prefix`-bit prefix, the first byte's high bits set from `mask`.
    static func integer(_ value: Int, prefix: Int, mask: UInt8) -> [UInt8] {
        let max = (1 << prefix) - 1
        if value < max { return [mask | UInt8(value)] }
        var out: [UInt8] = [mask | UInt8(max)]
        var rest = value - max
        while rest >= 128 { out.append(UInt8(rest & 0x7F) | 0x80); rest >>= 7 }
        out.append(UInt8(rest))
        return out
    }

    static func string(_ s: String) -> [UInt8] { integer(s.utf8.count, prefix: 7, mask: 0) + Array(s.utf8) }

    /// GET / from the static table, :authority as a literal that is not indexed.
    static func getRequestBlock(authority: String = "www.shop.test", path: String = "/") -> [UInt8] {
        var block: [UInt8] = [0x82, 0x87]  // :method GET, :scheme https
        block += path == "/" ? [0x84] : [0x04] + string(path)  // :path
        block += [0x01] + string(authority)  // :authority, literal without indexing
        return block
    }

    /// A literal field added to the dynamic table (new name).
    static func indexedLiteral(_ name: String, _ value: String) -> [UInt8] { [0x40] + string(name) + string(value) }

    /// A literal field not added to the table (new name).
    static func literal(_ name: String, _ value: String) -> [UInt8] { [0x00] + string(name) + string(value) }

    static func rst(_ stream: UInt32, code: UInt32 = 8) -> [UInt8] {
        frame(
            rstStream, stream: stream,
            [UInt8(code >> 24), UInt8(code >> 16 & 0xFF), UInt8(code >> 8 & 0xFF), UInt8(code & 0xFF)])
    }

    /// The GOAWAY error codes in a run of frames (a partial frame at the end is ignored).
    static func goawayCodes(in bytes: [UInt8]) -> [UInt32] {
        var codes: [UInt32] = []
        var i = 0
        while i + 9 <= bytes.count {
            let n = Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2])
            guard i + 9 + n <= bytes.count else { break }
            if bytes[i + 3] == goaway && n >= 8 {
                let p = i + 9 + 4
                codes.append(
                    UInt32(bytes[p]) << 24 | UInt32(bytes[p + 1]) << 16 | UInt32(bytes[p + 2]) << 8
                        | UInt32(bytes[p + 3]))
            }
            i += 9 + n
        }
        return codes
    }
}
