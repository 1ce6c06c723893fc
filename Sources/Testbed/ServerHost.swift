import Foundation
import BenchCore
import BenchModel
import Runner
import SystemIO
import Transport
import Replay
import TLS
import QUIC
import Synchronization

/// The replay servers of a block of runs, on a thread of their own with their own event loop:
/// for every scenario one TCP listener (h1 + h2 by ALPN) unless `withTCP` is false (an h3-only
/// plan: then no TCP socket and no TCP_CONGESTION), and, when QUIC is wanted, one UDP one (h3).
/// Sockets are created inside `namespace` when given (the emulated network's server side).
public final class ServerHost: @unchecked Sendable {
    public struct Endpoints: Sendable {
        public var tcp: Endpoint?
        public var udp: Endpoint?
        public init(tcp: Endpoint?, udp: Endpoint?) { self.tcp = tcp; self.udp = udp }
    }

    private var thread: Thread?
    private let started = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private var stopFlag: StopFlag?
    private var startError: Error?
    public private(set) var endpoints: [Endpoints] = []
    /// The TCP listeners' congestion control as the kernel reports it (nil without TCP).
    public private(set) var tcpCongestionControl: String?
    /// Congestion control read back from each connection accepted since the last `takeAcceptedCongestionControls`.
    private let accepted = Mutex<Set<String>>([])
    /// What the servers note while answering; the answering closures hold it, not `self`.
    private let answers = AnswerLog()
    /// The listeners' counters summed, once the server has stopped (nil before).
    public private(set) var finalCounters: ServerCounters?
    /// What the kernel's TCP sender counted on each connection that closed since the last
    /// `takeSenderStatistics`, by the client's address ("a.b.c.d:port").
    private let senderStatistics = Mutex<[String: TCPSenderStatistics]>([:])
    /// The server thread's CPU clock, captured when it starts.
    private let cpuClock = Mutex<ThreadCPUClock?>(nil)

    /// CPU time of the server thread so far (nil if its clock is not known).
    public var cpuMs: Double? { cpuClock.withLock { $0 }?.readMs() }

    /// The congestion control algorithms of the connections accepted since the last call ("unknown"
    /// where getsockopt failed), sorted; the set starts empty again.
    public func takeAcceptedCongestionControls() -> [String] {
        accepted.withLock { s in
            defer { s.removeAll() }; return s.sorted()
        }
    }

    /// The requests answered 404 since the last call (`host path`, in order); the list starts empty again.
    public func takeNotFound() -> [String] {
        answers.notFound.withLock { s in
            defer { s.removeAll() }; return s
        }
    }

    /// The requests that came with a body since the last call (bulk uploads left out), in order; the
    /// list starts empty again.
    public func takeRequestBodies() -> [String] {
        answers.requestBodies.withLock { s in
            defer { s.removeAll() }; return s
        }
    }

    /// What the servers note while answering. A class of its own, held strongly by the answering
    /// closures: they took `[weak self]` before, a weak load per request, and the weak reference moved
    /// the host's reference counts to a side table (callgrind of `serve` under h2load: ~250
    /// instructions a request).
    final class AnswerLog: Sendable {
        /// Requests answered 404 (not in the scenario) since the last `takeNotFound`, as `host path`
        /// (`METHOD host path` for methods other than GET and HEAD).
        let notFound = Mutex<[String]>([])
        /// Requests with a body since the last `takeRequestBodies`, as `METHOD host path: N bytes`.
        let requestBodies = Mutex<[String]>([])

        /// Answers from the catalog, noting each request that is not in the scenario and each that sent a body.
        func respond(_ catalog: CatalogBox, _ request: ServerRequest) -> ServerResponse {
            let response = catalog.value.respond(to: request)
            if request.bodyBytes > 0, request.path != Scenario.bulkPath {
                let line = "\(request.method) \(request.authority) \(request.path): \(request.bodyBytes) bytes"
                requestBodies.withLock { if $0.count < ServerHost.notFoundKept { $0.append(line) } }
            }
            if response.status == 404 {
                let method = request.method == "GET" || request.method == "HEAD" ? "" : request.method + " "
                notFound.withLock {
                    if $0.count < ServerHost.notFoundKept { $0.append(method + request.authority + " " + request.path) }
                }
            }
            return response
        }
    }

    /// How many 404s a run keeps (a page that asks for thousands of missing URLs stays small).
    static let notFoundKept = 1000

