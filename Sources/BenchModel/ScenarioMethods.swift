import BenchCore

extension Scenario.Resource {
    /// The methods a resource may be requested with. HEAD has no body to replay and OPTIONS (CORS
    /// preflights) the replay server answers itself.
    public static let methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]

    /// `method`, GET when absent.
    public var httpMethod: String { method ?? "GET" }

    /// A request body, as a HAR's `postData` holds it: text (form fields, JSON) and its `content-type`.
    public struct RequestBody: Codable, Hashable, Sendable {
        public var text: String
        /// `content-type` sent with the body; nil: none.
        public var contentType: String?

        public init(text: String, contentType: String? = nil) { self.text = text; self.contentType = contentType }

        /// The bytes sent: the text's UTF-8.
        public var bytes: [UInt8] { Array(text.utf8) }
    }
}

extension Scenario {
    /// The largest request body a scenario may give (16 MiB): what a recorded form or API call sends,
    /// kept in the scenario file itself.
    public static let largestRequestBody = 16 << 20

    func validateMethod(_ r: Resource, at keyPath: String, _ bad: (String, String) -> Void) {
        if let m = r.method, !Resource.methods.contains(m) {
            bad(
                keyPath + ".method",
                "'\(m.escapingControlCharacters)' is not a method netbench replays ("
                    + Resource.methods.joined(separator: ", ") + ")")
        }
        if r.parent == nil, let m = r.method, m != "GET", Resource.methods.contains(m) {
            bad(keyPath + ".method", "'\(m)': the root document is loaded with GET")
        }
        guard let b = r.requestBody else { return }
        if r.httpMethod == "GET" {
            bad(keyPath + ".requestBody", "a GET request has no body (give the resource a \"method\", e.g. POST)")
        }
        if b.text.utf8.count > Self.largestRequestBody {
            bad(keyPath + ".requestBody.text", "\(b.text.utf8.count) bytes is above 16 MiB")
        }
        if let v = b.contentType,
            v.isEmpty || v.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value > 0x7E })
        {
            bad(
                keyPath + ".requestBody.contentType",
                "'\(v.escapingControlCharacters)' is not a printable ASCII header value")
        }
    }
}
