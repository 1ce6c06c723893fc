import BenchCore
import BenchModel
import Transport

/// A browser-like page loader: fetches the root document, discovers each child when its parent has
/// revealed it (after N body bytes or at the parent's end), and dispatches requests the way browsers
/// do — HTTP/1.1 with at most 6 connections per origin, HTTP/2 and HTTP/3 with one connection per
/// origin — in the priority order Chromium gives the resources, which HTTP/2 and HTTP/3 also put
/// on the wire as Chromium does.
///
/// `DispatchPolicy` decides what goes when, and on which connection. The loader owns the
/// connections, turns their events into the policy's inputs and the requests' timestamps, and
/// reads the monotonic clock once per event: that `now` is what it passes down.
/// `PageLoadRecords` turns what it kept into the results records.
public final class PageLoader {
    /// Opens a connection to an origin from `localAddress` (nil: any); the runner decides endpoints,
    /// TLS and namespaces.
    public typealias Connector = (_ origin: Scenario.Origin, _ localAddress: UInt32?) throws -> ClientConnection

    private let scenario: Scenario
    private let kind: TransportKind
    private let connector: Connector
    private var policy: DispatchPolicy
    private var log = RequestLog()
    /// The connections opened, in the order of `policy.connections` (which holds one more when a
    /// connect failed: that ends the load).
    private var connections: [ClientConnection] = []
    /// The connections that have carried a request: the first one on each is charged its setup.
    private var usedConnections = Set<Int>()
    private(set) public var navigationStart = Instant(nanoseconds: 0)
    private(set) public var failure: String?
    /// The client's address for new connections; changes when the network does.
    public private(set) var localAddress: UInt32?
    /// After a network change, requests on lost connections are sent again (a range request for
    /// what is missing) instead of failing the run.
    public var recoversFromConnectionLoss = false
    /// Rate of the path after the change, for the recovery time (bit/s).
    public var recoveryRateBitsPerSecond: Double?
    /// When the network changed (whether or not the client was told: a NAT rebinding is silent).
    private var pathEvents: [Instant] = []
    /// Every arrival of body bytes, for stall and recovery.
    private var arrivals: [BodyArrival] = []

    public init(scenario: Scenario, kind: TransportKind, localAddress: UInt32? = nil, connector: @escaping Connector) {
        self.scenario = scenario
        self.localAddress = localAddress
        self.kind = kind
        self.connector = connector
        policy = .chromium(scenario, kind: kind)
    }

    /// The priority Chromium gives the resource: `DispatchPolicy.priority(_:parent:)`.
    static func priority(_ r: Scenario.Resource, parent: Scenario.Resource?) -> RequestPriority {
        DispatchPolicy.priority(r, parent: parent)
    }

    public var isFinished: Bool { failure != nil || policy.endedCount == scenario.resources.count }

    /// Starts the navigation: the root document is queued now.
    public func start() {
        let now = Instant.now()
        navigationStart = now
        guard let root = scenario.root else { failure = "scenario has no root document"; return }
        if policy.discover(root) { log.append(RequestProgress(resource: root, queued: now)) }
        dispatch(now: now)
    }

    /// Stops with a failure (timeout, emulator error); open connections are closed.
    public func abort(_ reason: String) {
        if failure == nil { failure = reason }
        for c in connections { c.close() }
    }

    public func closeConnections() { for c in connections { c.close() } }

    /// The client's network changed: new connections use `change.localAddress`; open ones react
    /// (QUIC migrates or rebinds, TCP may be aborted and its requests sent again).
    public func networkChanged(_ change: NetworkChange) {
        let now = Instant.now()
        pathEvents.append(now)
        localAddress = change.localAddress
        recoversFromConnectionLoss = true
        for c in connections where c.isUsable { c.networkChanged(change) }
        dispatch(now: now)
    }

    /// Connection loss after an outage, a NAT rebinding or a silent path death (TCP user timeout)
    /// is recoverable too.
    public func expectNetworkTrouble() {
        recoversFromConnectionLoss = true
    }

    /// The network changed without the client being told (NAT rebinding, outage): only noted, for
    /// the migration metrics.
    public func networkEventObserved() {
        pathEvents.append(Instant.now())
    }

    // MARK: Dispatch

    /// Sends what the policy lets go now, opening the connections it asks for.
    private func dispatch(now: Instant) {
        while failure == nil, let send = policy.nextSend(now: now, status: status(of:)) {
            if send.opensConnection && !open(send.origin) { return }
            if let id = send.id { transmit(id, on: send.connection) }
        }
    }

    private func status(of i: Int) -> DispatchPolicy.Status {
        guard i < connections.count else { return .init(isUsable: false, freeSlots: 0) }
        let c = connections[i]
        return .init(isUsable: c.isUsable, freeSlots: c.freeSlots, isReady: c.info.handshakeEnd != nil)
    }

    /// Opens the connection the policy added; a failure to connect ends the load.
    private func open(_ originID: String) -> Bool {
        guard let origin = scenario.origin(id: originID) else { return false }
        do {
            let conn = try connector(origin, localAddress)
            conn.onStateChange = { [weak self] in self?.connectionChanged() }
            connections.append(conn)
            return true
        } catch {
            abort("connect to \(origin.host): \(error)")
            return false
        }
    }

