import BenchCore
import HTTPCodec

/// What one client may cost the replay server (`netbench serve --max-connections` and the like).
/// The defaults are far above what browsers and h2load do, so benchmarks never meet them; a
/// hostile client (slowloris, floods, idle connections by the thousand) does.
public struct ServerLimits: Sendable, Equatable {
    /// Open TCP connections; at the limit the connection idle longest (or still handshaking) is
    /// closed to make room, as nginx reuses idle keep-alive connections, else the new one is refused.
    public var maxConnections: Int
    /// Connections whose TLS handshake has not completed; past it the oldest is closed.
    public var maxPendingHandshakes: Int
    /// The TLS handshake must complete this long after the connection is accepted.
    public var handshakeTimeout: Nanoseconds
    /// An HTTP/1.1 request head must complete this long after its first byte; HTTP/2 and HTTP/3
    /// connections must send their first request HEADERS this long after the handshake.
    public var headerTimeout: Nanoseconds
    /// A connection with no request in flight is closed after this long (HTTP/3: the QUIC idle timeout).
    public var idleTimeout: Nanoseconds
    /// One request's header list: HTTP/1.1 head bytes, HTTP/2 and HTTP/3 decoded fields.
    public var maxHeaderListSize: Int
    /// HTTP/2: RST_STREAM frames from one client in a second (rapid reset, CVE-2023-44487).
    public var maxResetsPerSecond: Int
    /// HTTP/2: SETTINGS and PING frames from one client in a second.
    public var maxControlFramesPerSecond: Int
    /// HTTP/2: CONTINUATION frames after one HEADERS (CONTINUATION flood, CVE-2024-27316).
    public var maxContinuations: Int

    public init(
        maxConnections: Int = 4_096, maxPendingHandshakes: Int = 1_024, handshakeTimeout: Nanoseconds = .seconds(60),
        headerTimeout: Nanoseconds = .seconds(60), idleTimeout: Nanoseconds = .seconds(120),
        maxHeaderListSize: Int = 65_536, maxResetsPerSecond: Int = 200, maxControlFramesPerSecond: Int = 500,
        maxContinuations: Int = 8
    ) {
        self.maxConnections = maxConnections
        self.maxPendingHandshakes = maxPendingHandshakes
        self.handshakeTimeout = handshakeTimeout
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.maxHeaderListSize = maxHeaderListSize
        self.maxResetsPerSecond = maxResetsPerSecond
        self.maxControlFramesPerSecond = maxControlFramesPerSecond
        self.maxContinuations = maxContinuations
    }

    var http2: HTTP2Limits {
        HTTP2Limits(
            maxHeaderListSize: maxHeaderListSize, maxContinuations: maxContinuations,
            maxResetsPerSecond: maxResetsPerSecond, maxControlFramesPerSecond: maxControlFramesPerSecond)
    }

    /// How often the server looks for connections past a timeout: a quarter of the shortest one,
    /// between 50 ms and 1 s.
    var sweepInterval: Nanoseconds {
        min(max(min(handshakeTimeout, headerTimeout, idleTimeout) / 4, .milliseconds(50)), .seconds(1))
    }
}

/// What a server session tells its listener about one connection, for the timeouts and for
/// choosing which connection to close at the connection limit.
final class ConnectionActivity {
    let accepted: Instant
    /// When the TLS handshake completed (nil while handshaking).
    var handshakeDone: Instant?
    /// Requests received and not yet fully answered.
    var requestsInFlight = 0
    /// Since when nothing is in flight (set at the handshake and after each answer).
    var idleSince: Instant
    /// h1: when the first byte of the request head being read arrived.
    var headStarted: Instant?
    /// Whether a whole request head has ever arrived (h2, h3: the first-HEADERS deadline).
    var sawRequest = false

    init(accepted: Instant) {
        self.accepted = accepted
        idleSince = accepted
    }

    /// Why the connection should be closed at `now`, or nil.
    func expired(at now: Instant, limits: ServerLimits) -> String? {
        guard let done = handshakeDone else {
            return now.since(accepted) > limits.handshakeTimeout ? "TLS handshake timeout" : nil
        }
        if let started = headStarted, now.since(started) > limits.headerTimeout { return "request head timeout" }
        if !sawRequest, now.since(done) > limits.headerTimeout { return "no request before the header timeout" }
        if requestsInFlight == 0, headStarted == nil, now.since(idleSince) > limits.idleTimeout {
            return "idle timeout"
        }
        return nil
    }

    /// Whether closing this connection loses no request (it is handshaking or idle).
    var isReclaimable: Bool { handshakeDone == nil || (requestsInFlight == 0 && headStarted == nil) }
}
