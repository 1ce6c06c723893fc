import Foundation
import BenchCore

/// Response bodies recorded in a HAR (`response.content.text`, as Chrome's "with content" export,
/// Firefox and WebPageTest write it): base64 when `content.encoding` is `base64`, else the text's
/// UTF-8 bytes. HAR content is the decoded body (after any `content-encoding`): a body recorded gzip-encoded
/// is encoded again (`HARCompression`) and replayed with `content-encoding: gzip`; other encodings (br,
/// deflate) are replayed decoded and counted.
enum HARBodies {
    struct Recorded {
        var bytes: [UInt8]
        var body: Scenario.Resource.Body
        /// `content.size` when the HAR gives one (the body's declared length).
        var declaredSize: Int64?
        /// The response's `content-encoding` when it was recorded compressed.
        var wireEncoding: String?
        /// The decoded body's length (the HAR's content), which `declaredSize` describes.
        var decodedSize = 0
        /// `bytes` are the decoded body encoded again as it was sent (gzip).
        var reencoded: Bool { body.contentEncoding != nil }
    }

    /// Entry `i`'s body, or nil when it has no content (absent, or empty text for a non-empty body).
    /// Content that cannot be decoded is a data error naming the file, entry and field.
    static func body(
        of e: HARArchive.Entry, index i: Int, file: String, gzipAsRecorded: Bool = false
    ) throws -> Recorded? {
        guard let content = e.response.content, let text = content.text else { return nil }
        let declared = content.size.flatMap { $0 >= 0 && $0 <= Double(Scenario.largestBody) ? Int64($0) : nil }
        if text.isEmpty, let d = declared, d > 0 { return nil }
        let field = "\(file): log.entries[\(i)].response.content"
        var bytes: [UInt8]
        switch content.encoding?.lowercased() {
        case nil, "": bytes = Array(text.utf8)
        case "base64":
            let compact = text.filter { !$0.isWhitespace }
            guard let data = Data(base64Encoded: compact) else {
                throw BenchError.data(
                    "\(field).text: not valid base64 (content.encoding is 'base64'): '\(text.prefix(40))"
                        + (text.count > 40 ? "…'" : "'"))
            }
            bytes = [UInt8](data)
        case let other?:
            throw BenchError.data(
                "\(field).encoding: '\(other.prefix(40))' is not an encoding netbench reads (base64, or none for text)")
        }
        let headers = e.response.headers ?? []
        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name }?.value.trimmingCharacters(in: .whitespaces)
        }
        let type = header("content-type") ?? content.mimeType.flatMap { $0.isEmpty ? nil : $0 }
        let wire = header("content-encoding").flatMap { $0.isEmpty || $0.lowercased() == "identity" ? nil : $0 }
        let decodedSize = bytes.count
        var encoding: String?
        if gzipAsRecorded, let w = wire, HARCompression.reencodes(w), let gz = HARCompression.gzip(bytes) {
            bytes = gz
            encoding = "gzip"
        }
        var r = Recorded(
            bytes: bytes,
            body: Scenario.Resource.Body(
                sha256: SHA256.hex(bytes), contentType: type.flatMap(printable), contentEncoding: encoding),
            declaredSize: declared, wireEncoding: wire)
        r.decodedSize = decodedSize
        return r
    }

    /// A header value netbench can send again (printable ASCII), or nil.
    static func printable(_ v: String) -> String? {
        v.isEmpty || v.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value > 0x7E }) ? nil : v
    }
}
