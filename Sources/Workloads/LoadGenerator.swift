import Foundation
import BenchCore
import SystemIO
import Transport
import Statistics

/// What `netbench load` asks for: one URL path under a server name, its body checked when the
/// size is known (a scenario's resource: exactly `expectedBytes`, status 200). A request with a
/// body (a scenario's POST, PUT… resource; a quic-perf stream's upload) sends `body` and then filler
/// up to `bodyLength` bytes, with `content-length` (and `content-type` when given) over HTTP.
public struct LoadTarget: Sendable, Equatable {
    public var serverName: String
    public var path: String
    public var expectedBytes: Int64?
    public var method: String
    /// The bytes the request body starts with; `bodyLength` counts them.
    public var body: [UInt8]
    /// The request body's length: `body`, then generated filler; 0 for none.
    public var bodyLength: Int64
    public var contentType: String?
    public init(
        serverName: String, path: String, expectedBytes: Int64? = nil, method: String = "GET", body: [UInt8] = [],
        contentType: String? = nil
    ) {
        self.serverName = serverName; self.path = path; self.expectedBytes = expectedBytes
        self.method = method; self.body = body; self.contentType = contentType
        bodyLength = Int64(body.count)
    }

    /// The path, after its method when not GET (error messages).
    var label: String { method == "GET" ? path : method + " " + path }

    /// The request sent for this target (built once per target, not per request).
    var request: ClientRequest {
        var r = ClientRequest(method: method, authority: serverName, path: path)
        if bodyLength > 0 {
            r.setBody(body)
            r.bodyLength = bodyLength
            if let contentType { r.headers.append(("content-type", contentType)) }
        }
        return r
    }
}

/// How the load is offered: open (a schedule of intended send times) or closed (every stream
/// sends its next request as soon as its last one ends, as h2load does).
public struct LoadSettings: Sendable {
    public enum Model: Sendable { case open([LoadSchedule.Step]), closed(duration: Nanoseconds) }
    public var transport: LoadTransport
    public var model: Model
    /// Connections kept open, and requests in flight on each at most (HTTP/1.1: one).
    public var connections: Int
    public var streams: Int
    /// How long requests still in flight when the load ends may take; those left count as timeouts.
    public var grace: Nanoseconds = .seconds(5)
    /// The length of the `.hlog` intervals.
    public var interval: Nanoseconds = .seconds(1)
    public init(transport: LoadTransport, model: Model, connections: Int, streams: Int) {
        self.transport = transport; self.model = model; self.connections = connections; self.streams = streams
    }
    var streamsPerConnection: Int { transport == .h1 ? 1 : streams }
}

/// Drives the load on the calling thread's own event loop and records latencies (µs) in HDR
/// histograms: one per step and one per `.hlog` interval (by completion time), never per sample.
/// Open model: latency runs from each request's intended send time. Closed: from its send.
public final class LoadGenerator {
    let settings: LoadSettings
    let targets: [LoadTarget]
    let remote: Endpoint
    let client: ClientSettings
    let loop: EventLoop
    var schedule: LoadSchedule?
    var closedEnd: Instant?
    var slots: [Slot] = []
    var backlog: [(intended: Instant, step: Int)] = []
    var backlogHead = 0
    /// The targets by server name: each connection serves one name (its SNI), round robin.
    var groups: [[LoadTarget]] = []
    /// Each group's requests, built once (a request's send copies one, allocating nothing).
    var requests: [[ClientRequest]] = []
    var nextInGroup: [Int] = []
    var outstanding = 0
    var cursor = 0
    var isFinished = false
    var dispatchQueued = false
    var record: LoadRecorder
    var start = Instant.now()
    /// The client side's address to bind (an emulated network's first path); its namespace is
    /// `client.namespace` (TCP sockets are made inside it, QUIC's by the connection itself).
    public var local: Endpoint?

    final class Slot {
        var connection: ClientConnection?
        var inFlight = 0
        var answered = 0
        var reopenAt: Instant?
        let group: Int
        init(group: Int) { self.group = group }
    }

