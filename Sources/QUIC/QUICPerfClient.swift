import BenchCore
internal import CNgtcp2

/// The QUIC performance protocol, draft-banks-quic-performance-00: ALPN "perf"; on each
/// client-opened bidirectional stream the client sends the number of bytes it wants back (8 bytes,
/// big-endian), then its upload, then FIN; the server drains the upload and sends that many bytes
/// and FIN. A server answers it when its `QUICConfiguration.alpn` is `QUICPerf.alpn`.
public enum QUICPerf {
    public static let alpn = "perf"
    public static let draft = "draft-banks-quic-performance-00"
    /// The application error a server resets a stream with when it ended before its 8-byte size.
    static let refusedCode: UInt64 = 1

    /// The 8-byte request header asking for `count` bytes.
    public static func encodeSize(_ count: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: count >> (56 - 8 * UInt64($0))) }
    }

    public static func decodeSize(_ bytes: [UInt8]) -> UInt64 {
        bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}

/// What a perf server's connections did, all together.
public struct QUICPerfServerCounters: Sendable, Equatable {
    /// Request streams answered (their FIN and 8-byte size arrived).
    public var streamsAnswered = 0
    /// Upload bytes drained (past the sizes), on bidirectional and unidirectional streams.
    public var bytesUploaded: Int64 = 0
    /// Response bytes asked for by the answered streams.
    public var bytesRequested: Int64 = 0

    public init() {}

    mutating func add(_ s: PerfServerStreams) {
        streamsAnswered += s.streamsAnswered
        bytesUploaded += s.uploadBytes
        bytesRequested += s.requestedBytes
    }
}

/// A perf client on one QUIC connection: each `request` becomes a stream as soon as the handshake
/// is done and the server's stream limit allows. Driven like `HTTP3Client` (`receive`, `write`,
/// `handleExpiry` at `expiry`), it does no I/O and keeps no received bytes, only their counts.
public final class QUICPerfClient {
    private let connection: QUICConnection
    private var pending: [(ticket: Int, download: Int64, upload: Int64)] = []
    private var nextTicket = 0
    private var streams: [Int64: PerfStream] = [:]
    private var events: [Event] = []

    struct PerfStream {
        let ticket: Int
        let expected: Int64
        var received: Int64 = 0
    }

    public enum Event: Sendable, Equatable {
        case handshakeCompleted
        /// Request `ticket` went out on `stream` (its size header queued).
        case started(ticket: Int, stream: Int64)
        /// Bytes of request `ticket` arrived (not yet complete).
        case progress(ticket: Int, bytes: Int)
        /// The server's FIN: `received` bytes in all (the request is correct when it equals `expected`).
        case finished(ticket: Int, received: Int64, expected: Int64)
        /// The server reset the request's stream.
        case reset(ticket: Int, code: UInt64)
        case closed(QUICError)
    }

    /// `config.alpn` is replaced by "perf".
    public init(
        config: QUICConfiguration, trustedRootsPEM: String, serverName: String,
        local: Endpoint, remote: Endpoint, now: Instant
    ) throws {
        var config = config
        config.alpn = QUICPerf.alpn
        let credentials = try ClientTLSCredentials.shared(trustedRootsPEM: trustedRootsPEM)
        connection = try QUICConnection.client(
            config: config, credentials: credentials, serverName: serverName,
            local: local, remote: remote, resumption: nil, now: now, rawStreams: true)
        connection.raw?.countOnly = true
    }

    /// Asks the server for `download` bytes on a new stream, after sending `upload` bytes; returns
    /// the request's ticket (events name it).
    @discardableResult
    public func request(download: Int64, upload: Int64) -> Int {
        precondition(download >= 0 && upload >= 0, "perf sizes are not negative")
        let t = nextTicket
        nextTicket += 1
        pending.append((t, download, upload))
        return t
    }

    /// Requests not yet on a stream (waiting for the handshake or the server's stream limit).
    public var waiting: Int { pending.count }
    /// Requests on a stream and not finished.
    public var inFlight: Int { streams.count }

