/// The deterministic bytes every netbench response body is made of.
///
/// Replay servers never hold a body in memory: byte `k` of any body is `byte(at: k)`, a
/// printable-ASCII pattern with period 4096. A client may verify any slice it receives, and a
/// `Range` response is simply the same function started at the range's first offset.
public enum BodyFiller {
    static let period = 4096

    /// Two periods back to back, so any `period`-long window is one contiguous copy.
    private static let table: [UInt8] = (0..<(2 * period)).map { i in
        let k = i % period
        return UInt8(0x21 + (k &* 37 &+ k >> 6) % 94)
    }

    /// Byte `offset` of every body.
    public static func byte(at offset: Int64) -> UInt8 {
        table[Int(offset % Int64(period))]
    }

    /// Fills `buffer` with body bytes `offset ..< offset + buffer.count`.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer, offset: Int64) {
        guard var destination = buffer.baseAddress else { return }
        var remaining = buffer.count
        var phase = Int(offset % Int64(period))
        table.withUnsafeBytes { source in
            while remaining > 0 {
                let n = min(remaining, period)
                destination.copyMemory(from: source.baseAddress! + phase, byteCount: n)
                destination += n
                remaining -= n
                phase = (phase + n) % period
            }
        }
    }

    /// Whether `bytes` are exactly body bytes `offset ..< offset + bytes.count`.
    public static func matches(_ bytes: UnsafeRawBufferPointer, offset: Int64) -> Bool {
        var phase = Int(offset % Int64(period))
        for byte in bytes {
            if byte != table[phase] { return false }
            phase = phase + 1 == period ? 0 : phase + 1
        }
        return true
    }
}
