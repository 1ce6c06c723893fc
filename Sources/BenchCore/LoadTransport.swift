/// What `netbench load` loads: an HTTP version, or raw QUIC streams of the QUIC performance
/// protocol (draft-banks-quic-performance-00), where a request is one bidirectional stream asking
/// the server for a number of bytes. One vocabulary for the load's settings, results, thresholds
/// and reports; `TransportKind` stays the page loads' (HTTP only).
public enum LoadTransport: String, Codable, Hashable, Sendable, CaseIterable {
    case h1, h2, h3
    case quicPerf = "quic-perf"

    public init(_ http: TransportKind) {
        switch http {
        case .h1: self = .h1
        case .h2: self = .h2
        case .h3: self = .h3
        }
    }

    /// The HTTP version loaded; nil for quic-perf.
    public var http: TransportKind? { TransportKind(rawValue: rawValue) }

    /// Over QUIC (a UDP listener): h3 and quic-perf.
    public var overQUIC: Bool { self == .h3 || self == .quicPerf }
}
