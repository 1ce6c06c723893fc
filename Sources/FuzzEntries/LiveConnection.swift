import BenchCore
import QUIC

extension QUICServerEntry {
    /// A real client's handshake with the server, in memory, so that fuzzed datagrams can reach a
    /// connection that is past its handshake.
    enum LiveConnection {
        /// Completes a handshake from `peer` and returns the connection ID the server chose (the
        /// destination ID of the client's later long-header packets), or nil if it failed.
        static func open(
            server: HTTP3Server, from peer: Endpoint, caPEM: String, now: inout Instant,
            ledger: inout Ledger
        ) -> [UInt8]? {
            guard
                let client = try? HTTP3Client(
                    config: QUICConfiguration(), trustedRootsPEM: caPEM, serverName: "localhost",
                    local: peer, remote: serverAddress, resumption: nil, now: now)
            else { return nil }
            var cid: [UInt8]?
            var toServer: [[UInt8]] = []
            var toClient: [[UInt8]] = []
            var clientSent = 0
            for _ in 0..<40 where !client.isHandshakeComplete || cid == nil {
                client.write(now: now) { bytes, _, _ in
                    let d = Array(bytes)
                    clientSent += 1
                    // Byte 5 is the destination ID's length in a long header; the first datagram
                    // still carries the client's random one.
                    if clientSent > 1, d.count > 6, d[0] & 0x80 != 0, d.count >= 6 + Int(d[5]) {
                        cid = Array(d[6..<(6 + Int(d[5]))])
                    }
                    toServer.append(d)
                }
                for d in toServer {
                    ledger.received[peer, default: 0] += d.count
                    _ = d.withUnsafeBytes { server.receive($0, local: serverAddress, remote: peer, now: now) }
                }
                toServer.removeAll()
                server.write(now: now) { bytes, remote, _ in
                    ledger.sent[remote, default: 0] += bytes.count
                    if remote == peer { toClient.append(Array(bytes)) }
                }
                for d in toClient {
                    _ = d.withUnsafeBytes { client.receive($0, local: peer, remote: serverAddress, now: now) }
                }
                toClient.removeAll()
                now = now + .milliseconds(1)
            }
            guard client.isHandshakeComplete, let cid, !cid.isEmpty else { return nil }
            ledger.validated.insert(peer)
            return cid
        }
    }
}
