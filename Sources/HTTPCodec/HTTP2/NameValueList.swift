internal import CNghttp2

/// Header fields laid out for nghttp2: one byte buffer, and `nghttp2_nv` entries pointing into it.
/// nghttp2 copies the fields during `nghttp2_submit_*`, so the buffer only lives for the call.
struct NameValueList {
    private var bytes: [UInt8] = []
    private var spans: [(name: Int, nameLength: Int, value: Int, valueLength: Int)] = []

    init() {
        bytes.reserveCapacity(512)
    }

    /// Fields never sent over HTTP/2: the connection-specific ones RFC 9113 §8.2.2 forbids
    /// (recorded HTTP/1.1 headers carry them, and the peer would reset the stream), and `host`,
    /// which `:authority` replaces as it does in browsers.
    static let dropped: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host",
    ]

    /// Adds a field; the name is lowercased, as HTTP/2 requires.
    mutating func add(_ name: String, _ value: String) {
        let nameStart = bytes.count
        for byte in name.utf8 { bytes.append(asciiLower(byte)) }
        let valueStart = bytes.count
        bytes.append(contentsOf: value.utf8)
        spans.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart))
    }

    /// Adds the caller's fields, leaving out pseudo-fields (we write our own), `dropped`
    /// fields, and any name in `skipping`.
    mutating func addRegular(_ headers: HTTPHeaders, skipping: Set<String> = []) {
        for field in headers {
            // Names are usually lowercase already: no copy then (this runs for every response).
            let name = field.name.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) ? field.name.lowercased() : field.name
            guard !name.hasPrefix(":"), !Self.dropped.contains(name), !skipping.contains(name) else { continue }
            add(name, field.value)
        }
    }

    mutating func withNameValues<R>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        let spans = self.spans
        if bytes.isEmpty { bytes.append(0) }   // keep a valid base address
        return bytes.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            let nva = spans.map {
                nghttp2_nv(name: base + $0.name, value: base + $0.value, namelen: $0.nameLength,
                           valuelen: $0.valueLength, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return nva.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
        }
    }
}