    /// A connection became ready, freed a slot or closed (having failed its requests through their
    /// events): what is still pending may go now.
    private func connectionChanged() {
        dispatch(now: Instant.now())
    }

    private func transmit(_ id: String, on connection: Int) {
        // The connection's setup is the request's only if it is the first on it and began after the
        // request was queued (late binding may give it a connection opened for another one).
        let first = usedConnections.insert(connection).inserted
        let fresh = first && log[id].map { connections[connection].info.connectStart >= $0.queued } ?? false
        log.update(id) { $0.start(on: connection, fresh: fresh) }
        guard let p = log[id] else { return }
        let r = p.resource
        let host = scenario.origin(id: r.origin)?.host ?? r.origin
        var request = ClientRequest(
            method: r.httpMethod, authority: host, path: r.path, priority: policy.priority(of: id))
        request.incremental = r.chromiumIncremental
        if let b = r.requestBody {
            request.setBody(b.bytes)
            if let t = b.contentType { request.headers.append(("content-type", t)) }
        }
        if p.bytes > 0 { request.headers.append(("Range", "bytes=\(p.bytes)-")) }
        if let bulk = scenario.bulk, bulk.direction == .upload, r.path == Scenario.bulkPath {
            request.method = "POST"
            request.bodyLength = bulk.bytes
        }
        let attempt = p.attempts
        connections[connection].send(request) { [weak self] event in
            // Events of a superseded attempt (a connection that failed late) are ignored.
            guard let self, self.log.attempts(of: id) == attempt else { return }
            self.handle(event, for: id, now: Instant.now())
        }
    }

    // MARK: Events

    private func handle(_ event: ClientEvent, for id: String, now: Instant) {
        guard !policy.hasEnded(id) else { return }
        switch event {
        case .sent(let t):
            log.update(id) { $0.sent = t }
        case .head(let status, _, let t):
            log.update(id) { $0.received(status: status, at: t) }
            policy.responseBegan(id)
        case .data(let count, let t):
            arrivals.append(BodyArrival(at: t, bytes: count))
            log.update(id) { $0.received(count, at: t) }
            policy.responseBegan(id)
            reveal(childrenOf: id, at: t, final: false, now: now)
        case .end(let t):
            ended(id, at: t, now: now)
        case .failed(let reason, let t):
            failed(id, reason: reason, at: t, now: now)
        }
    }

    private func ended(_ id: String, at t: Instant, now: Instant) {
        log.update(id) { $0.ended(at: t) }
        policy.responseBegan(id)
        policy.ended(id)
        guard let p = log[id] else { return }
        if let e = p.error { abort("\(p.resource.path): \(e)"); return }
        reveal(childrenOf: id, at: t, final: true, now: now)
        let resumed = policy.resumes(after: id)
        if !resumed.isEmpty {
            // Blink runs a script before its parser goes on and lays the page out: the script's own
            // requests take the free connections before what the parser and layout then find.
            dispatch(now: now)
        }
        for parent in resumed {
            reveal(childrenOf: parent, at: t, final: policy.hasEnded(parent), now: now)
        }
        dispatch(now: now)
    }

    private func failed(_ id: String, reason: String, at t: Instant, now: Instant) {
        if recoversFromConnectionLoss, let attempts = log.attempts(of: id), attempts < 4 {
            // The connection was lost to a network change: ask again for what is missing.
            log.update(id) { $0.lost() }
            policy.lost(id, at: t)
            dispatch(now: now)
            return
        }
        log.update(id) { $0.error = reason }
        policy.ended(id)
        abort("\(log[id]?.resource.path ?? id): \(reason)")
    }

    /// Children of `id` its body has revealed by now are queued at `t`; before its end they may go
    /// at once.
    private func reveal(childrenOf id: String, at t: Instant, final: Bool, now: Instant) {
        guard let bytes = log[id]?.bytes else { return }
        let found = policy.reveal(childrenOf: id, bodyBytes: bytes, final: final)
        for r in found { log.append(RequestProgress(resource: r, queued: t)) }
        if !found.isEmpty && !final { dispatch(now: now) }
    }

    // MARK: Results

    /// The run's records: requests in discovery order, connections in opening order, times in ms
    /// from navigation start.
    public func records() -> (requests: [RequestRecord], connections: [ConnectionRecord], metrics: RunMetrics) {
        let opened = Array(zip(policy.connections, connections.map(\.info)))
        let made = PageLoadRecords(
            navigationStart: navigationStart, kind: kind,
            connections: opened.map { ($0.0.origin, $0.1) }, used: usedConnections)
        let requests = log.entries.map { p in
            var r = made.requestRecord(p)
            r.priority = policy.priority(of: p.resource.id).description
            return r
        }
        let root = scenario.root.flatMap { log[$0.id] }
        var metrics = made.metrics(requests: requests, root: root, completed: isFinished && failure == nil)
        metrics.migration = MigrationMetrics.measured(
            pathEvents: pathEvents, arrivals: arrivals,
            connections: opened.map { ConnectionLifetime(openedAt: $0.0.openedAt, failed: $0.1.error != nil) },
            bytesRedownloaded: log.entries.reduce(0) { $0 + $1.redownloaded },
            recoveryRateBitsPerSecond: recoveryRateBitsPerSecond)
        return (requests, made.connectionRecords(), metrics)
    }
}
