import BenchCore
import QUIC
import TLS

/// The HTTP/3 server's datagram input, with no socket: a fresh `HTTP3Server` per input gets the
/// datagrams the input describes, from four peers, with writes and timers between them.
///
/// Input: records of `[control][length: 2 bytes][payload]` (the rest of the input when it runs
/// short). The control byte's low two bits pick the peer; bit 2 sends the payload as is, or else
/// lays it over a real client Initial (so that mutations keep a valid long header and reach
/// `ngtcp2_accept` and Initial decryption); bit 3 first opens a real connection from that peer
/// and sends the payload under a short header with the connection's ID (the 1-RTT path of a live
/// connection); the high bits advance the clock. Checked: the server never sends a peer that has
/// not completed a handshake more than three times what it received from it (RFC 9000 §8.1),
/// never emits an empty or oversized datagram, and holds no connection after every idle timeout.
enum QUICServerEntry {
    static let serverAddress = Endpoint(address: 0x0A00_0001, port: 443)

    /// A CA and a certificate for `localhost`, made once per process.
    static let pki: (caPEM: String, identity: QUICServerCredentials)? = {
        guard let ca = try? CertificateAuthority(commonName: "netbench fuzz CA"),
            let leaf = try? ca.issue(hostNames: ["localhost"])
        else { return nil }
        return (
            ca.certificatePEM,
            QUICServerCredentials(certificateChainPEM: leaf.certificateChainPEM, privateKeyPEM: leaf.privateKeyPEM)
        )
    }()

    /// The first datagram of a real client (a padded Initial with its ClientHello).
    static let clientInitial: [UInt8] = {
        guard let pki,
            let client = try? HTTP3Client(
                config: QUICConfiguration(), trustedRootsPEM: pki.caPEM, serverName: "localhost",
                local: Endpoint(address: 0x0A00_0002, port: 5000), remote: serverAddress,
                resumption: nil, now: Instant(nanoseconds: 1_000_000_000))
        else { return [] }
        var first: [UInt8] = []
        client.write(now: Instant(nanoseconds: 1_000_000_000)) { bytes, _, _ in
            if first.isEmpty { first = Array(bytes) }
        }
        return first
    }()

    static func run(_ input: [UInt8]) -> FuzzOutcome {
        guard let pki else { return .violation("cannot make the test certificates") }
        var now = Instant(nanoseconds: 1_000_000_000)
        let config = QUICConfiguration().with {
            $0.idleTimeout = .seconds(5); $0.handshakeTimeout = .seconds(3)
        }
        guard let server = try? HTTP3Server(config: config, credentials: [pki.identity], now: now) else {
            return .violation("cannot start a server")
        }
        var ledger = Ledger()
        var index = 0
        while index < input.count {
            let control = input[index]
            let length = index + 2 < input.count ? Int(input[index + 1]) << 8 | Int(input[index + 2]) : 0
            let start = min(input.count, index + 3)
            let end = min(input.count, start + max(1, length))
            let payload = Array(input[start..<end])
            index = end
            let peer = Endpoint(address: 0x0A00_0100 + UInt32(control & 3), port: 40_000 + UInt16(control & 3))
            var datagram = control & 4 != 0 ? payload : overlay(payload, on: clientInitial)
            if control & 8 != 0 {
                guard
                    let cid = LiveConnection.open(
                        server: server, from: peer, caPEM: pki.caPEM, now: &now, ledger: &ledger)
                else {
                    return .violation("a real client could not complete a handshake")
                }
                datagram = [0x40 | (payload.first ?? 0) & 0x3F] + cid + payload.dropFirst()
            }
            if !datagram.isEmpty {
                ledger.received[peer, default: 0] += datagram.count
                _ = datagram.withUnsafeBytes { server.receive($0, local: serverAddress, remote: peer, now: now) }
            }
            if let problem = ledger.write(server, now: now) { return .violation(problem) }
            now = now + .milliseconds(Double(control >> 4) * 150)
            server.handleExpiry(now: now)
            if let problem = ledger.write(server, now: now) { return .violation(problem) }
        }
        for _ in 0..<20 {
            now = now + .seconds(1)
            server.handleExpiry(now: now)
            if let problem = ledger.write(server, now: now) { return .violation(problem) }
        }
        return server.connectionCount == 0
            ? .accepted
            : .violation(
                "\(server.connectionCount) connections still held 20 s after the last datagram (idle timeout 5 s)")
    }

    /// `payload` XORed over `base` from byte 1 on (byte 0 keeps the long-header form), so a
    /// mutation of the payload is a mutation of a real Initial.
    static func overlay(_ payload: [UInt8], on base: [UInt8]) -> [UInt8] {
        guard !base.isEmpty else { return payload }
        var out = base
        for (i, b) in payload.enumerated() where i + 1 < out.count { out[i + 1] ^= b }
        return out
    }

    /// Bytes each peer sent and received, for the anti-amplification check.
    struct Ledger {
        var received: [Endpoint: Int] = [:]
        var sent: [Endpoint: Int] = [:]
        var validated: Set<Endpoint> = []

        mutating func write(_ server: HTTP3Server, now: Instant) -> String? {
            var problem: String?
            server.write(now: now) { bytes, remote, _ in
                if bytes.isEmpty || bytes.count > 65_507 { problem = "a datagram of \(bytes.count) bytes to \(remote)" }
                sent[remote, default: 0] += bytes.count
            }
            for (peer, out) in sent where !validated.contains(peer) && out > 3 * (received[peer] ?? 0) {
                problem =
                    problem
                    ?? "sent \(out) bytes to \(peer), which sent \(received[peer] ?? 0) and is not validated (limit 3×)"
            }
            return problem
        }
    }
}
