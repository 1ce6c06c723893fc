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
/// `runHTTP3` does the same over HTTP/3 (GETs of one path), for a comparison over one link.
public enum QUICPerfRun {
    public static func run(
        remote: Endpoint, serverName: String, trustedRootsPEM: String, config: QUICConfiguration,
        requests: [(download: Int64, upload: Int64)], timeout: Nanoseconds
    ) throws -> QUICPerfResult {
        let d = try UDPDriver(remote: remote, config: config)
        let client = try QUICPerfClient(
            config: config, trustedRootsPEM: trustedRootsPEM, serverName: serverName,
            local: d.local, remote: remote, now: d.start)
        var result = QUICPerfResult(
            start: d.start, end: d.start, requests: requests.map { .init(download: $0.download, upload: $0.upload) })
        for r in requests { client.request(download: r.download, upload: r.upload) }
        var open = requests.count
        var over = false
        func handle(_ events: [QUICPerfClient.Event]) {
            let t = Instant.now()
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
        try d.run(
            receive: { datagram, from, arrival, ecn in
                handle(client.receive(datagram, local: d.local, remote: from, now: Instant.now(), arrival: arrival,
                    ecn: ecn))
            },
            write: { emit in handle(client.writeBatched(now: Instant.now(), emit: emit)) },
            expiry: { client.expiry }, handleExpiry: { handle(client.handleExpiry(now: $0)) },
            done: { over || open == 0 }, timeout: timeout)
        result.statistics = client.statistics
        finish(&result, open: open, timeout: timeout)
        if !client.isClosed { client.close(now: Instant.now()) { bytes, to, _ in d.send(bytes, to: to) } }
        return result
    }

    /// `requests.count` GETs of `path` at once over HTTP/3, each expected to bring `download` bytes.
    public static func runHTTP3(
        remote: Endpoint, serverName: String, trustedRootsPEM: String, config: QUICConfiguration,
        path: String, requests: [Int64], timeout: Nanoseconds
    ) throws -> QUICPerfResult {
        let d = try UDPDriver(remote: remote, config: config)
        var h3config = config
        h3config.alpn = "h3"
        let client = try HTTP3Client(
            config: h3config, trustedRootsPEM: trustedRootsPEM, serverName: serverName,
            local: d.local, remote: remote, resumption: nil, now: d.start)
        var result = QUICPerfResult(
            start: d.start, end: d.start, requests: requests.map { .init(download: $0, upload: 0) })
        var tickets: [Int64: Int] = [:]
        for i in requests.indices {
            tickets[try client.submitRequest(authority: "\(serverName):\(remote.port)", path: path)] = i
        }
        var open = requests.count
        var over = false
        func handle(_ events: [HTTP3ClientEvent]) {
            let t = Instant.now()
            for e in events {
                switch e {
                case .handshakeCompleted: result.handshakeEnd = client.handshakeCompletedAt ?? t
                case .response(let id, let status, _):
                    if status != 200, let i = tickets[id] { result.requests[i].error = "HTTP status \(status)" }
                case .data(let id, let n): if let i = tickets[id] { result.requests[i].received += Int64(n) }
                case .responseEnd(let id):
                    if let i = tickets.removeValue(forKey: id) { result.requests[i].finishedAt = t; open -= 1 }
                case .streamReset(let id, let code):
                    if let i = tickets.removeValue(forKey: id) {
                        result.requests[i].error = "the server reset the stream (HTTP/3 error \(code))"
                        open -= 1
                    }
                case .closed(let error):
                    result.error = "\(error)"
                    over = true
                case .pathValidated, .resumptionStateAvailable: break
                }
            }
        }
        try d.run(
            receive: { datagram, from, arrival, ecn in
                handle(client.receive(datagram, local: d.local, remote: from, now: Instant.now(), arrival: arrival,
                    ecn: ecn))
            },
            write: { emit in handle(client.writeBatched(now: Instant.now(), emit: emit)) },
            expiry: { client.expiry }, handleExpiry: { handle(client.handleExpiry(now: $0)) },
            done: { over || open == 0 }, timeout: timeout)
        result.statistics = client.statistics
        finish(&result, open: open, timeout: timeout)
        if !client.isClosed { client.close(now: Instant.now()) { bytes, to, _ in d.send(bytes, to: to) } }
        return result
    }

    private static func finish(_ result: inout QUICPerfResult, open: Int, timeout: Nanoseconds) {
        result.end = Instant.now()
        if open > 0 && result.error == nil { result.error = "timed out after \(Double(timeout) / 1e9) s" }
        for i in result.requests.indices where result.requests[i].finishedAt == nil && result.requests[i].error == nil {
            result.requests[i].error = result.error ?? "unfinished"
        }
    }
}

/// One client UDP socket and the event loop that drives a QUIC engine on it.
private final class UDPDriver {
    let loop: EventLoop
    let fd: FileDescriptor
    let local: Endpoint
    let start: Instant
    private var io = DatagramIO()
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
    private var timer: EventLoop.TimerID?

    init(remote: Endpoint, config: QUICConfiguration) throws {
        loop = try EventLoop()
        let bindTo = Endpoint(
            address: remote.address == Endpoint.loopbackAddress ? Endpoint.loopbackAddress : 0, port: 0)
        (fd, local) = try Socket.bindUDP(bindTo)
        DatagramIO.prepare(fd)
        io.marksECN = config.ecn
        start = Instant.now()
    }

    deinit {
        loop.unregister(fd)
        Socket.close(fd)
        buffer.deallocate()
    }

    func send(_ bytes: UnsafeRawBufferPointer, to: Endpoint) { _ = try? Socket.sendDatagram(fd, bytes, to: to) }

    typealias Emit = (UnsafeRawBufferPointer, Int, Endpoint, Endpoint, ECNCodepoint) -> Void

    func run(
        receive: @escaping (UnsafeRawBufferPointer, Endpoint, Instant?, ECNCodepoint) -> Void,
        write: @escaping (Emit) -> Void, expiry: @escaping () -> Instant?,
        handleExpiry: @escaping (Instant) -> Void, done: @escaping () -> Bool, timeout: Nanoseconds
    ) throws {
        func flush() {
            guard !done() else { return }
            write { bytes, segmentSize, to, _, ecn in
                self.io.send(self.fd, bytes, segmentSize: segmentSize, to: to, ecn: ecn)
            }
            loop.cancel(timer)
            if let e = expiry() {
                timer = loop.schedule(at: e) { [unowned self] in
                    self.timer = nil
                    handleExpiry(Instant.now())
                    flush()
                }
            }
        }
        try loop.register(fd, .read) { [unowned self] _ in
            DatagramIO.receive(self.fd, into: self.buffer) { datagram, from, arrival, ecn in
                receive(datagram, from, arrival, ecn)
                return !done()
            }
            flush()
        }
        flush()
        try loop.run(until: start + timeout, done: done)
        loop.cancel(timer)
    }
}
