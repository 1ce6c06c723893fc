import Foundation

/// How a HAR entry becomes a resource: its type and its size.
enum HARClassification {
    typealias ResourceType = Scenario.ResourceType

    /// Chrome's `_resourceType` when present, else the response MIME type, else the file
    /// extension of the URL path; `other` when nothing says.
    static func type(of e: HARArchive.Entry, path: String) -> ResourceType {
        if let rt = e.resourceType?.lowercased() {
            switch rt {
            case "document": return .document
            case "stylesheet": return .stylesheet
            case "script": return .script
            case "font": return .font
            case "image": return .image
            case "xhr", "fetch", "eventsource", "ping", "preflight": return .xhr
            case "media", "manifest", "texttrack", "other", "websocket", "signedexchange", "wasm": return .other
            default: break
            }
        }
        if let mime = e.response.content?.mimeType?.lowercased(), !mime.isEmpty {
            let m = mime.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? mime
            if m == "text/html" || m == "application/xhtml+xml" { return .document }
            if m == "text/css" { return .stylesheet }
            if m.contains("javascript") || m.contains("ecmascript") { return .script }
            if m.hasPrefix("font/") || m.contains("font-woff") || m.contains("font-ttf") || m.contains("opentype") {
                return .font
            }
            if m.hasPrefix("image/") { return .image }
            if m.contains("json") || m.hasSuffix("/xml") || m == "text/plain" { return .xhr }
        }
        let file = path.split(separator: "?").first.map(String.init) ?? path
        let ext = file.split(separator: "/").last?.split(separator: ".").dropFirst().last.map { $0.lowercased() } ?? ""
        switch ext {
        case "html", "htm": return .document
        case "css": return .stylesheet
        case "js", "mjs": return .script
        case "woff", "woff2", "ttf", "otf", "eot": return .font
        case "png", "jpg", "jpeg", "gif", "webp", "avif", "svg", "ico", "bmp": return .image
        case "json": return .xhr
        default: return .other
        }
    }

    /// The body size: the first of `response.bodySize` and `response.content.size` that is > 0
    /// (Chrome writes `bodySize` 0 for a cache hit whose `content.size` is the real size); 0 if
    /// one of them is 0 (a 204, an empty body); else Chrome's `_transferSize` if ≥ 0 (it counts
    /// the headers too, so it is the last resort); nil when no field is present and ≥ 0 (-1 is
    /// "unknown" in HAR).
    static func bytes(of e: HARArchive.Entry) -> Int64? { size(of: e)?.bytes }

    /// Where a body size came from.
    enum SizeSource { case bodySize, contentSize, transferSize }

    /// `bytes(of:)` and the field it came from.
    static func size(of e: HARArchive.Entry) -> (bytes: Int64, source: SizeSource)? {
        // Sizes beyond a scenario's largest body are damage, not data: treated as unknown.
        let plausible = Double(Scenario.largestBody)
        func usable(_ d: Double?) -> Double? { d.flatMap { $0 >= 0 && $0 <= plausible ? $0 : nil } }
        let body = usable(e.response.bodySize), content = usable(e.response.content?.size)
        if let b = body, b > 0 { return (Int64(b.rounded()), .bodySize) }
        if let c = content, c > 0 { return (Int64(c.rounded()), .contentSize) }
        if body != nil { return (0, .bodySize) }
        if content != nil { return (0, .contentSize) }
        if let t = usable(e.response.transferSize) { return (Int64(t.rounded()), .transferSize) }
        return nil
    }
}
