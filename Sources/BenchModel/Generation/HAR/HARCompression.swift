import CZlib

/// A recorded body that came gzip-encoded, encoded again for replay: HAR content (and DevTools'
/// `Network.getResponseBody`) is the decoded body, so the wire bytes are rebuilt deterministically
/// from it, as nginx's gzip filter writes them with its defaults (`gzip_comp_level 1`, a 32 KB window
/// and memLevel 8 each narrowed for a small body by nginx's rule, zlib's gzip framing: modification
/// time 0, OS 3): for a body nginx compressed with the same zlib, the same bytes; for another origin's
/// (another level, another library), bytes of about the size it sent.
enum HARCompression {
    /// The `content-encoding` values re-encoded; others (br, deflate, zstd) are replayed decoded.
    static func reencodes(_ encoding: String) -> Bool { ContentDecoding.isGzip(encoding) }

    /// `body` gzip-encoded as nginx does by default; nil if zlib fails.
    static func gzip(_ body: [UInt8], level: Int32 = 1) -> [UInt8]? {
        var windowBits: Int32 = 15, memLevel: Int32 = 8
        // nginx: "the 256-byte minimal window size" for a body of known length.
        while !body.isEmpty && body.count < (1 << (windowBits - 1)) - 262 {
            windowBits -= 1
            memLevel -= 1
        }
        memLevel = max(1, memLevel)
        var stream = z_stream()
        let initialized = deflateInit2_(
            &stream, level, Z_DEFLATED, windowBits + 16, memLevel, Z_DEFAULT_STRATEGY, zlibVersion(),
            Int32(MemoryLayout<z_stream>.size))
        guard initialized == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(body.count))) + 16)
        var input = body
        let rc = input.withUnsafeMutableBufferPointer { i in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = i.baseAddress
                stream.avail_in = uInt(i.count)
                stream.next_out = o.baseAddress
                stream.avail_out = uInt(o.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard rc == Z_STREAM_END else { return nil }
        return Array(out[..<Int(stream.total_out)])
    }
}
