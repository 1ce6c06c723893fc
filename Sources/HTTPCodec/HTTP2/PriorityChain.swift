import BenchCore

/// Chromium's HTTP/2 stream dependencies (`net::Http2PriorityDependencies`): every stream is
/// opened as the exclusive child of the most recently opened stream still open whose priority is
/// the same or higher (the root when there is none), with the weight of its priority. The tree is
/// a single chain in priority order, so a server that follows RFC 7540 priorities sends responses
/// one after another, most urgent first, and in request order within a priority.
public struct PriorityChain: Sendable {
    /// Open streams per priority, in opening order.
    private var open: [RequestPriority: [Int32]] = [:]

    public init() {}

    /// The priority to send with the HEADERS that open `stream`.
    public mutating func opening(_ stream: Int32, priority: RequestPriority) -> HTTP2Priority {
        var parent: Int32 = 0
        // The lowest-priority open stream among those at least as urgent: search from this
        // priority upwards and take the last stream of the first non-empty level.
        for raw in priority.rawValue...RequestPriority.highest.rawValue {
            if let last = open[RequestPriority(rawValue: raw)!]?.last { parent = last; break }
        }
        open[priority, default: []].append(stream)
        return HTTP2Priority(dependsOn: parent, weight: priority.http2Weight, exclusive: true)
    }

    /// Forgets a stream that closed (a later stream no longer depends on it).
    public mutating func closed(_ stream: Int32) {
        for (p, ids) in open where ids.contains(stream) { open[p] = ids.filter { $0 != stream } }
    }
}
