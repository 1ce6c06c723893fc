import BenchCore

/// A QUIC client (ALPN h3) that runs no HTTP/3: the caller opens streams and writes their bytes
/// as they are, so that it can send what a correct HTTP/3 stack never would (QPACK bombs, broken
/// frames, fuzzed stream data). Hostile-client tests and the fuzz harnesses use it; it is driven
/// exactly like `HTTP3Client` (`receive`, `write`, `handleExpiry` at `expiry`) and does no I/O.
public final class QUICStreamClient {
    private let connection: QUICConnection

    /// What the peer did: each call returns the stream data first, then the other events, each kind in order.
    public enum Event: Sendable, Equatable {
        case handshakeCompleted
        /// Bytes the peer sent on a stream (`fin`: the stream's last).
        case streamData(stream: Int64, bytes: [UInt8], fin: Bool)
        /// The peer reset one of our bidirectional streams.
        case streamReset(stream: Int64, code: UInt64)
        case closed(QUICError)
    }

    public init(
        config: QUICConfiguration, trustedRootsPEM: String, serverName: String,
        local: Endpoint, remote: Endpoint, now: Instant
    ) throws {
        let credentials = try ClientTLSCredentials.shared(trustedRootsPEM: trustedRootsPEM)
        connection = try QUICConnection.client(
            config: config, credentials: credentials, serverName: serverName,
            local: local, remote: remote, resumption: nil, now: now, rawStreams: true)
    }

    /// Opens a stream (needs the handshake's 1-RTT keys and the peer's stream credit).
    public func openStream(bidirectional: Bool) throws -> Int64 {
        try connection.openRawStream(bidirectional: bidirectional)
    }

    /// Queues `bytes` on a stream this client opened, then FIN when `fin`; `write` sends them as
    /// flow control allows.
    public func send(stream: Int64, _ bytes: [UInt8], fin: Bool = false) throws {
        guard connection.raw?.queue(stream, bytes, fin: fin) == true else {
            throw QUICError.invalidState("stream \(stream) is not open for writing")
        }
    }

    /// Bytes queued on `stream` and not yet taken by QUIC (0 once all went out).
    public func unsent(stream: Int64) -> Int {
        guard let o = connection.raw?.outgoing[stream] else { return 0 }
        return o.bytes.count - o.offset
    }

    public func receive(_ datagram: UnsafeRawBufferPointer, local: Endpoint, remote: Endpoint, now: Instant) -> [Event]
    {
        connection.receive(datagram, local: local, remote: remote, now: now)
        return takeEvents()
    }

    @discardableResult
    public func write(now: Instant, emit: (UnsafeRawBufferPointer, _ remote: Endpoint, _ local: Endpoint) -> Void)
        -> [Event]
    {
        connection.write(now: now, emit: emit)
        return takeEvents()
    }

    public var expiry: Instant? { connection.expiry }

    @discardableResult
    public func handleExpiry(now: Instant) -> [Event] {
        connection.handleExpiry(now: now)
        return takeEvents()
    }

    public var isHandshakeComplete: Bool { connection.handshakeCompletedAt != nil }
    public var isClosed: Bool { connection.isClosed }
    public var isOpen: Bool { connection.isOpen }

    private func takeEvents() -> [Event] {
        var out: [Event] = []
        for (stream, bytes, fin) in connection.raw?.received ?? [] {
            out.append(.streamData(stream: stream, bytes: bytes, fin: fin))
        }
        connection.raw?.received.removeAll()
        for event in connection.takeEvents() {
            switch event {
            case .handshakeCompleted: out.append(.handshakeCompleted)
            case .streamReset(let stream, let code): out.append(.streamReset(stream: stream, code: code))
            case .closed(let error): out.append(.closed(error))
            case .headers, .request, .data, .streamEnd, .pathValidated, .resumptionReady: break
            }
        }
        return out
    }
}
