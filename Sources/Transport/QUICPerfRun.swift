import BenchCore
import SystemIO
import QUIC

/// What one perf client connection did (draft-banks-quic-performance-00, `QUICPerfClient`).
public struct QUICPerfResult: Sendable {
    public struct Request: Sendable {
        public var download: Int64
        public var upload: Int64
        /// Bytes the server sent back (equal to `download` when the request completed).
        public var received: Int64 = 0
        public var finishedAt: Instant?
        /// Why it failed (a stream reset, the connection's end, the timeout), nil when it completed.
        public var error: String?
    }
    public var start: Instant
    public var handshakeEnd: Instant?
    public var end: Instant
    public var requests: [Request]
    public var statistics: QUICStatistics?
    /// The connection's error, if it ended before every request finished.
    public var error: String?

    public var completed: Bool { error == nil && requests.allSatisfy { $0.error == nil && $0.received == $0.download } }
    public var bytesReceived: Int64 { requests.reduce(0) { $0 + $1.received } }
    public var bytesUploaded: Int64 { requests.reduce(0) { $0 + ($1.error == nil ? $1.upload : 0) } }
}

/// Runs perf requests on one QUIC connection to `remote`, all at once (one stream each), on
/// an event loop of its own, until every request finished, the connection ended, or `timeout`.
public enum QUICPerfRun {
    public static func run(
        remote: Endpoint, serverName: String, trustedRootsPEM: String, config: QUICConfiguration,
        requests: [(download: Int64, upload: Int64)], timeout: Nanoseconds
    ) throws -> QUICPerfResult {
        let loop = try EventLoop()
        let bindTo = Endpoint(
            address: remote.address == Endpoint.loopbackAddress ? Endpoint.loopbackAddress : 0, port: 0)
        let (fd, local) = try Socket.bindUDP(bindTo)
        defer { Socket.close(fd) }
        DatagramIO.prepare(fd)
        var io = DatagramIO()
        io.marksECN = config.ecn
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
        defer { buffer.deallocate() }
        let start = Instant.now()
        let client = try QUICPerfClient(
            config: config, trustedRootsPEM: trustedRootsPEM, serverName: serverName,
            local: local, remote: remote, now: start)
        var result = QUICPerfResult(
            start: start, end: start, requests: requests.map { .init(download: $0.download, upload: $0.upload) })
        for r in requests { client.request(download: r.download, upload: r.upload) }
        var open = requests.count
        var over = false

        func handle(_ events: [QUICPerfClient.Event], _ t: Instant) {
            for e in events {
                switch e {
                case .handshakeCompleted: result.handshakeEnd = client.handshakeCompletedAt ?? t
                case .started: break
                case .progress(let ticket, let n): result.requests[ticket].received += Int64(n)
                case .finished(let ticket, let received, _):
                    result.requests[ticket].received = received
                    result.requests[ticket].finishedAt = t
                    open -= 1
                case .reset(let ticket, let code):
                    result.requests[ticket].error = "the server reset the stream (application error \(code))"
                    open -= 1
                case .closed(let error):
                    result.error = "\(error)"
                    over = true
                }
            }
        }
        var timer: EventLoop.TimerID?
        func flush() {
            guard !over else { return }
            handle(
                client.writeBatched(now: Instant.now()) { bytes, segmentSize, to, _, ecn in
                    io.send(fd, bytes, segmentSize: segmentSize, to: to, ecn: ecn)
                }, Instant.now())
            loop.cancel(timer)
            if let e = client.expiry {
                timer = loop.schedule(at: e) {
                    timer = nil
                    handle(client.handleExpiry(now: Instant.now()), Instant.now())
                    flush()
                }
            }
        }
        try loop.register(fd, .read) { _ in
            DatagramIO.receive(fd, into: buffer) { datagram, from, arrival, ecn in
                let now = Instant.now()
                handle(client.receive(datagram, local: local, remote: from, now: now, arrival: arrival, ecn: ecn), now)
                return !over
            }
            flush()
        }
        defer { loop.unregister(fd) }
        flush()
        try loop.run(until: start + timeout) { over || open == 0 }
        result.end = Instant.now()
        result.statistics = client.statistics
        if open > 0 && result.error == nil { result.error = "timed out after \(Double(timeout) / 1e9) s" }
        for i in result.requests.indices where result.requests[i].finishedAt == nil && result.requests[i].error == nil {
            result.requests[i].error = result.error ?? "unfinished"
        }
        if !client.isClosed {
            client.close(now: Instant.now()) { bytes, to, _ in _ = try? Socket.sendDatagram(fd, bytes, to: to) }
        }
        return result
    }
}
