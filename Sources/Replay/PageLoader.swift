import BenchCore
import BenchModel
import Transport

/// A browser-like page loader: fetches the root document, discovers each child when its parent has
/// revealed it (after N body bytes or at the parent's end), and dispatches requests the way browsers
/// do — HTTP/1.1 with at most 6 connections per origin, HTTP/2 and HTTP/3 with one connection per
/// origin — in the priority order Chromium gives the resources (`priority(_:parent:)`), which
/// HTTP/2 and HTTP/3 also put on the wire as Chromium does.
/// It records every timestamp of the results contract from the monotonic clock.
public final class PageLoader {
    /// Opens a connection to an origin from `localAddress` (nil: any); the runner decides endpoints,
    /// TLS and namespaces.
    public typealias Connector = (_ origin: Scenario.Origin, _ localAddress: UInt32?) throws -> ClientConnection

    private let scenario: Scenario
    private let kind: TransportKind
    private let connector: Connector
    private let maxConnectionsPerOrigin: Int
    private let byID: [String: Scenario.Resource]
    private let childrenOf: [String: [Scenario.Resource]]
    private var states: [String: RequestState] = [:]
    private var pending: [String: [String]] = [:]        // origin id → resource ids waiting to be sent
    private var connections: [(origin: String, conn: ClientConnection)] = []
    private var discoveryCounter = 0
    private(set) public var navigationStart = Instant(nanoseconds: 0)
    private(set) public var failure: String?
    private var finishedCount = 0
    /// The client's address for new connections; changes when the network does.
    public private(set) var localAddress: UInt32?
    /// After a network change, requests on lost connections are sent again (a range request for
    /// what is missing) instead of failing the run.
    public var recoversFromConnectionLoss = false
    /// Rate of the path after the change, for the recovery time (bit/s).
    public var recoveryRateBitsPerSecond: Double?
    /// When the network changed (whether or not the client was told: a NAT rebinding is silent).
    private var eventTimes: [Instant] = []
    private var connectionOpenedAt: [Instant] = []
    /// Every arrival of body bytes: (time, count), for stall and recovery.
    private var arrivals: [(Instant, Int)] = []

    struct RequestState {
        var resource: Scenario.Resource
        var order: Int
        var queued: Instant
        var connection: Int?
        var connectionWasNew = false
        var sent: Instant?
        var firstByte: Instant?
        var lastByte: Instant?
        var bytes: Int64 = 0
        var status: Int?
        var error: String?
        var revealed = Set<String>()
        var done = false
        /// Body bytes already held when the current attempt started (its range start).
        var attemptStart: Int64 = 0
        var attempts = 1
        /// A retried request goes only on a connection opened after its failure (as browsers retry
        /// on a fresh connection): after a NAT rebinding every older connection is silently dead.
        var notBefore: Instant?
        var redownloaded: Int64 = 0
        /// Sent and not yet ended (a request queued again after a lost connection is not).
        var inFlight = false
    }

    /// Blink's "tight" throttling (`ResourceLoadScheduler`, `kTightLimitForRendererSideResourceScheduler`):
    /// until the parser inserts the root document's `<body>`, at most this many requests below
    /// Blink's "High" (`net::MEDIUM`: images, async scripts, non-blocking stylesheets) are in flight
    /// at once; more urgent ones are not held. Chromium on the 4G profile requests the page's large
    /// images only as its head's scripts and stylesheets arrive, two at a time, and so does this loader.
    static let tightModeLimit = 2
    /// Set once the root document's head is through: the loader has left the tight mode.
    private var bodyReached = false
    /// The render-blocking stylesheets and scripts in the root document's `<head>` as
    /// `PageRenderer` writes it for browsers: the parser reaches `<body>` once they are in.
    private let headBlocking: [String]
    /// Each resource's `priority(_:parent:)`, by id (fixed by the scenario; dispatch sorts by it often).
    private let priorities: [String: RequestPriority]

