/// An HTTP protocol version as written on the wire (`HTTP/1.1`) or implied by the framing (h2, h3).
public struct HTTPVersion: Hashable, Sendable, CustomStringConvertible {
    public var major: Int
    public var minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)
    public static let http2 = HTTPVersion(major: 2, minor: 0)
    public static let http3 = HTTPVersion(major: 3, minor: 0)

    public var description: String { major >= 2 ? "HTTP/\(major)" : "HTTP/\(major).\(minor)" }
}

/// A request line and its header fields, for any HTTP version.
///
/// HTTP/2 and HTTP/3 carry the authority and scheme as pseudo-header fields; they land in
/// `authority` and `scheme`, never in `headers`.
public struct HTTPRequestHead: Sendable, Equatable {
    public var method: String
    /// The request-target: origin form (`/a/b?c`) in practice.
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    /// `:authority` of HTTP/2 and HTTP/3; nil for HTTP/1.x, whose authority is the `Host` field.
    public var authority: String?
    /// `:scheme` of HTTP/2 and HTTP/3.
    public var scheme: String?

    public init(
        method: String = "GET", target: String, version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = [:], authority: String? = nil, scheme: String? = nil
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.authority = authority
        self.scheme = scheme
    }

    /// The origin the request is for: `:authority`, else the `Host` field.
    public var host: String? { authority ?? headers["host"] }

    /// Whether the connection stays open after this exchange, from the request's side
    /// (RFC 9112 §9.3): HTTP/1.1 unless `Connection: close`; HTTP/1.0 only with
    /// `Connection: keep-alive`; HTTP/2 and later always.
    public var keepAlive: Bool {
        persistentConnection(version: version, connectionTokens: headers.tokens(for: "connection"))
    }
}

/// A status line and its header fields.
public struct HTTPResponseHead: Sendable, Equatable {
    public var version: HTTPVersion
    public var status: Int
    public var reason: String
    public var headers: HTTPHeaders

    public init(
        version: HTTPVersion = .http1_1, status: Int, reason: String? = nil,
        headers: HTTPHeaders = [:]
    ) {
        self.version = version
        self.status = status
        self.reason = reason ?? HTTPStatus.reasonPhrase(status)
        self.headers = headers
    }

    /// Whether the server lets the connection persist after this response (same rules as
    /// `HTTPRequestHead.keepAlive`). A close-delimited body ends the connection regardless:
    /// `HTTP1ResponseParser` reports that through `HTTP1ClientEvent.end(keepAlive:)`.
    public var keepAlive: Bool {
        persistentConnection(version: version, connectionTokens: headers.tokens(for: "connection"))
    }
}

func persistentConnection(version: HTTPVersion, connectionTokens: [String]) -> Bool {
    if version.major >= 2 { return true }
    if connectionTokens.contains("close") { return false }
    if version == .http1_0 { return connectionTokens.contains("keep-alive") }
    return true
}

/// Status codes and their reason phrases.
public enum HTTPStatus {
    /// The RFC 9110 reason phrase, or "Unknown" (clients must ignore the phrase anyway).
    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 103: "Early Hints"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 416: "Range Not Satisfiable"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Unknown"
        }
    }

    /// Whether a response with this status never has content (RFC 9110 §6.4.1): 1xx, 204, 304.
    public static func forbidsBody(_ status: Int) -> Bool {
        (100..<200).contains(status) || status == 204 || status == 304
    }
}
