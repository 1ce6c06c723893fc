import CZlib

/// Bodies stored content-encoded (a recorded gzip body), decoded: what a browser's decoder hands the
/// page. Only gzip is stored encoded; anything else is nil.
public enum ContentDecoding {
    /// Whether `encoding` (a `content-encoding` value) is gzip: the only encoding netbench stores encoded.
    public static func isGzip(_ encoding: String) -> Bool { ["gzip", "x-gzip"].contains(encoding.lowercased()) }

    /// The decoded length of a body stored content-encoded: the only size Chromium's Network domain
    /// reports without counting HTTP/2 or HTTP/3 frame headers (`Network.dataReceived.dataLength`).
    /// Nil for an encoding netbench does not store encoded (anything but gzip) or bytes that do not decode.
    public static func decodedLength(of body: [UInt8], encoding: String) -> Int? {
        var total = 0
        return inflateGzip(body, encoding: encoding) { total += $0.count } ? total : nil
    }

    /// The decoded bytes of a body stored content-encoded (`netbench scenario export` writes them beside
    /// the stored ones); nil as for `decodedLength`.
    public static func decoded(_ body: [UInt8], encoding: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(body.count * 4)
        return inflateGzip(body, encoding: encoding) { out += $0 } ? out : nil
    }

    /// Inflates a gzip body whole, handing each decoded chunk to `sink`: false for another encoding, bytes
    /// that do not decode, or bytes after the gzip stream's end.
    private static func inflateGzip(_ body: [UInt8], encoding: String, _ sink: (ArraySlice<UInt8>) -> Void) -> Bool {
        guard isGzip(encoding) else { return false }
        var stream = z_stream()
        // 15 + 16: a gzip wrapper only.
        guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return false }
        defer { inflateEnd(&stream) }
        var input = body
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        return input.withUnsafeMutableBufferPointer { i in
            stream.next_in = i.baseAddress
            stream.avail_in = uInt(i.count)
            while true {
                let rc = chunk.withUnsafeMutableBufferPointer { o -> Int32 in
                    stream.next_out = o.baseAddress
                    stream.avail_out = uInt(o.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                sink(chunk[0..<(chunk.count - Int(stream.avail_out))])
                if rc == Z_STREAM_END { return stream.avail_in == 0 }
                if rc != Z_OK { return false }
            }
        }
    }
}
