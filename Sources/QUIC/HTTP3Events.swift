import BenchCore

/// What happened on an `HTTP3Client` connection, in the order it happened.
public enum HTTP3ClientEvent: Sendable {
    case handshakeCompleted
    /// The final response header section of a request.
    case response(stream: Int64, status: Int, headers: [(String, String)])
    /// `count` body bytes arrived (consecutive arrivals within one call are merged).
    case data(stream: Int64, count: Int)
    /// The response body is complete.
    case responseEnd(stream: Int64)
    /// The server reset the stream (RESET_STREAM) before the response completed.
    case streamReset(stream: Int64, code: UInt64)
    /// A path validation finished, e.g. after `migrate(to:now:)`.
    case pathValidated(local: Endpoint, remote: Endpoint, succeeded: Bool)
    /// A session ticket arrived; `HTTP3Client.resumptionState` now returns it.
    case resumptionStateAvailable
    /// The connection is over; nothing more will be sent or received.
    case closed(QUICError)
}

/// Identifies one connection of an `HTTP3Server` for its whole life (connection IDs change).
public struct HTTP3ConnectionHandle: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "conn#\(rawValue)" }
}

/// What happened on an `HTTP3Server`.
public enum HTTP3ServerEvent: Sendable {
    case connectionOpened(connection: HTTP3ConnectionHandle, remote: Endpoint)
    case handshakeCompleted(connection: HTTP3ConnectionHandle)
    /// A complete request, its body (`bodyBytes` long, 0 for none) received whole; answer with
    /// `HTTP3Server.submitResponse`, now or later.
    case request(
        connection: HTTP3ConnectionHandle, stream: Int64, method: String,
        authority: String, path: String, headers: [(String, String)], bodyBytes: Int64)
    /// The client moved to a new path (migration or NAT rebinding) and it was validated.
    case pathChanged(connection: HTTP3ConnectionHandle, local: Endpoint, remote: Endpoint)
    /// The connection is gone (closed, drained, timed out idle); its handle is no longer valid.
    case connectionClosed(connection: HTTP3ConnectionHandle, error: QUICError?)
}