    public init(settings: LoadSettings, targets: [LoadTarget], remote: Endpoint, client: ClientSettings) throws {
        precondition(!targets.isEmpty && settings.connections > 0 && settings.streams > 0)
        self.settings = settings; self.targets = targets; self.remote = remote
        // Only a response's status and body length are checked: its header fields are not decoded.
        var client = client
        client.responseFields = false
        self.client = client
        loop = try EventLoop()
        var names: [String] = []
        for t in targets where !names.contains(t.serverName) { names.append(t.serverName) }
        groups = names.map { n in targets.filter { $0.serverName == n } }
        requests = groups.map { $0.map(\.request) }
        nextInGroup = Array(repeating: 0, count: groups.count)
        precondition(settings.connections >= groups.count, "fewer connections than server names")
        let stepCount: Int
        if case .open(let steps) = settings.model { stepCount = steps.count } else { stepCount = 1 }
        record = try LoadRecorder(steps: stepCount, interval: settings.interval)
    }

    /// Due requests waiting for a stream at most; beyond, due requests are counted as never sent
    /// without being queued (16 bytes each: 16 MB).
    static let maxBacklog = 1_000_000

    /// Runs the whole load; returns what it measured.
    public func run() throws -> LoadOutcome {
        let cpu = ThreadCPUClock.current()
        let cpuBefore = cpu?.readMs()
        start = Instant.now()
        record.begin(at: start, wallClock: Date().timeIntervalSince1970)
        slots = (0..<settings.connections).map { Slot(group: $0 % groups.count) }
        let end: Instant
        switch settings.model {
        case .open(let steps):
            schedule = LoadSchedule(steps: steps, start: start)
            end = schedule!.end
            tick()
        case .closed(let duration):
            end = start + duration
            closedEnd = end
            dispatch()
        }
        loop.schedule(at: end) { [unowned self] in self.requestDispatch() }
        // Done once every due request has left and come back: a tick that fires late (a busy
        // generator) still takes the requests due before the end.
        try loop.run(until: end + settings.grace) { [unowned self] in
            Instant.now() >= end && self.outstanding == 0 && self.schedule?.next == nil
                && self.backlogHead == self.backlog.count
        }
        let finished = Instant.now()
        record.count(
            "timeout", outstanding, example: "no response within \(settings.grace / 1_000_000) ms after the end")
        record.unsent = backlog.count - backlogHead + record.skipped
        // The requests still in flight are timeouts now: their connections' closing must not count them again.
        isFinished = true
        for s in slots { s.connection?.close() }
        var outcome = record.finish(at: finished, loadEnd: end)
        switch settings.model {
        case .open(let steps):
            outcome.steps = steps.enumerated().map { i, s in
                LoadOutcome.Step(
                    rate: s.rate, duration: s.duration, scheduled: record.stepScheduled[i], ok: record.stepOK[i],
                    latency: record.stepHistograms[i])
            }
        case .closed(let duration):
            outcome.steps = [
                LoadOutcome.Step(
                    rate: nil, duration: duration, scheduled: record.sent, ok: record.okCount,
                    latency: record.stepHistograms[0])
            ]
        }
        if let a = cpuBefore, let b = cpu?.readMs() { outcome.generatorCPUms = b - a }
        return outcome
    }

    /// Open model: takes the requests now due and sets the timer for the next one.
    func tick() {
        guard var s = schedule else { return }
        let before = backlog.count
        var skipped = Array(repeating: 0, count: s.steps.count)
        s.take(dueBy: Instant.now(), into: &backlog, limit: backlogHead + Self.maxBacklog, skipped: &skipped)
        record.scheduled += backlog.count - before + skipped.reduce(0, +)
        record.skipped += skipped.reduce(0, +)
        for r in backlog[before...] { record.stepScheduled[r.step] += 1 }
        for (i, n) in skipped.enumerated() { record.stepScheduled[i] += n }
        schedule = s
        dispatch()
        if let next = s.next { loop.schedule(at: next) { [unowned self] in self.tick() } }
    }

    func requestDispatch() {
        guard !dispatchQueued else { return }
        dispatchQueued = true
        loop.runAfterIO { [unowned self] in
            self.dispatchQueued = false; self.dispatch()
        }
    }

    /// Whether another request may leave now, and its intended time and step.
    func nextRequest(_ now: Instant) -> (Instant, Int)? {
        if schedule != nil {
            guard backlogHead < backlog.count else { return nil }
            return backlog[backlogHead]
        }
        guard let closedEnd, now < closedEnd else { return nil }
        return (now, 0)
    }

