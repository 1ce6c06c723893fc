import BenchCore
import Transport

/// A connection that takes requests and lets the test answer them, ready when the test says so
/// (`ready()`); each request in flight takes one of its slots.
final class FakeConnection: ClientConnection {
    var info: ConnectionInfo
    var isUsable = true
    var freeSlots: Int
    var onStateChange: (() -> Void)?
    var bytesAcknowledged: Int64? { nil }
    var requests: [(path: String, events: (ClientEvent) -> Void)] = []
    /// The priority each request was sent with, by path.
    var sentPriorities: [String: RequestPriority] = [:]
    /// Whether each request was sent incremental (RFC 9218 `i`), by path.
    var sentIncremental: [String: Bool] = [:]

    init(kind: TransportKind = .h2, slots: Int = 100) {
        info = ConnectionInfo(
            kind: kind, connectStart: Instant.now(), remote: Endpoint(address: 0x7f00_0001, port: 443))
        freeSlots = slots
    }

    func send(_ request: ClientRequest, _ events: @escaping (ClientEvent) -> Void) {
        freeSlots -= 1
        requests.append((request.path, events))
        sentPriorities[request.path] = request.priority
        sentIncremental[request.path] = request.incremental
    }
    func networkChanged(_ change: NetworkChange) {}
    func close() {
        isUsable = false
        info.closedAt = Instant.now()
    }
    var paths: [String] { requests.map(\.path) }

    /// The handshake is done: the connection says so to the loader.
    func ready() {
        info.connectEnd = Instant.now()
        info.handshakeEnd = Instant.now()
        info.alpn = "http/1.1"
        onStateChange?()
    }

    /// `path`'s whole response arrives at once, `bytes` of body; its slot is free before its end.
    func finish(_ path: String, bytes: Int) {
        let e = requests.first { $0.path == path }!.events
        let t = Instant.now()
        e(.sent(t))
        e(.head(status: 200, headers: [], t))
        e(.data(count: bytes, t))
        freeSlots += 1
        e(.end(t))
    }
}
