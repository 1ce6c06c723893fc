import BenchCore
import BenchModel

/// What the loader measured of one request, from the events of its connection: the timestamps of
/// the results contract, what came back, and what a retry after a lost connection cost.
struct RequestProgress {
    let resource: Scenario.Resource
    let queued: Instant
    /// The connection of the latest attempt, and whether the loader opened it for this request.
    var connection: Int?
    var connectionWasNew = false
    var sent: Instant?
    var firstByte: Instant?
    var lastByte: Instant?
    var bytes: Int64 = 0
    var status: Int?
    var error: String?
    /// Body bytes already held when the current attempt started (its range start).
    var attemptStart: Int64 = 0
    var attempts = 1
    var redownloaded: Int64 = 0

    init(resource: Scenario.Resource, queued: Instant) {
        self.resource = resource
        self.queued = queued
    }

    /// An attempt starts on `connection`; it asks for the bytes from `attemptStart` on.
    mutating func start(on connection: Int, fresh: Bool) {
        self.connection = connection
        connectionWasNew = fresh
        attemptStart = bytes
    }

    mutating func received(status: Int, at t: Instant) {
        self.status = status
        if firstByte == nil { firstByte = t }
        if status >= 400 { error = "HTTP \(status)" }
        if status == 200 && attemptStart > 0 {
            // The server ignored the range: everything comes again.
            redownloaded += attemptStart
            bytes = 0
            attemptStart = 0
        }
    }

    mutating func received(_ count: Int, at t: Instant) {
        if firstByte == nil { firstByte = t }
        bytes += Int64(count)
        lastByte = t
    }

    /// The response ended; a body of the wrong length is an error.
    mutating func ended(at t: Instant) {
        if firstByte == nil { firstByte = t }
        if lastByte == nil { lastByte = t }
        if bytes != resource.bytes && error == nil {
            error = "received \(bytes) bytes, expected \(resource.bytes)"
        }
    }

    /// The connection was lost: the request is asked for again.
    mutating func lost() {
        attempts += 1
        sent = nil
    }
}

/// The loader's requests in discovery order, found by id.
struct RequestLog {
    private(set) var entries: [RequestProgress] = []
    private var index: [String: Int] = [:]

    mutating func append(_ p: RequestProgress) {
        index[p.resource.id] = entries.count
        entries.append(p)
    }

    subscript(id: String) -> RequestProgress? {
        index[id].map { entries[$0] }
    }

    func attempts(of id: String) -> Int? {
        index[id].map { entries[$0].attempts }
    }

    /// Changes the entry of `id` in place (no copy of its `RequestProgress`).
    mutating func update(_ id: String, _ change: (inout RequestProgress) -> Void) {
        guard let i = index[id] else { return }
        change(&entries[i])
    }
}
