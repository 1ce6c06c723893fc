import Foundation

/// The transports netbench compares.
/// One vocabulary for the model, the transports and the reports (results, CLI, ALPN).
public enum TransportKind: String, Codable, Hashable, Sendable, CaseIterable {
    /// HTTP/1.1 over TLS over TCP, up to 6 connections per origin.
    case h1
    /// HTTP/2 over TLS over TCP, one connection per origin.
    case h2
    /// HTTP/3 over QUIC, one connection per origin.
    case h3

    /// Round trips before the first response byte can arrive on a new connection (no server time):
    /// TCP + TLS 1.3 = 1 (TCP) + 1 (TLS) + 1 (request); QUIC = 1 (handshake) + 1 (request).
    public func handshakeRoundTrips(tls12: Bool = false, zeroRTT: Bool = false) -> Int {
        switch self {
        case .h1, .h2: return tls12 ? 4 : 3
        case .h3: return zeroRTT ? 1 : 2
        }
    }

    /// The ALPN protocol identifier the transport negotiates.
    public var alpn: String {
        switch self {
        case .h1: return "http/1.1"
        case .h2: return "h2"
        case .h3: return "h3"
        }
    }

    public static func parseList(_ text: String) -> [TransportKind]? {
        var out: [TransportKind] = []
        for part in text.split(separator: ",") {
            guard let t = TransportKind(rawValue: part.trimmingCharacters(in: .whitespaces).lowercased()) else {
                return nil
            }
            if !out.contains(t) { out.append(t) }
        }
        return out.isEmpty ? nil : out
    }
}

/// Which client loads the pages: netbench's own browser-like loader, or a real headless Chromium
/// or Firefox.
public enum RunClient: String, Codable, Hashable, Sendable, CaseIterable {
    case builtin, chromium, firefox

    /// "builtin", "chromium", "firefox" or several, comma-separated; nil when a name is unknown or repeated.
    public static func parseList(_ text: String) -> [RunClient]? {
        let list = text.split(separator: ",").map { RunClient(rawValue: $0.trimmingCharacters(in: .whitespaces)) }
        guard !list.isEmpty, list.allSatisfy({ $0 != nil }), Set(list.map { $0! }).count == list.count else {
            return nil
        }
        return list.map { $0! }
    }
}
