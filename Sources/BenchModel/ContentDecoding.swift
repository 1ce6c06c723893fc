import CZlib

/// The decoded length of a body stored content-encoded (a recorded gzip body): what a browser's
/// decoder hands the page, and the only size Chromium's Network domain reports without counting
/// HTTP/2 or HTTP/3 frame headers (`Network.dataReceived.dataLength`).
public enum ContentDecoding {
    /// The length of `body` once its `content-encoding` is undone; nil for an encoding netbench does not
    /// store encoded (anything but gzip) or bytes that do not decode.
    public static func decodedLength(of body: [UInt8], encoding: String) -> Int? {
        guard ["gzip", "x-gzip"].contains(encoding.lowercased()) else { return nil }
        var stream = z_stream()
        // 15 + 16: a gzip wrapper only.
        guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { inflateEnd(&stream) }
        var input = body
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var total = 0
        let done: Bool = input.withUnsafeMutableBufferPointer { i in
            stream.next_in = i.baseAddress
            stream.avail_in = uInt(i.count)
            while true {
                let rc = chunk.withUnsafeMutableBufferPointer { o -> Int32 in
                    stream.next_out = o.baseAddress
                    stream.avail_out = uInt(o.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                total += chunk.count - Int(stream.avail_out)
                if rc == Z_STREAM_END { return stream.avail_in == 0 }
                if rc != Z_OK { return false }
            }
        }
        return done ? total : nil
    }
}
