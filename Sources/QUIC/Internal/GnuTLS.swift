internal import CNgtcp2
import Synchronization

/// TLS 1.3 only, the AEADs QUIC defines, no middlebox-compatibility mode (RFC 9001 §8.4).
let quicPriority =
    "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:"
    + "+CHACHA20-POLY1305:+AES-128-CCM:-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:"
    + "+GROUP-SECP384R1:+GROUP-SECP521R1:%DISABLE_TLS13_COMPAT_MODE"

func gnutlsMessage(_ code: Int32) -> String {
    String(cString: gnutls_strerror(code))
}

func tlsError(_ code: Int32, _ call: String) -> QUICError {
    .tls(code: code, message: "\(call): \(gnutlsMessage(code))")
}

/// Calls `body` with a NUL-terminated copy of `text` as a `gnutls_datum_t` (PEM must be
/// NUL-terminated; the size excludes the NUL).
func withDatum<R>(_ text: String, _ body: (UnsafePointer<gnutls_datum_t>) -> R) -> R {
    var bytes = Array(text.utf8)
    let size = UInt32(bytes.count)
    bytes.append(0)
    return bytes.withUnsafeMutableBufferPointer { buf in
        var datum = gnutls_datum_t(data: buf.baseAddress, size: size)
        return body(&datum)
    }
}

/// The client's certificate credentials: the trusted roots it verifies servers against.
final class ClientTLSCredentials: @unchecked Sendable {  // read-only once made
    let handle: gnutls_certificate_credentials_t

    init(trustedRootsPEM: String) throws {
        var cred: gnutls_certificate_credentials_t?
        let rv = gnutls_certificate_allocate_credentials(&cred)
        guard rv == 0, let cred else { throw tlsError(rv, "gnutls_certificate_allocate_credentials") }
        handle = cred
        let added = withDatum(trustedRootsPEM) {
            gnutls_certificate_set_x509_trust_mem(cred, $0, GNUTLS_X509_FMT_PEM)
        }
        guard added > 0 else {
            throw added < 0
                ? tlsError(added, "gnutls_certificate_set_x509_trust_mem")
                : QUICError.configuration("no certificate found in the trusted roots PEM")
        }
    }

    deinit { gnutls_certificate_free_credentials(handle) }

    /// The credentials for `trustedRootsPEM`, parsed once and shared by the connections that
    /// trust the same roots, as the TCP clients share one `SSL_CTX`: parsing the roots for every
    /// connection cost each QUIC connection ~0.1 ms of the client's CPU that no TCP connection
    /// paid. The last few root sets are kept (a run's CA changes between blocks of runs).
    static func shared(trustedRootsPEM: String) throws -> ClientTLSCredentials {
        if let hit = recent.withLock({ $0.first { $0.pem == trustedRootsPEM }?.credentials }) { return hit }
        let made = try ClientTLSCredentials(trustedRootsPEM: trustedRootsPEM)
        recent.withLock { list in
            list.insert((trustedRootsPEM, made), at: 0)
            if list.count > 4 { list.removeLast() }
        }
        return made
    }

    private static let recent = Mutex<[(pem: String, credentials: ClientTLSCredentials)]>([])
}

/// Everything a server shares between its TLS sessions: certificates (GnuTLS picks the one
/// whose names match the client's SNI, else the first), the session-ticket key, and the
/// anti-replay context GnuTLS requires before it accepts 0-RTT.
final class ServerTLSContext {
    let credentials: gnutls_certificate_credentials_t
    let ticketKey: UnsafeMutablePointer<gnutls_datum_t>
    let antiReplay: gnutls_anti_replay_t
    static let antiReplayWindowMs: UInt32 = 86_400_000

    init(credentials list: [QUICServerCredentials]) throws {
        guard !list.isEmpty else { throw QUICError.configuration("no server certificate given") }
        var cred: gnutls_certificate_credentials_t?
        var rv = gnutls_certificate_allocate_credentials(&cred)
        guard rv == 0, let cred else { throw tlsError(rv, "gnutls_certificate_allocate_credentials") }
        credentials = cred
        ticketKey = .allocate(capacity: 1)
        ticketKey.initialize(to: gnutls_datum_t(data: nil, size: 0))
        var ar: gnutls_anti_replay_t?
        rv = gnutls_anti_replay_init(&ar)
        guard rv == 0, let ar else {
            gnutls_certificate_free_credentials(cred)
            ticketKey.deallocate()
            throw tlsError(rv, "gnutls_anti_replay_init")
        }
        antiReplay = ar
        // Every ClientHello counts as fresh: a benchmark replays nothing on purpose, and a
        // database of seen tickets would only add cost (GnuTLS still checks the ticket age).
        gnutls_anti_replay_set_add_function(ar) { _, _, _, _ in 0 }
        // GnuTLS's window (10 s by default) also bounds a ticket's usefulness: once a 0-RTT
        // ClientHello arrives more than a window after the recording started, GnuTLS restarts the
        // recording, rejects that early data, and rejects every ticket issued before the restart.
        // A repeat-view load seconds after the priming one (any weak-network page) would then
        // measure 0-RTT rejected, which a browser meeting a real server with a ticket database
        // does not see. One day covers any suite; the ticket age check stays in place.
        gnutls_anti_replay_set_window(ar, Self.antiReplayWindowMs)

        for item in list {
            let rv = withDatum(item.certificateChainPEM) { cert in
                withDatum(item.privateKeyPEM) { key in
                    gnutls_certificate_set_x509_key_mem2(cred, cert, key, GNUTLS_X509_FMT_PEM, nil, 0)
                }
            }
            guard rv >= 0 else { throw tlsError(rv, "gnutls_certificate_set_x509_key_mem2") }
        }
        rv = gnutls_session_ticket_key_generate(ticketKey)
        guard rv == 0 else { throw tlsError(rv, "gnutls_session_ticket_key_generate") }
    }

    deinit {
        gnutls_anti_replay_deinit(antiReplay)
        netbench_gnutls_free(ticketKey.pointee.data)
        ticketKey.deallocate()
        gnutls_certificate_free_credentials(credentials)
    }
}

private let hexDigits = Array("0123456789abcdef".utf8)

func hex(_ bytes: UnsafeRawBufferPointer) -> String {
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for b in bytes {
        out.append(hexDigits[Int(b >> 4)])
        out.append(hexDigits[Int(b & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// Whether `name` is an IPv4 or IPv6 literal, which must not be sent as SNI (RFC 6066 §3).
func isIPLiteral(_ name: String) -> Bool {
    if name.contains(":") { return true }
    let parts = name.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
}
