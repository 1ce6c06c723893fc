import BenchCore

/// A request as the server's handler sees it, whatever the protocol.
public struct ServerRequest: Sendable {
    public var method: String
    public var path: String
    /// Host (h1) or :authority (h2, h3), without the port.
    public var authority: String
    public var headers: [(String, String)]
    /// "http/1.1", "h2" or "h3".
    public var httpProtocol: String
    /// Request body bytes received (uploads), counted, never kept.
    public var bodyBytes: Int64

    public init(
        method: String, path: String, authority: String, headers: [(String, String)], httpProtocol: String,
        bodyBytes: Int64 = 0
    ) {
        self.method = method; self.path = path; self.authority = authority; self.headers = headers
        self.httpProtocol = httpProtocol; self.bodyBytes = bodyBytes
    }

    /// The first field named `name`, ASCII case-insensitively (no lowercased copies: this runs per request).
    public func header(_ name: String) -> String? {
        headers.first { $0.0 == name || Self.equalIgnoringASCIICase($0.0, name) }?.1
    }

    static func equalIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }
        return zip(a.utf8, b.utf8).allSatisfy { lower($0) == lower($1) }
    }
}

/// What the handler wants sent: the body is generated (filler bytes) to exactly `bodyLength`.
public struct ServerResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var bodyLength: Int64
    /// Think time: the response head leaves this long after the request arrived.
    public var delay: Nanoseconds
    /// Close the connection after this response (h1 only; e.g. after a 400).
    public var closeConnection: Bool
    /// Bytes the body starts with (a rendered page, say) and ends with; filler fills the rest.
    /// `bodyLength` counts them: it is at least `prefix.count + suffix.count`.
    public var prefix: [UInt8] = []
    public var suffix: [UInt8] = []

    public init(
        status: Int, headers: [(String, String)] = [], bodyLength: Int64, delay: Nanoseconds = 0,
        closeConnection: Bool = false
    ) {
        self.status = status; self.headers = headers; self.bodyLength = bodyLength; self.delay = delay
        self.closeConnection = closeConnection
    }
}

public typealias RequestHandler = (ServerRequest) -> ServerResponse

/// Filler for response bodies: a fixed pattern, so a body is never held in memory whole.
enum Filler {
    static let chunk: [UInt8] = (0..<(64 * 1024)).map { UInt8(truncatingIfNeeded: ($0 * 31 + 7) % 251) }
}

/// Counters a server keeps for its own report and for tests.
public struct ServerCounters: Sendable {
    public var connectionsAccepted = 0
    public var requests = 0
    public var malformed = 0
    public var handshakeFailures = 0
    /// Connections closed by a limit: a timeout (handshake, header, idle), or to make room at the
    /// connection or pending-handshake limit; and connections refused at once (all busy).
    public var connectionsTimedOut = 0
    public var connectionsEvicted = 0
    public var connectionsRefused = 0
    /// QUIC: Retry packets sent, and Initials that came back with a valid token.
    public var retriesSent = 0
    public var retriesValidated = 0
    public var bodyBytesSent: Int64 = 0
    public init() {}

    /// Adds another listener's counts to these.
    public mutating func add(_ o: ServerCounters) {
        connectionsAccepted += o.connectionsAccepted; requests += o.requests; malformed += o.malformed
        handshakeFailures += o.handshakeFailures; bodyBytesSent += o.bodyBytesSent
        connectionsTimedOut += o.connectionsTimedOut; connectionsEvicted += o.connectionsEvicted
        connectionsRefused += o.connectionsRefused
        retriesSent += o.retriesSent; retriesValidated += o.retriesValidated
    }
}
