import BenchCore
internal import CNgtcp2

/// Stateless Retry (RFC 9000 §8.1.2): the server answers an Initial with a Retry packet carrying
/// a token sealed with its secret; only a client that receives at its address can come back with
/// it, and that address is then validated. Tokens are ngtcp2_crypto's (AEAD over the address,
/// both connection IDs and a timestamp).
struct RetryTokens {
    let secret: [UInt8]
    /// How long a token stays valid.
    var lifetime: Nanoseconds = .seconds(10)

    /// The Retry packet answering `hd` from `remote`, or nil if one cannot be made.
    func retryPacket(for hd: ngtcp2_pkt_hd, remote: Endpoint, now: Instant) -> [UInt8]? {
        var retrySCID = ngtcp2_cid()
        fillRandomCID(&retrySCID, length: serverCIDLength)
        var odcid = hd.dcid, clientSCID = hd.scid
        var token = [UInt8](repeating: 0, count: 256)
        let tokenLength = withAddress(remote) { sa, len in
            token.withUnsafeMutableBufferPointer { t in
                ngtcp2_crypto_generate_retry_token(
                    t.baseAddress, secret, secret.count, hd.version, sa, len,
                    &retrySCID, &odcid, now.nanoseconds)
            }
        }
        guard tokenLength > 0 else { return nil }
        var packet = [UInt8](repeating: 0, count: 512)
        let n = packet.withUnsafeMutableBufferPointer { p in
            ngtcp2_crypto_write_retry(
                p.baseAddress, p.count, hd.version, &clientSCID, &retrySCID, &odcid,
                token, Int(tokenLength))
        }
        return n > 0 ? Array(packet.prefix(Int(n))) : nil
    }

    /// The client's original DCID when `hd` carries a Retry token of ours that is valid for
    /// `remote` and not expired; nil otherwise.
    func validate(_ hd: ngtcp2_pkt_hd, remote: Endpoint, now: Instant) -> ngtcp2_cid? {
        guard hd.token.len > 0, let token = hd.token.base, token[0] == UInt8(NGTCP2_CRYPTO_TOKEN_MAGIC_RETRY) else {
            return nil
        }
        var odcid = ngtcp2_cid(), dcid = hd.dcid
        let rv = withAddress(remote) { sa, len in
            ngtcp2_crypto_verify_retry_token(
                &odcid, token, hd.token.len, secret, secret.count, hd.version, sa, len,
                &dcid, UInt64(lifetime), now.nanoseconds)
        }
        return rv == 0 ? odcid : nil
    }

    /// The token `hd` carries (a Retry token, valid or not, or a NEW_TOKEN one; empty: none).
    static func token(of hd: ngtcp2_pkt_hd) -> [UInt8] {
        guard hd.token.len > 0, let base = hd.token.base else { return [] }
        return Array(UnsafeBufferPointer(start: base, count: hd.token.len))
    }

    private func withAddress<R>(_ e: Endpoint, _ body: (UnsafePointer<ngtcp2_sockaddr>, ngtcp2_socklen) -> R) -> R {
        var sa = sockaddr_in()
        netbench_sockaddr_in_set(&sa, e.address, e.port)
        return withUnsafePointer(to: &sa) { p in
            p.withMemoryRebound(to: ngtcp2_sockaddr.self, capacity: 1) {
                body($0, ngtcp2_socklen(MemoryLayout<sockaddr_in>.size))
            }
        }
    }
}
