/// What was wrong with an HTTP/1.x message, with the offending text (escaped, shortened).
///
/// The server side answers any of these with 400 (505 for `.unsupportedVersion`, 431 for
/// `.headerTooLarge`) and closes; the client side fails the connection.
public struct HTTP1ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case badRequestLine = "bad request line"
        case badStatusLine = "bad status line"
        case badHeaderLine = "bad header line"
        case headerTooLarge = "header block too large"
        case invalidContentLength = "invalid Content-Length"
        case unsupportedVersion = "unsupported HTTP version"
        case unsupportedTransferEncoding = "unsupported Transfer-Encoding"
        case badChunk = "bad chunked encoding"
        case truncatedMessage = "connection closed before the message ended"
        case unexpectedStatus = "unexpected status"
    }

    public var kind: Kind
    public var detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// The status a server answers this error with.
    public var responseStatus: Int {
        switch kind {
        case .unsupportedVersion: 505
        case .headerTooLarge: 431
        case .unsupportedTransferEncoding: 501
        default: 400
        }
    }

    public var description: String { detail.isEmpty ? kind.rawValue : "\(kind.rawValue): \(detail)" }

    /// Quotes raw message bytes for an error message: printable ASCII kept, the rest as \xNN,
    /// cut to 80 bytes.
    static func quote<C: Collection<UInt8>>(_ bytes: C) -> String {
        var text = "\""
        for byte in bytes.prefix(80) {
            switch byte {
            case 0x5C: text += "\\\\"
            case 0x22: text += "\\\""
            case 0x20...0x7E: text.unicodeScalars.append(Unicode.Scalar(byte))
            case 0x0D: text += "\\r"
            case 0x0A: text += "\\n"
            case 0x09: text += "\\t"
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                text += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return text + (bytes.count > 80 ? "…\"" : "\"")
    }
}