    /// Sends what may leave now, one request per connection in turn (so each server name gets its share).
    func dispatch() {
        let now = Instant.now()
        let cap = settings.streamsPerConnection
        var idle = 0
        while idle < slots.count, let (intended, step) = nextRequest(now) {
            let slot = slots[cursor]
            cursor = (cursor + 1) % slots.count
            // The stream count first: a full slot's connection is not even looked at (each look
            // retains and releases it).
            guard slot.inFlight < cap, let c = usableConnection(slot, now), c.freeSlots > 0 else {
                idle += 1
                continue
            }
            idle = 0
            if schedule != nil { backlogHead += 1 }
            send(on: c, slot: slot, intended: intended, step: step)
        }
        if backlogHead > 4096 && backlogHead * 2 > backlog.count {
            backlog.removeFirst(backlogHead); backlogHead = 0
        }
    }

    /// The slot's connection, reopened when it has closed and its requests have ended (after a
    /// pause when it never answered, so a server that closes every connection is not flooded).
    func usableConnection(_ slot: Slot, _ now: Instant) -> ClientConnection? {
        if let c = slot.connection, c.isUsable { return c }
        guard slot.inFlight == 0 else { return nil }
        if let at = slot.reopenAt, now < at { return nil }
        if let old = slot.connection, slot.answered == 0 {
            slot.connection = nil
            old.close()
            slot.reopenAt = now + .milliseconds(20)
            loop.schedule(at: now + .milliseconds(20)) { [unowned self] in self.requestDispatch() }
            return nil
        }
        slot.answered = 0; slot.reopenAt = nil
        do {
            let c = try NetworkNamespace.with(client.namespace) {
                try LoadConnector.open(
                    settings.transport, loop: loop, remote: remote, local: local,
                    serverName: groups[slot.group][0].serverName, settings: client)
            }
            c.onStateChange = { [unowned self] in self.requestDispatch() }
            slot.connection = c
            record.connectionsOpened += 1
            return c
        } catch {
            record.count("connect", 1, example: "\(error)")
            slot.reopenAt = now + .milliseconds(20)
            loop.schedule(at: now + .milliseconds(20)) { [unowned self] in self.requestDispatch() }
            return nil
        }
    }

    /// One request's progress: one object per request (its closure captures nothing else that
    /// changes), instead of a box per captured variable.
    final class Exchange {
        let slot: Slot
        let target: Int
        let intended: Instant
        let step: Int
        var status = 0
        var bytes: Int64 = 0
        var done = false
        init(slot: Slot, target: Int, intended: Instant, step: Int) {
            self.slot = slot; self.target = target; self.intended = intended; self.step = step
        }
    }

    func send(on c: ClientConnection, slot: Slot, intended: Instant, step: Int) {
        let index = nextInGroup[slot.group]
        nextInGroup[slot.group] = (index + 1) % requests[slot.group].count
        slot.inFlight += 1
        outstanding += 1
        record.sent += 1
        let exchange = Exchange(slot: slot, target: index, intended: intended, step: step)
        c.send(requests[slot.group][index]) {
            [unowned self] event in
            self.handle(event, of: exchange, on: c)
        }
    }

    func handle(_ event: ClientEvent, of x: Exchange, on c: ClientConnection) {
        guard !x.done, !isFinished else { return }
        switch event {
        case .sent(let t): record.sendLag(t.since(x.intended))
        case .head(let s, _, _): x.status = s
        case .data(let n, _): x.bytes += Int64(n)
        case .end(let t):
            x.done = true
            x.slot.answered += 1
            record.bytes += x.bytes
            let target = groups[x.slot.group][x.target]
            // Answered: the request left whole (a perf server drains the upload before its FIN).
            record.bytesUploaded += target.bodyLength
            if x.status != 200 {
                record.count("status", 1, example: "\(target.label): status \(x.status), expected 200")
            } else if let want = target.expectedBytes, want != x.bytes {
                record.count("length", 1, example: "\(target.label): \(x.bytes) body bytes, expected exactly \(want)")
            } else {
                record.ok(latency: t.since(x.intended), step: x.step, at: t)
            }
            ended(x.slot)
        case .failed(let why, _):
            x.done = true
            record.bytes += x.bytes
            let kind = c.info.handshakeEnd == nil ? "connect" : "closed"
            record.count(kind, 1, example: "\(groups[x.slot.group][x.target].label): \(why)")
            ended(x.slot)
        }
    }

    func ended(_ slot: Slot) {
        slot.inFlight -= 1
        outstanding -= 1
        requestDispatch()
    }
}
