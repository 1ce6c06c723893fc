import BenchCore
import SystemIO
import QUIC

/// HTTP/3 on one UDP socket: the QUIC engine routes datagrams to connections; requests go to the
/// same handler as h1/h2, answered after their think time. Bad datagrams never stop the server.
public final class QUICServerEndpoint {
    public let endpoint: Endpoint
    private let loop: EventLoop
    private let fd: FileDescriptor
    private let server: HTTP3Server
    private let handler: RequestHandler
    private var timer: EventLoop.TimerID?
    private var buffer: UnsafeMutableRawBufferPointer
    private var isClosed = false
    /// A response was submitted since the last write pass: `flush` writes again (one pass per batch
    /// of requests, not one per request).
    private var submitted = false
    private var io = DatagramIO()
    public private(set) var counters = ServerCounters()
    /// Path changes the server saw (migration, NAT rebinding), for tests and results.
    public private(set) var pathChanges: [(at: Instant, remote: Endpoint)] = []
    /// ECN codepoints of every datagram the socket received (all connections).
    public private(set) var ecnReceived = ECNCounts()
    /// Perf protocol totals when the configuration's ALPN is "perf".
    public var perfCounters: QUICPerfServerCounters { server.perfCounters }

    public init(
        loop: EventLoop, endpoint: Endpoint, credentials: [QUICServerCredentials], config: QUICConfiguration,
        handler: @escaping RequestHandler
    ) throws {
        self.loop = loop
        self.handler = handler
        (fd, self.endpoint) = try Socket.bindUDP(endpoint)
        DatagramIO.prepare(fd)
        io.marksECN = config.ecn
        buffer = .allocate(byteCount: 65536, alignment: 16)
        do {
            server = try HTTP3Server(config: config, credentials: credentials, now: Instant.now())
            try loop.register(fd, .read) { [weak self] _ in self?.readable() }
        } catch {
            Socket.close(fd)
            buffer.deallocate()
            throw error
        }
    }

    deinit {
        close()
        buffer.deallocate()
    }

    public func close() {
        guard !isClosed else { return }
        isClosed = true
        loop.cancel(timer)
        loop.unregister(fd)
        Socket.close(fd)
    }

    private func readable() {
        // Established connections' sends before handshakes: a long-header datagram (Initial,
        // Handshake) costs key agreement and a signature; what the datagrams before it released
        // (ACKs that open a window, requests) leaves first, as the kernel clocks TCP's data out
        // while the server thread computes other handshakes.
        var sinceFlush = false
        DatagramIO.receive(fd, into: buffer) { datagram, from, arrival, ecn in
            guard !isClosed else { return false }
            let longHeader = datagram.first.map { $0 & 0x80 != 0 } ?? false
            if longHeader && sinceFlush {
                flush()
                sinceFlush = false
                guard !isClosed else { return false }
            }
            handle(
                server.receive(datagram, local: endpoint, remote: from, now: Instant.now(), arrival: arrival, ecn: ecn))
            ecnReceived.count(ecn)
            if !longHeader { sinceFlush = true }
            return !isClosed
        }
        counters.connectionsRefused = server.initialsDropped
        counters.retriesSent = server.retriesSent
        counters.retriesValidated = server.retriesValidated
        flush()
    }

    private func flush() {
        guard !isClosed else { return }
        repeat {
            submitted = false
            handle(
                server.writeBatched(now: Instant.now()) { [fd] bytes, segmentSize, remote, _, ecn in
                    io.send(fd, bytes, segmentSize: segmentSize, to: remote, ecn: ecn)
                })
        } while submitted && !isClosed
        loop.cancel(timer)
        if let e = server.expiry {
            timer = loop.schedule(at: e) { [weak self] in
                guard let self, !self.isClosed else { return }
                self.timer = nil
                self.handle(self.server.handleExpiry(now: Instant.now()))
                self.flush()
            }
        }
    }

    private func handle(_ events: [HTTP3ServerEvent]) {
        for e in events {
            switch e {
            case .connectionOpened:
                counters.connectionsAccepted += 1
            case .request(let conn, let stream, let method, let authority, let path, let headers, let bodyBytes):
                counters.requests += 1
                let response = handler(
                    ServerRequest(
                        method: method, path: path, authority: hostOnly(authority),
                        headers: headers, httpProtocol: "h3", bodyBytes: bodyBytes))
                let submit = { [weak self] in
                    guard let self, !self.isClosed else { return }
                    do {
                        try self.server.submitResponse(
                            connection: conn, stream: stream, status: response.status,
                            headers: response.headers, bodyLength: response.bodyLength,
                            prefix: response.prefix, suffix: response.suffix)
                        self.counters.bodyBytesSent += response.bodyLength
                    } catch { /* the client went away meanwhile */  }
                    self.submitted = true
                }
                // Every caller of `handle` flushes after it; a delayed answer flushes itself.
                if response.delay > 0 {
                    loop.schedule(after: response.delay) { [weak self] in
                        submit(); self?.flush()
                    }
                } else {
                    submit()
                }
            case .pathChanged(_, _, let remote):
                pathChanges.append((Instant.now(), remote))
            case .connectionClosed(_, .http3?):
                // The peer's HTTP/3 was refused (a QPACK bomb past --max-header-list, broken frames).
                counters.malformed += 1
            case .handshakeCompleted, .connectionClosed:
                break
            }
        }
    }
}
