/// Writes HTTP/1.1 message heads. Bodies are not its business: a server streams
/// `BodyFiller` bytes after the head, a client sends GETs.
///
/// A CR, LF or NUL inside a name, value or target is replaced by a space, so recorded
/// (HAR) data can never split a message or inject a field.
public enum HTTP1Serializer {
    /// `GET /path HTTP/1.1` with `Host` first, an optional `Range`, then `headers` in order
    /// (a `Host` among them is dropped; `host` wins).
    public static func requestHead(
        method: String = "GET", target: String, host: String,
        range: HTTPByteRange? = nil, headers: HTTPHeaders = [:]
    ) -> [UInt8] {
        var fields = HTTPHeaders()
        fields.add(name: "Host", value: host)
        if let range { fields.add(name: "Range", value: range.headerValue) }
        for field in headers where !HTTPHeaders.namesEqual(field.name, "host") {
            fields.add(name: field.name, value: field.value)
        }
        return requestHead(HTTPRequestHead(method: method, target: target, headers: fields))
    }

    /// The head exactly as given (its headers, in order).
    public static func requestHead(_ head: HTTPRequestHead) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        appendSafe(head.method, to: &out)
        out.append(0x20)
        appendSafe(head.target, to: &out)
        out.append(0x20)
        out.append(
            contentsOf: head.version.major >= 2 ? HTTPVersion.http1_1.description.utf8 : head.version.description.utf8)
        appendFields(head.headers, to: &out)
        return out
    }

    /// A response head with `Content-Length` (when the status allows a body), `Content-Range`
    /// for a 206, `Connection: close` unless `keepAlive`, then `headers` (their own
    /// Content-Length, Content-Range, Connection and Transfer-Encoding are dropped: the
    /// body is always sent with a known length).
    public static func responseHead(
        status: Int, reason: String? = nil, contentLength: Int64,
        contentRange: HTTPContentRange? = nil, keepAlive: Bool = true,
        headers: HTTPHeaders = [:]
    ) -> [UInt8] {
        var fields = HTTPHeaders()
        if !HTTPStatus.forbidsBody(status) {
            fields.add(name: "Content-Length", value: String(contentLength))
        }
        if let contentRange { fields.add(name: "Content-Range", value: contentRange.headerValue) }
        if !keepAlive { fields.add(name: "Connection", value: "close") }
        let replaced = ["content-length", "content-range", "connection", "transfer-encoding"]
        for field in headers where !replaced.contains(where: { HTTPHeaders.namesEqual($0, field.name) }) {
            fields.add(name: field.name, value: field.value)
        }
        return responseHead(HTTPResponseHead(status: status, reason: reason, headers: fields))
    }

    /// The head exactly as given (its headers, in order).
    public static func responseHead(_ head: HTTPResponseHead) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        out.append(contentsOf: (head.version.major >= 2 ? HTTPVersion.http1_1 : head.version).description.utf8)
        out.append(0x20)
        let status = String(head.status)
        out.append(
            contentsOf: (status.count < 3 ? String(repeating: "0", count: 3 - status.count) + status : status).utf8)
        out.append(0x20)
        appendSafe(head.reason, to: &out)
        appendFields(head.headers, to: &out)
        return out
    }

    private static func appendFields(_ headers: HTTPHeaders, to out: inout [UInt8]) {
        out.append(contentsOf: [0x0D, 0x0A])
        for field in headers {
            appendSafe(field.name, to: &out)
            out.append(contentsOf: [UInt8(ascii: ":"), 0x20])
            appendSafe(field.value, to: &out)
            out.append(contentsOf: [0x0D, 0x0A])
        }
        out.append(contentsOf: [0x0D, 0x0A])
    }

    private static func appendSafe(_ text: String, to out: inout [UInt8]) {
        for byte in text.utf8 {
            out.append(byte == 0x0D || byte == 0x0A || byte == 0 ? 0x20 : byte)
        }
    }
}
