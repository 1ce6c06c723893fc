import Foundation

/// Responsiveness in round trips per minute, as the IETF draft "Responsiveness under Working
/// Conditions" (draft-ietf-ippm-responsiveness-08, §"Final Calculations") aggregates it.
///
/// Each kind of probe time is reduced to a single-sided trimmed mean TM (the slowest 5% dropped,
/// `trimmedMean(_, keep: 0.95)`). Foreign probes open new connections: tcp_f (TCP handshake),
/// tls_f (TLS handshake), http_f (a small GET on it). Self probes send a small GET on a
/// load-generating connection: http_l. Then
///
///     Foreign = 60000 / ((TM(tcp_f) + TM(tls_f) + TM(http_f)) / 3)
///     Loaded  = 60000 / TM(http_l)
///     RPM     = (Foreign + Loaded) / 2
///
/// QUIC has one handshake for transport and security, so netbench's foreign term for h3 is
/// 60000 / ((TM(quic_f) + TM(http_f)) / 2), as the draft's two-term TCP-only (no TLS) case.
public enum Responsiveness {
    /// The mean of the smallest `keep` fraction of `xs` (at least one value): the draft's
    /// single-sided trimmed mean at TMP = 95%. nil for an empty sample.
    public static func trimmedMean(_ xs: [Double], keep: Double = 0.95) -> Double? {
        guard !xs.isEmpty else { return nil }
        let s = xs.sorted()
        let count = max(1, Int((Double(s.count) * keep).rounded(.down)))
        return Descriptive.mean(Array(s.prefix(count)))
    }

    /// Probe times in milliseconds, by kind.
    public struct Samples: Sendable, Equatable {
        /// Foreign probes: the connection's handshake(s). TCP: [tcp, tls]; QUIC: [quic].
        public var handshakes: [[Double]]
        /// Foreign probes: the small request on the new connection.
        public var foreignHTTP: [Double]
        /// Self probes: the small request on a load-generating connection (idle: on a quiet one).
        public var selfHTTP: [Double]
        public init(handshakes: [[Double]], foreignHTTP: [Double], selfHTTP: [Double]) {
            self.handshakes = handshakes; self.foreignHTTP = foreignHTTP; self.selfHTTP = selfHTTP
        }
    }

    public struct Result: Sendable, Equatable {
        public var foreignRPM: Double
        public var selfRPM: Double
        public var rpm: Double
        /// The trimmed means, ms: each handshake kind, foreign HTTP, self HTTP.
        public var handshakeMs: [Double]
        public var foreignHTTPMs: Double
        public var selfHTTPMs: Double
    }

    /// RPM from the samples (formula above); nil when a kind has no sample or a mean is not > 0.
    public static func compute(_ s: Samples) -> Result? {
        let hs = s.handshakes.map { trimmedMean($0) }
        guard !hs.isEmpty, let http = trimmedMean(s.foreignHTTP), let selfHTTP = trimmedMean(s.selfHTTP) else {
            return nil
        }
        let terms = hs.compactMap { $0 } + [http]
        guard terms.count == hs.count + 1, terms.allSatisfy({ $0 > 0 }), selfHTTP > 0 else { return nil }
        let foreign = 60000 / (terms.reduce(0, +) / Double(terms.count))
        let loaded = 60000 / selfHTTP
        return Result(
            foreignRPM: foreign, selfRPM: loaded, rpm: (foreign + loaded) / 2,
            handshakeMs: Array(terms.dropLast()), foreignHTTPMs: http, selfHTTPMs: selfHTTP)
    }
}