    public init(scenario: Scenario, kind: TransportKind, localAddress: UInt32? = nil, connector: @escaping Connector) {
        self.scenario = scenario
        self.localAddress = localAddress
        self.kind = kind
        self.connector = connector
        maxConnectionsPerOrigin = kind == .h1 ? 6 : 1
        byID = Dictionary(scenario.resources.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        childrenOf = Dictionary(grouping: scenario.resources.filter { $0.parent != nil }, by: { $0.parent! })
        priorities = byID.mapValues { [byID] r in PageLoader.priority(r, parent: r.parent.flatMap { byID[$0] }) }
        headBlocking = (scenario.root.map { PageRenderer.headResources(of: $0.id, in: scenario) } ?? [])
            .filter { ($0.type == .stylesheet || $0.type == .script) && $0.renderBlocking == true }.map(\.id)
    }

    public var isFinished: Bool { failure != nil || finishedCount == scenario.resources.count }

    /// Starts the navigation: the root document is queued now.
    public func start() {
        navigationStart = Instant.now()
        guard let root = scenario.root else { failure = "scenario has no root document"; return }
        discover(root, at: navigationStart)
        dispatch()
    }

    /// Stops with a failure (timeout, emulator error); open connections are closed.
    public func abort(_ reason: String) {
        if failure == nil { failure = reason }
        for c in connections { c.conn.close() }
    }

    public func closeConnections() { for c in connections { c.conn.close() } }

    private func discover(_ r: Scenario.Resource, at t: Instant) {
        guard states[r.id] == nil else { return }
        discoveryCounter += 1
        states[r.id] = RequestState(resource: r, order: discoveryCounter, queued: t)
        pending[r.origin, default: []].append(r.id)
    }

    /// The priority Chromium gives the resource as `PageRenderer` presents it to a browser
    /// (Blink's `ResourceFetcher::ComputeLoadPriority`, mapped to `net::RequestPriority`): the
    /// document, stylesheets that block rendering and fonts "VeryHigh" → highest; parser-blocking
    /// scripts, fetches and preloads "High" → medium; async scripts (also every script another
    /// script inserts) and images "Low" → lowest; a stylesheet that does not block rendering is
    /// rendered `media="print"` and swapped on load, "VeryLow" → idle. Left out: Chrome's boost of
    /// the first five large images to "Medium" (the rendered images' sizes come from the scenario's
    /// bytes, not from layout) and its later re-prioritisation of images in the viewport.
    static func priority(_ r: Scenario.Resource, parent: Scenario.Resource?) -> RequestPriority {
        switch r.type {
        case .document, .font: return .highest
        case .stylesheet: return r.renderBlocking == false ? .idle : .highest
        case .script: return r.renderBlocking == true && parent?.type != .script ? .medium : .lowest
        case .xhr, .other: return .medium
        case .image: return .lowest
        }
    }

    private func priority(of id: String) -> RequestPriority { priorities[id]! }

    /// The order requests are sent in: the most urgent first, then the earliest discovered.
    private func sendsBefore(_ a: String, _ b: String) -> Bool {
        let pa = priority(of: a), pb = priority(of: b)
        return pa != pb ? pa > pb : states[a]!.order < states[b]!.order
    }

    /// Whether the parser has reached the root document's `<body>`: the root's first bytes are in
    /// and every render-blocking stylesheet and script of its `<head>` (where the parser waits for
    /// each) has been revealed and has ended. Once true it stays true.
    private func leftTightMode() -> Bool {
        if bodyReached { return true }
        guard let root = scenario.root, states[root.id]?.firstByte != nil,
              headBlocking.allSatisfy({ states[$0]?.done == true }) else { return false }
        bodyReached = true
        return true
    }

    /// In the tight mode, which of the pending requests below `net::MEDIUM` may start now: the most
    /// urgent, then the earliest discovered, across origins, up to the limit less those in flight.
    private func tightModeAllowance() -> Set<String>? {
        guard !leftTightMode() else { return nil }
        let throttled = { (id: String) in self.priority(of: id) < .medium }
        let inFlight = states.values.filter { $0.inFlight && throttled($0.resource.id) }.count
        let room = max(PageLoader.tightModeLimit - inFlight, 0)
        let waiting = pending.values.joined().filter(throttled).sorted(by: sendsBefore)
        return Set(waiting.prefix(room))
    }

    /// Sends what can be sent: per origin, highest priority first, onto free connections, opening
    /// new ones up to the per-origin limit; in the tight mode low-priority requests wait their turn.
    private func dispatch() {
        guard failure == nil else { return }
        let allowed = tightModeAllowance()
        for origin in pending.keys.sorted() {
            guard var queue = pending[origin], !queue.isEmpty else { continue }
            queue.sort(by: sendsBefore)
            var waiting: [String] = []
            for id in queue {
                if let allowed, priority(of: id) < .medium, !allowed.contains(id) {
                    waiting.append(id)
                    continue
                }
                guard failure == nil, let (index, fresh) = connectionWithSlot(origin: origin, openedAfter: states[id]?.notBefore) else {
                    waiting.append(id)
                    continue
                }
                send(id, on: index, fresh: fresh)
            }
            pending[origin] = waiting
        }
    }

    /// A connection of `origin` with a free slot (opened after `openedAfter` when given), opening
    /// one if the per-origin limit allows.
    private func connectionWithSlot(origin: String, openedAfter: Instant?) -> (Int, Bool)? {
        for (i, c) in connections.enumerated() where c.origin == origin && c.conn.isUsable && c.conn.freeSlots > 0 {
            if let t = openedAfter, connectionOpenedAt[i] < t { continue }
            return (i, false)
        }
        let open = connections.filter { $0.origin == origin && $0.conn.isUsable }.count
        guard open < maxConnectionsPerOrigin || openedAfter != nil && open < maxConnectionsPerOrigin + 1,
              let o = scenario.origin(id: origin) else { return nil }
        do {
            let conn = try connector(o, localAddress)
            conn.onStateChange = { [weak self] in self?.connectionChanged() }
            connections.append((origin, conn))
            connectionOpenedAt.append(Instant.now())
            return (connections.count - 1, true)
        } catch {
            abort("connect to \(o.host): \(error)")
            return nil
        }
    }

    private func connectionChanged() {
        // A connection that closed with requests in flight has failed them through their events;
        // what is still pending may now go to another (or a new) connection.
        dispatch()
    }

    private func send(_ id: String, on index: Int, fresh: Bool) {
        states[id]!.inFlight = true
        states[id]!.connection = index
        states[id]!.connectionWasNew = fresh
        let r = states[id]!.resource
        let host = scenario.origin(id: r.origin)?.host ?? r.origin
        var request = ClientRequest(authority: host, path: r.path, priority: priority(of: id))
        if let st = states[id], st.bytes > 0 { request.headers.append(("Range", "bytes=\(st.bytes)-")) }
        states[id]!.attemptStart = states[id]!.bytes
        if let bulk = scenario.bulk, bulk.direction == .upload, r.path == Scenario.bulkPath {
            request.method = "POST"
            request.bodyLength = bulk.bytes
        }
        let attempt = states[id]!.attempts
        connections[index].conn.send(request) { [weak self] event in
            // Events of a superseded attempt (a connection that failed late) are ignored.
            guard let self, self.states[id]?.attempts == attempt else { return }
            self.handle(event, for: id)
        }
    }

    private func handle(_ event: ClientEvent, for id: String) {
        guard var st = states[id], !st.done else { return }
        switch event {
        case .sent(let t): st.sent = t
        case .head(let status, _, let t):
            st.status = status
            if st.firstByte == nil { st.firstByte = t }
            if status >= 400 { st.error = "HTTP \(status)" }
            if status == 200 && st.attemptStart > 0 {
                // The server ignored the range: everything comes again.
                st.redownloaded += st.attemptStart
                st.bytes = 0
                st.attemptStart = 0
            }
        case .data(let count, let t):
            arrivals.append((t, count))
            if st.firstByte == nil { st.firstByte = t }
            st.bytes += Int64(count)
            st.lastByte = t
            states[id] = st
            revealChildren(of: id, at: t, final: false)
            st = states[id]!
        case .end(let t):
            if st.firstByte == nil { st.firstByte = t }
            if st.lastByte == nil { st.lastByte = t }
            st.done = true
            st.inFlight = false
            finishedCount += 1
            if st.bytes != st.resource.bytes && st.error == nil {
                st.error = "received \(st.bytes) bytes, expected \(st.resource.bytes)"
            }
            states[id] = st
            if let e = st.error { abort("\(st.resource.path): \(e)"); return }
            revealChildren(of: id, at: t, final: true)
            parserMovedOn(after: st.resource, at: t)
            dispatch()
            return
        case .failed(let reason, let t):
            if recoversFromConnectionLoss && st.attempts < 4 {
                // The connection was lost to a network change: ask again for what is missing.
                _ = t
                st.attempts += 1
                st.sent = nil
                st.inFlight = false
                st.notBefore = t
                states[id] = st
                pending[st.resource.origin, default: []].append(id)
                dispatch()
                return
            }
            st.error = reason
            st.done = true
            st.inFlight = false
            states[id] = st
            abort("\(st.resource.path): \(reason)")
            return
        }
        states[id] = st
    }

    private func revealChildren(of id: String, at t: Instant, final: Bool) {
        guard let kids = childrenOf[id], let st = states[id] else { return }
        var any = false
        for k in kids where !st.revealed.contains(k.id) {
            let due = final || (k.revealAfterBytes.map { st.bytes >= $0 } ?? false)
            if due && !waitsForParser(k, in: id) {
                states[id]!.revealed.insert(k.id)
                discover(k, at: t)
                any = true
            }
        }
        if any && !final { dispatch() }
    }

    /// Whether `k`, due in `parent`'s body, still waits for the parser: a stylesheet that does not
    /// block rendering is written `media="print"`, which Chromium's preload scanner skips (its media
    /// does not match), so it is asked for only when the parser reaches its tag — after every
    /// parser-blocking script of the root document before it has arrived.
    private func waitsForParser(_ k: Scenario.Resource, in parent: String) -> Bool {
        guard parent == scenario.root?.id, k.type == .stylesheet, k.renderBlocking == false else { return false }
        let at = k.revealAfterBytes ?? .max
        for s in childrenOf[parent] ?? [] where s.type == .script && s.renderBlocking == true && (s.revealAfterBytes ?? .max) < at {
            if states[s.id]?.done != true { return true }
        }
        return false
    }

    /// A parser-blocking script of the root ended: what the parser held behind it may be due now.
    private func parserMovedOn(after r: Scenario.Resource, at t: Instant) {
        guard let root = scenario.root, r.parent == root.id, r.type == .script, r.renderBlocking == true,
              let rs = states[root.id] else { return }
        revealChildren(of: root.id, at: t, final: rs.done)
    }

    /// The client's network changed: new connections use `change.localAddress`; open ones react
    /// (QUIC migrates or rebinds, TCP may be aborted and its requests sent again).
    public func networkChanged(_ change: NetworkChange) {
        eventTimes.append(Instant.now())
        localAddress = change.localAddress
        recoversFromConnectionLoss = true
        for c in connections where c.conn.isUsable { c.conn.networkChanged(change) }
        dispatch()
    }

    /// Connection loss after an outage, a NAT rebinding or a silent path death (TCP user timeout)
    /// is recoverable too.
    public func expectNetworkTrouble() {
        recoversFromConnectionLoss = true
    }

    /// The network changed without the client being told (NAT rebinding, outage): only noted, for
    /// the migration metrics.
    public func networkEventObserved() {
        eventTimes.append(Instant.now())
    }

    /// What the first network change did to the load.
    func migrationMetrics() -> MigrationMetrics? {
        guard let first = eventTimes.first else { return nil }
        var m = MigrationMetrics(survived: true)
        // Stall: the longest pause in delivery that ends after the change (within 5 s of it),
        // measured from the last byte before it; packets still in flight on the old path right
        // after the change do not hide the gap that follows them.
        if let startIndex = arrivals.lastIndex(where: { $0.0 < first }) {
            var longest: Nanoseconds = 0
            var i = startIndex
            while i + 1 < arrivals.count, arrivals[i].0 < first + .seconds(5) {
                longest = max(longest, arrivals[i + 1].0.since(arrivals[i].0))
                i += 1
            }
            m.stallMs = longest.inMilliseconds
        }
        // Connections opened after the change are extra handshakes; one lost with an error broke.
        m.extraHandshakes = connectionOpenedAt.filter { $0 >= first }.count
        let broken = connections.enumerated().contains { i, c in
            connectionOpenedAt[i] < first && c.conn.info.error != nil
        }
        m.survived = !broken && m.extraHandshakes == 0
        m.bytesRedownloaded = states.values.reduce(0) { $0 + $1.redownloaded }
        if let rate = recoveryRateBitsPerSecond, rate > 0 {
            // The end of the first 100 ms window after the change that carried ≥ 90% of the
            // path's rate, counted from the change (sliding window over the byte arrivals).
            let window: Nanoseconds = .milliseconds(100)
            let need = rate * 0.9 / 8 * 0.1
            let later = arrivals.filter { $0.0 >= first }
            var lo = 0
            var sum = 0
            for hi in 0..<later.count {
                sum += later[hi].1
                while later[hi].0.since(later[lo].0) >= window { sum -= later[lo].1; lo += 1 }
                if Double(sum) >= need {
                    m.recoveryMs = max(0, later[hi].0.milliseconds(since: first))
                    break
                }
            }
        }
        return m
    }

    // MARK: Results

    /// The run's records: requests in discovery order, connections in opening order, times in ms
    /// from navigation start.
    public func records() -> (requests: [RequestRecord], connections: [ConnectionRecord], metrics: RunMetrics) {
        func ms(_ i: Instant?) -> Double? { i.map { $0.milliseconds(since: navigationStart) } }
        var conns: [ConnectionRecord] = []
        for (i, c) in connections.enumerated() {
            let info = c.conn.info
            var rec = ConnectionRecord(id: i, origin: c.origin, transport: kind,
                                       connectStart: ms(info.connectStart) ?? 0)
            rec.connectEnd = ms(info.connectEnd)
            rec.handshakeEnd = ms(info.handshakeEnd)
            rec.closedAt = ms(info.closedAt)
            rec.localAddress = info.local?.description
            rec.remoteAddress = info.remote.description
            rec.tlsVersion = info.tlsVersion
            rec.alpn = info.alpn
            rec.resumed = info.resumed
            rec.earlyDataAccepted = info.earlyDataAccepted
            rec.error = info.error
            rec.congestionControl = info.congestionControl
            if let q = info.quic {
                var qr = QUICStatsRecord()
                qr.smoothedRttMs = q.smoothedRTT?.inMilliseconds
                qr.minRttMs = q.minRTT?.inMilliseconds
                qr.cwndBytes = q.cwnd
                qr.packetsSent = q.packetsSent
                qr.packetsReceived = q.packetsReceived
                qr.streamFramesLost = q.streamFramesLost
                qr.congestionControl = q.congestionControl
                if !q.pathValidations.isEmpty {
                    qr.pathValidations = q.pathValidations.map { PathValidationRecord(challengeAt: ms($0.challenge), validatedAt: ms($0.validated)) }
                }
                rec.quic = qr
            }
            conns.append(rec)
        }
        var reqs: [RequestRecord] = []
        for st in states.values.sorted(by: { $0.order < $1.order }) {
            var r = RequestRecord(id: st.resource.id, origin: st.resource.origin, queued: ms(st.queued) ?? 0, bytes: st.bytes)
            r.connection = st.connection
            if let ci = st.connection, st.connectionWasNew {
                let info = connections[ci].conn.info
                r.connectStart = ms(info.connectStart)
                r.connectEnd = ms(info.connectEnd)
                r.tlsEnd = ms(info.handshakeEnd)
            }
            r.requestSent = ms(st.sent)
            r.firstByte = ms(st.firstByte)
            r.lastByte = ms(st.lastByte)
            r.status = st.status
            r.protocol = kind.alpn
            r.error = st.error
            reqs.append(r)
        }
        var m = RunMetrics()
        m.requests = reqs.count
        m.bytes = reqs.reduce(0) { $0 + $1.bytes }
        m.connections = conns.count
        if let root = scenario.root, let st = states[root.id] {
            m.ttfbMs = ms(st.firstByte)
            if let ci = st.connection {
                let info = connections[ci].conn.info
                if let end = info.handshakeEnd { m.handshakeMs = end.milliseconds(since: info.connectStart) }
            }
        }
        if isFinished && failure == nil {
            m.pltMs = reqs.compactMap(\.lastByte).max()
        }
        m.migration = migrationMetrics()
        return (reqs, conns, m)
    }
}
