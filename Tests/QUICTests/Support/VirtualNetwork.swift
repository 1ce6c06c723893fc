import BenchCore
import Foundation
import QUIC

/// What one client has seen so far.
final class ClientProbe {
    let client: HTTP3Client
    var events: [HTTP3ClientEvent] = []
    var bytes: [Int64: Int] = [:]
    var status: [Int64: Int] = [:]
    var headers: [Int64: [(String, String)]] = [:]
    var finished = Set<Int64>()
    var closedWith: QUICError?
    var handshakeDone = false

    init(_ client: HTTP3Client) { self.client = client }

    func record(_ new: [HTTP3ClientEvent]) {
        for e in new {
            switch e {
            case .handshakeCompleted: handshakeDone = true
            case .response(let s, let st, let h): status[s] = st; headers[s] = h
            case .data(let s, let n): bytes[s, default: 0] += n
            case .responseEnd(let s): finished.insert(s)
            case .closed(let err): closedWith = err
            default: break
            }
            events.append(e)
        }
    }
}

/// "The wire" of the in-memory tests: datagrams between clients and one server, each delivered
/// after a fixed one-way delay in virtual time, some dropped by a seeded loss process.
final class VirtualNetwork {
    struct Packet {
        var bytes: [UInt8]
        var from: Endpoint
        var to: Endpoint
        var deliverAt: Instant
    }

    var now = Instant(nanoseconds: 1_000_000_000)
    let oneWayDelay: Nanoseconds
    var lossRate: Double = 0
    var rng = SeededRandom(seed: 42)
    let serverEndpoint: Endpoint
    let server: HTTP3Server
    var probes: [Endpoint: ClientProbe] = [:]
    var allProbes: [ClientProbe] = []
    var serverEvents: [HTTP3ServerEvent] = []
    /// False: the server has vanished; nothing reaches it and it sends nothing.
    var serverAlive = true
    /// Response body size for a request path; `/bytes/N` answers N bytes by default.
    var bodyLength: (String) -> Int64 = { path in Int64(path.split(separator: "/").last.flatMap { Int($0) } ?? 0) }
    var respond = true
    private var queue: [Packet] = []
    private var head = 0
    var dropped = 0
    var delivered = 0
    /// Sizes of the datagrams the server and the clients handed over (dropped ones included).
    var serverDatagramSizes: [Int] = []
    var clientDatagramSizes: [Int] = []
    /// A NAT in front of the clients: datagrams from `inside` leave as `outside`, and
    /// datagrams to `outside` reach `inside`. Changing `outside` is a NAT rebinding.
    var nat: (inside: Endpoint, outside: Endpoint)?
    /// Drive the endpoints through `writeBatched` (as the event loop does for UDP GSO) and check
    /// every batch against GSO's rules: equal segments, only the last shorter, at most 64 KiB.
    var batched = false
    var batches = 0
    var largestBatch = 0
    var batchViolations: [String] = []
    /// A busy client: datagrams to it are taken in this long after they arrived (its `now` is
    /// later than their arrival); with `reportArrival`, it is told the arrival time too, as the
    /// event loop passes the kernel's receive time.
    var readLag: Nanoseconds = 0
    /// Only every `lagEvery`-th datagram is read late (and those queued behind it with it).
    var lagEvery = 1
    var reportArrival = false
    /// Given: the arrival time every endpoint is told instead (a clock that went wrong).
    var arrivalOverride: Instant?

    init(server: HTTP3Server, at endpoint: Endpoint, oneWayDelay: Nanoseconds = .milliseconds(10)) {
        self.server = server
        self.serverEndpoint = endpoint
        self.oneWayDelay = oneWayDelay
    }

    @discardableResult
    func add(_ client: HTTP3Client, at local: Endpoint) -> ClientProbe {
        let probe = ClientProbe(client)
        probes[local] = probe
        allProbes.append(probe)
        return probe
    }

    /// Routes a client's new local address (after migration) to it.
    func alias(_ local: Endpoint, to probe: ClientProbe) { probes[local] = probe }

    func inject(_ bytes: [UInt8], from: Endpoint, to: Endpoint) {
        queue.append(Packet(bytes: bytes, from: from, to: to, deliverAt: now + oneWayDelay))
    }

    private func enqueue(_ payload: UnsafeRawBufferPointer, from: Endpoint, to: Endpoint) {
        if from == serverEndpoint {
            serverDatagramSizes.append(payload.count)
        } else {
            clientDatagramSizes.append(payload.count)
        }
        if lossRate > 0 && rng.nextUnit() < lossRate {
            dropped += 1
            return
        }
        var from = from, to = to
        if let nat {
            if from == nat.inside { from = nat.outside }
            if to == nat.outside { to = nat.inside } else if to == nat.inside { dropped += 1; return }
        }
        queue.append(Packet(bytes: Array(payload), from: from, to: to, deliverAt: now + oneWayDelay))
    }