    /// The server side's TCP statistics of the connections from `peers` (client addresses), taken
    /// out of the store: waits up to `patience` for connections the client has closed but the
    /// server thread has not yet seen close. Peers still missing then are left out (unknown).
    public func takeSenderStatistics(for peers: Set<String>, patience: Nanoseconds = .milliseconds(300)) -> [String:
        TCPSenderStatistics]
    {
        let deadline = Instant.now() + patience
        while true {
            let complete = senderStatistics.withLock { s in peers.allSatisfy { s[$0] != nil } }
            if complete || Instant.now() >= deadline { break }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return senderStatistics.withLock { s in
            defer { s.removeAll() }
            return s.filter { peers.contains($0.key) }
        }
    }

    /// Starts serving; returns once every listener is bound (or throws what went wrong).
    /// `port` applies to the first scenario (0: any free port; `netbench serve` passes the one asked for).
    public init(
        scenarios: [Scenario], credentials: RunCredentials, address: UInt32, port: UInt16 = 0, namespace: String?,
        withTCP: Bool = true, withQUIC: Bool, options: ServerOptions = ServerOptions()
    ) throws {
        let thread = Thread { [self, scenarios, credentials] in
            self.serve(
                scenarios: scenarios, credentials: credentials, address: address, port: port, namespace: namespace,
                withTCP: withTCP, withQUIC: withQUIC, options: options)
        }
        self.thread = thread
        thread.name = "netbench-server"
        thread.stackSize = 4 << 20
        thread.start()
        started.wait()
        if let e = startError { finished.wait(); throw e }
    }

    public struct ServerOptions: Sendable {
        /// TLS version, record sizing, late binding, and congestion control (the TCP listener's,
        /// which accepted sockets inherit, and QUIC's): what `run` and `serve` share.
        public var settings: ServerSettings
        public var keyLogFile: String?
        /// The QUIC listener's configuration; its congestion control is `settings`'.
        public var quic: QUICConfiguration
        /// ALPN the TCP listener offers, in preference order.
        public var alpn: [String]
        /// Browsers get real pages (HTML, CSS, JavaScript referencing the children; `PageRenderer`).
        public var renderPages = false
        /// With TCP and QUIC on one port: advertise h3 on the TCP responses (`Alt-Svc`).
        public var advertiseHTTP3 = false
        /// Advertise h3 to browsers (`ReplayCatalog.browserAltSvc`) on whatever protocol they use: they
        /// are held to one protocol by their flags, and an h3 browser then knows its origins as
        /// QUIC-capable, as it would have learned them from a real site (runs with browsers and h3).
        public var advertiseHTTP3ToBrowsers = false
        /// What one client may cost (connections, timeouts, HTTP/2 floods); the QUIC listener
        /// takes its connection, handshake and header-list limits (its timeouts stay `quic`'s).
        public var limits = ServerLimits()
        /// Per scenario: what `GET /.well-known/netbench` answers (`netbench serve`); nil: a 404 there.
        public var descriptions: [ServerDescription]? = nil
        public init(
            settings: ServerSettings = ServerSettings(), keyLogFile: String? = nil,
            quic: QUICConfiguration = QUICConfiguration(), alpn: [String] = ["h2", "http/1.1"]
        ) {
            self.settings = settings; self.keyLogFile = keyLogFile; self.quic = quic; self.alpn = alpn
        }
    }

    private func serve(
        scenarios: [Scenario], credentials: RunCredentials, address: UInt32, port: UInt16, namespace: String?,
        withTCP: Bool, withQUIC: Bool, options: ServerOptions
    ) {
        var servers: [AnyObject] = []
        let loop: EventLoop
        cpuClock.withLock { $0 = ThreadCPUClock.current() }
        do {
            if let namespace { try NetworkNamespace.enter(namespace) }
            loop = try EventLoop()
            var config = TLSServerConfiguration(identities: credentials.identities, alpn: options.alpn)
            if let v = options.settings.tlsVersion { config.force(v) }
            config.keyLogFile = options.keyLogFile
            let tls = try TLSServerContext(config)
            for (i, s) in scenarios.enumerated() {
                // Rendered pages name their URLs' port, known once the first listener is bound.
                let catalog = CatalogBox(ReplayCatalog(scenario: s))
                let listen = Endpoint(address: address, port: i == 0 ? port : 0)
                var tcpEndpoint: Endpoint?
                if withTCP {
                    let tcp = try TCPServer(
                        loop: loop, endpoint: listen, tls: tls,
                        congestionControl: options.settings.tcpCongestionControl,
                        tlsRecords: options.settings.tlsRecords, limits: options.limits,
                        onAccept: { [weak self] cc in _ = self?.accepted.withLock { $0.insert(cc ?? "unknown") } }
                    ) { [answers] in answers.respond(catalog, $0) }
                    tcp.onConnectionEnd = { [weak self] peer, statistics in
                        guard let statistics else { return }
                        self?.senderStatistics.withLock { $0[peer.description] = statistics }
                    }
                    tcp.unsentLimit = options.settings.lateBinding.unsentLimit
                    servers.append(tcp)
                    tcpCongestionControl = tcp.congestionControl
                    tcpEndpoint = tcp.endpoint
                    if options.renderPages {
                        catalog.value = ReplayCatalog(scenario: s, renderingPagesFor: tcp.endpoint.port)
                    }
                }
                var udpEndpoint: Endpoint?
                if withQUIC {
                    // h3 shares the TCP listener's port number when there is one, as real sites do.
                    let udpListen = Endpoint(address: address, port: tcpEndpoint?.port ?? listen.port)
                    udpEndpoint = try startQUIC(
                        loop: loop, endpoint: udpListen, credentials: credentials, options: options, catalog: catalog,
                        servers: &servers)
                    if options.advertiseHTTP3, tcpEndpoint != nil, let udp = udpEndpoint {
                        catalog.value.altSvc = "h3=\":\(udp.port)\"; ma=86400"
                    }
                    if options.renderPages, tcpEndpoint == nil, let udp = udpEndpoint {
                        catalog.value = ReplayCatalog(scenario: s, renderingPagesFor: udp.port)
                    }
                    if options.advertiseHTTP3ToBrowsers, let udp = udpEndpoint {
                        catalog.value.browserAltSvc = "h3=\":\(udp.port)\"; ma=86400"
                    }
                }
                if let d = options.descriptions, i < d.count { catalog.value.serverDescription = d[i] }
                endpoints.append(Endpoints(tcp: tcpEndpoint, udp: udpEndpoint))
            }
        } catch {
            startError = error
            started.signal()
            finished.signal()
            return
        }
        stopFlag = loop.stopper
        started.signal()
        do { try loop.run() } catch { /* a failing loop ends the servers; runs then fail to connect */  }
        var total = ServerCounters()
        for s in servers {
            if let t = s as? TCPServer { t.close(); total.add(t.counters) }
            if let q = s as? QUICServerEndpoint { q.close(); total.add(q.counters) }
        }
        finalCounters = total
        finished.signal()
    }

    private func startQUIC(
        loop: EventLoop, endpoint: Endpoint, credentials: RunCredentials, options: ServerOptions,
        catalog: CatalogBox, servers: inout [AnyObject]
    ) throws -> Endpoint? {
        let creds = credentials.identities.map {
            QUICServerCredentials(certificateChainPEM: $0.certificateChainPEM, privateKeyPEM: $0.privateKeyPEM)
        }
        var config = options.quic
        config.congestionControl = options.settings.quicCongestionControl
        if let size = options.settings.quicUDPPayload { config.fixedUDPPayloadSize = size }
        config.pacing = options.settings.quicPacing
        config.maxConnections = options.limits.maxConnections
        config.maxPendingHandshakes = options.limits.maxPendingHandshakes
        config.maxHeaderListSize = options.limits.maxHeaderListSize
        if config.diagnostics == nil, let path = options.keyLogFile {
            config.diagnostics = try DiagnosticFiles(qlogDirectory: nil, keyLogPath: path)
        }
        let udp = try QUICServerEndpoint(
            loop: loop, endpoint: endpoint, credentials: creds,
            config: config
        ) { [answers] in answers.respond(catalog, $0) }
        servers.append(udp)
        return udp.endpoint
    }

    /// Stops the servers and waits for the thread to end.
    public func stop() {
        guard let f = stopFlag else { return }
        stopFlag = nil
        f.set()
        finished.wait()
    }

    deinit { stop() }
}

/// The catalog a scenario's listeners answer from (replaced once, on the server thread, before
/// the first request).
final class CatalogBox {
    var value: ReplayCatalog
    init(_ value: ReplayCatalog) { self.value = value }
}

/// The certificate authority of one `netbench run` and a leaf per origin host.
public struct RunCredentials: Sendable {
    public var caPEM: String
    public var identities: [PEMIdentity]
    /// Clients trust the system store (`run --server` without `--ca`): TCP through OpenSSL's default
    /// verify paths, QUIC through `caPEM`, which then holds the default CA file's certificates.
    public var systemRoots = false

    /// A client-only set (`run --server`): trust these roots; no identities to serve.
    public init(caPEM: String) { self.caPEM = caPEM; identities = [] }

    /// A client-only set that trusts the system store (`SystemTrustStore`).
    public static func systemStore() throws -> RunCredentials {
        var c = RunCredentials(caPEM: try SystemTrustStore.defaultFilePEM())
        c.systemRoots = true
        return c
    }

    /// The user's own certificate and key (`netbench serve --cert --key`): served for every name; no CA.
    public init(identity: PEMIdentity) { caPEM = ""; identities = [identity] }

    public init(hosts: [String]) throws {
        let ca = try CertificateAuthority(commonName: "netbench run CA")
        caPEM = ca.certificatePEM
        // First = default: clients that send no SNI (connecting by IP address, as external tools may).
        var ids: [PEMIdentity] = [try ca.issue(hostNames: ["localhost", "127.0.0.1", "198.18.0.1"])]
        var seen = Set<String>()
        for h in hosts where seen.insert(h.lowercased()).inserted {
            ids.append(try ca.issue(hostNames: [h]))
        }
        identities = ids
    }
}
