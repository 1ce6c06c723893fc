import BenchCore
import SystemIO
import TLS

/// HTTP/1.1 and HTTP/2 over TLS on one TCP listener; ALPN picks the protocol per connection.
/// A failing connection (bad TLS, malformed HTTP) is closed alone; the server carries on.
public final class TCPServer {
    public let endpoint: Endpoint
    private let loop: EventLoop
    private let listener: FileDescriptor
    private let tlsContext: TLSServerContext
    private let handler: RequestHandler
    private var sessions: [Int32: AnyObject] = [:]
    private var isClosed = false
    public private(set) var counters = ServerCounters()

    /// How responses are cut into TLS records (`--tls-records`).
    public let tlsRecords: TLSRecordPolicy

    /// The listener's congestion control as the kernel reports it (getsockopt TCP_CONGESTION).
    public let congestionControl: String?
    /// Called with each accepted connection's congestion control, read back from its socket
    /// (a route's `congctl` could override the listener's).
    private let onAccept: ((String?) -> Void)?
    /// Called as each connection closes, with its peer and what the kernel's sender counted on it
    /// (retransmissions, the congestion state it ended in).
    public var onConnectionEnd: ((Endpoint, TCPSenderStatistics?) -> Void)?
    /// Late binding for HTTP/2 connections: at most this many bytes wait unsent in the kernel
    /// (TCP_NOTSENT_LOWAT), so stream priorities decide what is sent next (nil: off).
    public var unsentLimit: Int?

    /// `congestionControl` (e.g. "cubic") is set explicitly: a namespace's default may differ. A
    /// name the kernel refuses, or reports back differently, throws.
    public init(loop: EventLoop, endpoint: Endpoint, tls: TLSServerContext, congestionControl: String? = nil,
                tlsRecords: TLSRecordPolicy = .dynamic, onAccept: ((String?) -> Void)? = nil,
                handler: @escaping RequestHandler) throws {
        self.loop = loop
        self.tlsContext = tls
        self.tlsRecords = tlsRecords
        self.handler = handler
        self.onAccept = onAccept
        (listener, self.endpoint) = try Socket.listenTCP(on: endpoint, congestionControl: congestionControl)
        let inEffect = Socket.congestionControl(of: listener)
        if let wanted = congestionControl, inEffect != wanted {
            Socket.close(listener)
            throw BenchError.run("TCP congestion control '\(wanted)' requested on \(self.endpoint), the kernel reports '\(inEffect ?? "none")'")
        }
        self.congestionControl = inEffect
        try loop.register(listener, .read) { [weak self] _ in self?.acceptAll() }
    }

    deinit { close() }

    /// Closes once: `ServerHost` closes explicitly and `deinit` closes again, on the server thread,
    /// after the rest of netbench has carried on; a second close(2) would close whatever another
    /// thread had opened under the same number meanwhile.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        loop.unregister(listener)
        Socket.close(listener)
        for s in sessions.values { (s as? ServerSession)?.abort() }
        sessions.removeAll()
    }

    private func acceptAll() {
        while true {
            let accepted: (FileDescriptor, Endpoint)?
            do { accepted = try Socket.accept(listener) } catch { return }
            guard let (fd, peer) = accepted else { return }
            counters.connectionsAccepted += 1
            onAccept?(Socket.congestionControl(of: fd))
            do {
                try Socket.apply(.init(noDelay: true), to: fd)
                let tls = try TLSConnection(server: tlsContext)
                let stream = try SecureStream(fd: fd, loop: loop, tls: tls, connecting: false)
                stream.recordSizer = TLSRecordSizer(policy: tlsRecords)
                if let report = onConnectionEnd {
                    stream.beforeClose = { fd in report(peer, Socket.senderStatistics(of: fd)) }
                }
                let key = fd.rawValue
                let holder = PendingSession(stream: stream)
                sessions[key] = holder
                stream.onHandshake = { [weak self, unowned stream] _ in
                    guard let self else { return }
                    let session: ServerSession
                    if stream.tls.negotiatedALPN == "h2" {
                        guard let h2 = try? H2ServerSession(stream: stream, loop: self.loop, handler: self.handler, counters: { [weak self] f in if let self { f(&self.counters) } }) else {
                            stream.abort("HTTP/2 session setup failed"); return
                        }
                        session = h2
                        if let limit = self.unsentLimit { stream.limitUnsent(to: limit) }
                    } else {
                        session = H1ServerSession(stream: stream, loop: self.loop, handler: self.handler, counters: { [weak self] f in if let self { f(&self.counters) } })
                    }
                    self.sessions[key] = session
                }
                stream.onClose = { [weak self] reason in
                    guard let self else { return }
                    if self.sessions[key] is PendingSession, reason != nil { self.counters.handshakeFailures += 1 }
                    self.sessions[key] = nil
                }
            } catch {
                Socket.close(fd)
            }
        }
    }
}

protocol ServerSession: AnyObject { func abort() }

private final class PendingSession: ServerSession {
    let stream: SecureStream
    init(stream: SecureStream) { self.stream = stream }
    func abort() { stream.abort() }
}

typealias CounterUpdate = ((inout ServerCounters) -> Void) -> Void