    public func receive(
        _ datagram: UnsafeRawBufferPointer, local: Endpoint, remote: Endpoint, now: Instant,
        arrival: Instant? = nil, ecn: ECNCodepoint = .notECT
    ) -> [Event] {
        connection.receive(datagram, local: local, remote: remote, now: now, arrival: arrival, ecn: ecn)
        return takeEvents()
    }

    @discardableResult
    public func write(now: Instant, emit: (UnsafeRawBufferPointer, _ remote: Endpoint, _ local: Endpoint) -> Void)
        -> [Event]
    {
        openStreams()
        connection.write(now: now, emit: emit)
        return takeEvents()
    }

    /// Sends what there is to send, the datagrams of one path together (see `HTTP3Client.writeBatched`).
    @discardableResult
    public func writeBatched(
        now: Instant,
        emit: (
            UnsafeRawBufferPointer, _ segmentSize: Int, _ remote: Endpoint, _ local: Endpoint, _ ecn: ECNCodepoint
        ) -> Void
    ) -> [Event] {
        openStreams()
        connection.write(now: now, emit: emit)
        return takeEvents()
    }

    public var expiry: Instant? { connection.expiry }

    @discardableResult
    public func handleExpiry(now: Instant) -> [Event] {
        connection.handleExpiry(now: now)
        return takeEvents()
    }

    /// Sends CONNECTION_CLOSE and ends the connection.
    public func close(now: Instant, emit: (UnsafeRawBufferPointer, _ remote: Endpoint, _ local: Endpoint) -> Void) {
        connection.close(now: now, emit: emit)
        _ = connection.takeEvents()
        connection.state = .closed
    }

    public var isHandshakeComplete: Bool { connection.handshakeCompletedAt != nil }
    public var handshakeCompletedAt: Instant? { connection.handshakeCompletedAt }
    public var isClosed: Bool { connection.isClosed }
    public var statistics: QUICStatistics { connection.currentStatistics() }

    private func openStreams() {
        guard connection.isOpen, connection.handshakeCompletedAt != nil, let raw = connection.raw else { return }
        var opened = 0
        while opened < pending.count, ngtcp2_conn_get_streams_bidi_left(connection.conn) > 0 {
            let r = pending[opened]
            guard let id = try? connection.openRawStream(bidirectional: true) else { break }
            _ = raw.queue(id, QUICPerf.encodeSize(UInt64(r.download)), fin: false)
            _ = raw.queueFiller(id, r.upload, fin: true)
            streams[id] = PerfStream(ticket: r.ticket, expected: r.download)
            events.append(.started(ticket: r.ticket, stream: id))
            opened += 1
        }
        if opened > 0 { pending.removeFirst(opened) }
    }

    private func takeEvents() -> [Event] {
        if let raw = connection.raw, !raw.receivedCounts.isEmpty {
            // One progress event per request per call (bytes of many datagrams), then the finished ones.
            var progress: [Int: Int] = [:]
            var finished: [Event] = []
            for (stream, count, fin) in raw.receivedCounts {
                guard var s = streams[stream] else { continue }
                s.received += Int64(count)
                if fin {
                    streams[stream] = nil
                    progress[s.ticket] = nil
                    finished.append(.finished(ticket: s.ticket, received: s.received, expected: s.expected))
                } else {
                    streams[stream] = s
                    progress[s.ticket, default: 0] += count
                }
            }
            for (t, n) in progress.sorted(by: { $0.key < $1.key }) { events.append(.progress(ticket: t, bytes: n)) }
            events += finished
            raw.receivedCounts.removeAll(keepingCapacity: true)
        }
        for event in connection.takeEvents() {
            switch event {
            case .handshakeCompleted: events.append(.handshakeCompleted)
            case .streamReset(let stream, let code):
                if let s = streams.removeValue(forKey: stream) { events.append(.reset(ticket: s.ticket, code: code)) }
            case .closed(let error): events.append(.closed(error))
            case .headers, .request, .data, .streamEnd, .pathValidated, .resumptionReady: break
            }
        }
        if events.isEmpty { return [] }
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }
}
