internal import CNghttp2

/// Header fields laid out for nghttp2: one byte buffer, and `nghttp2_nv` entries pointing into it.
/// nghttp2 copies the fields during `nghttp2_submit_*`, so the buffer only lives for the call; a
/// connection keeps one list and refills it (`removeAll`) for each message, so that sending a
/// message allocates nothing here.
struct NameValueList {
    private var bytes: [UInt8] = []
    private var spans: [(name: Int, nameLength: Int, value: Int, valueLength: Int)] = []
    private var entries: [nghttp2_nv] = []

    init() {
        bytes.reserveCapacity(512)
    }

    /// Empties the list, keeping its storage.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
    }

    /// Adds a field; the name is lowercased, as HTTP/2 requires.
    mutating func add(_ name: String, _ value: String) {
        let nameStart = bytes.count
        bytes.append(contentsOf: name.utf8)
        let valueStart = bytes.count
        bytes.withUnsafeMutableBufferPointer { b in
            for i in nameStart..<valueStart where b[i] >= 0x41 && b[i] <= 0x5A { b[i] |= 0x20 }
        }
        bytes.append(contentsOf: value.utf8)
        spans.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart))
    }

    /// Adds the caller's fields, leaving out pseudo-fields (we write our own), `dropped`
    /// fields, and any name in `skipping` (lowercase).
    mutating func addRegular(_ headers: HTTPHeaders, skipping: Set<String> = []) {
        for field in headers { addRegular(field.name, field.value, skipping: skipping) }
    }

    mutating func addRegular(_ pairs: [(String, String)], skipping: Set<String> = []) {
        for (name, value) in pairs { addRegular(name, value, skipping: skipping) }
    }

    private mutating func addRegular(_ name: String, _ value: String, skipping: Set<String>) {
        guard name.utf8.first != UInt8(ascii: ":") else { return }
        // Names are usually lowercase already: no copy then (this runs for every response).
        let lower = name.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) ? name.lowercased() : name
        guard !Self.isDropped(lower), skipping.isEmpty || !skipping.contains(lower) else { return }
        add(lower, value)
    }

    /// Fields never sent over HTTP/2: the connection-specific ones RFC 9113 §8.2.2 forbids
    /// (recorded HTTP/1.1 headers carry them, and the peer would reset the stream), and `host`,
    /// which `:authority` replaces as it does in browsers. `name` is lowercase.
    static func isDropped(_ name: String) -> Bool {
        switch name.utf8.count {
        case 4, 7, 10, 16, 17:
            switch name {
            case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host": return true
            default: return false
            }
        default:
            return false
        }
    }

    mutating func withNameValues<R>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        if bytes.isEmpty { bytes.append(0) }  // keep a valid base address
        var entries = self.entries
        self.entries = []  // unique while filled
        entries.removeAll(keepingCapacity: true)
        defer { self.entries = entries }
        return bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeMutablePointer(mutating: buffer.baseAddress!)  // nghttp2 only reads (no NO_COPY flags)
            for span in spans {
                entries.append(
                    nghttp2_nv(
                        name: base + span.name, value: base + span.value, namelen: span.nameLength,
                        valuelen: span.valueLength, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
            }
            return entries.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
        }
    }
}