    private func handleServerEvents(_ events: [HTTP3ServerEvent]) {
        for e in events {
            serverEvents.append(e)
            if respond, case .request(let conn, let stream, _, _, let path, _, _) = e {
                try? server.submitResponse(
                    connection: conn, stream: stream, status: 200,
                    headers: [("content-type", "application/octet-stream")],
                    bodyLength: bodyLength(path))
            }
        }
    }

    private func takeBatch(_ bytes: UnsafeRawBufferPointer, _ segment: Int, from: Endpoint, to: Endpoint) {
        batches += 1
        let count = (bytes.count + segment - 1) / segment
        largestBatch = max(largestBatch, count)
        if segment <= 0 || bytes.count == 0 || bytes.count > 65_507 || count > 64 {
            batchViolations.append("batch of \(bytes.count) bytes in segments of \(segment)")
        }
        var offset = 0
        while offset < bytes.count {
            let n = min(segment, bytes.count - offset)
            enqueue(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + n)]), from: from, to: to)
            offset += n
        }
    }

    /// A client with a datagram waiting to be read late is busy elsewhere: it neither reads nor
    /// writes until it gets to it.
    private func busy(_ probe: ClientProbe) -> Bool {
        guard readLag > 0 else { return false }
        var i = head
        while i < queue.count, queue[i].deliverAt <= now {
            if probes[queue[i].to] === probe { return true }
            i += 1
        }
        return false
    }

    /// Lets every endpoint write what it can.
    func flush() {
        if batched {
            for probe in allProbes where !probe.client.isClosed && !busy(probe) {
                probe.record(
                    probe.client.writeBatched(now: now) { p, segment, remote, local, _ in
                        self.takeBatch(p, segment, from: local, to: remote)
                    })
            }
            if serverAlive {
                handleServerEvents(
                    server.writeBatched(now: now) { p, segment, remote, local, _ in
                        self.takeBatch(p, segment, from: local, to: remote)
                    })
            }
            return
        }
        for probe in allProbes where !probe.client.isClosed && !busy(probe) {
            probe.record(
                probe.client.write(now: now) { p, remote, local in
                    self.enqueue(p, from: local, to: remote)
                })
        }
        if serverAlive {
            handleServerEvents(
                server.write(now: now) { p, remote, local in
                    self.enqueue(p, from: local, to: remote)
                })
        }
    }

    /// Clients read late (the server never): every `lagEvery`-th datagram to a client.
    private func lag(_ index: Int) -> Nanoseconds {
        readLag > 0 && queue[index].to != serverEndpoint && delivered % lagEvery == 0 ? readLag : 0
    }

    private func deliverDue() {
        while head < queue.count, queue[head].deliverAt + lag(head) <= now {
            let p = queue[head]
            head += 1
            delivered += 1
            p.bytes.withUnsafeBytes { raw in
                if p.to == serverEndpoint {
                    if serverAlive {
                        handleServerEvents(
                            server.receive(
                                raw, local: p.to, remote: p.from, now: now,
                                arrival: arrivalOverride ?? (reportArrival ? p.deliverAt : nil)))
                    }
                } else if let probe = probes[p.to], !probe.client.isClosed {
                    probe.record(
                        probe.client.receive(
                            raw, local: p.to, remote: p.from, now: now,
                            arrival: arrivalOverride ?? (reportArrival ? p.deliverAt : nil)))
                }
            }
        }
        if head > 4096 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }

    private func nextEventTime() -> Instant? {
        var next: Instant? = head < queue.count ? queue[head].deliverAt + lag(head) : nil
        func consider(_ t: Instant?) { if let t, next == nil || t < next! { next = t } }
        for probe in allProbes where !probe.client.isClosed { consider(probe.client.expiry) }
        if serverAlive { consider(server.expiry) }
        return next
    }

    private func runTimers() {
        for probe in allProbes where !probe.client.isClosed {
            if let t = probe.client.expiry, t <= now { probe.record(probe.client.handleExpiry(now: now)) }
        }
        if serverAlive, let t = server.expiry, t <= now {
            handleServerEvents(server.handleExpiry(now: now))
        }
    }

    /// Advances virtual time event by event until `condition` holds or `limit` passes.
    @discardableResult
    func run(for limit: Nanoseconds, until condition: () -> Bool) -> Bool {
        let deadline = now + limit
        flush()
        var stalled = 0
        while !condition() {
            guard let next = nextEventTime(), next <= deadline else {
                now = deadline
                return condition()
            }
            if next > now { now = next; stalled = 0 } else { stalled += 1 }
            if stalled > 100_000 {
                print(
                    "VirtualNetwork: time does not advance at \(now); client expiries",
                    allProbes.map { String(describing: $0.client.expiry) }, "server", String(describing: server.expiry),
                    "queue head", head < queue.count ? String(describing: queue[head].deliverAt) : "-")
                return false
            }
            deliverDue()
            runTimers()
            flush()
        }
        return true
    }
}
