import BenchCore
import Glibc
internal import CNgtcp2

extension QUICConnection {
    func setUpClientTLS(credentials: ClientTLSCredentials, serverName: String, ticket: [UInt8]?) throws {
        var s: gnutls_session_t?
        var rv = gnutls_init(&s, netbench_gnutls_client_flags())
        guard rv == 0, let s else { throw tlsError(rv, "gnutls_init") }
        session = s
        try commonTLSSetUp(credentials.handle)
        guard ngtcp2_crypto_gnutls_configure_client_session(s) == 0 else {
            throw QUICError.configuration("ngtcp2_crypto_gnutls_configure_client_session failed")
        }
        if let ticket {
            rv = ticket.withUnsafeBytes { gnutls_session_set_data(s, $0.baseAddress, $0.count) }
            guard rv == 0 else { throw tlsError(rv, "gnutls_session_set_data") }
        }
        try setALPN(flags: UInt32(GNUTLS_ALPN_MANDATORY.rawValue))
        if config.clientHelloPadding > 0 {
            rv = netbench_gnutls_add_client_hello_padding(s, config.clientHelloPadding)
            guard rv == 0 else { throw tlsError(rv, "padding the ClientHello by \(config.clientHelloPadding) bytes") }
        }
        if !isIPLiteral(serverName) {
            rv = gnutls_server_name_set(s, GNUTLS_NAME_DNS, serverName, serverName.utf8.count)
            guard rv == 0 else { throw tlsError(rv, "gnutls_server_name_set") }
        }
        // GnuTLS keeps this pointer for the session's life: own a C copy.
        client.verifiedName = strdup(serverName)
        gnutls_session_set_verify_cert(s, client.verifiedName, 0)
        gnutls_handshake_set_hook_function(
            s, UInt32(GNUTLS_HANDSHAKE_NEW_SESSION_TICKET.rawValue), GNUTLS_HOOK_POST
        ) { session, _, _, _, _ in
            QUICConnection.fromSession(session)?.sessionTicketArrived()
            return 0
        }
    }

    func setUpServerTLS(_ tls: ServerTLSContext) throws {
        var s: gnutls_session_t?
        var rv = gnutls_init(&s, netbench_gnutls_server_flags())
        guard rv == 0, let s else { throw tlsError(rv, "gnutls_init") }
        session = s
        try commonTLSSetUp(tls.credentials)
        rv = gnutls_session_ticket_enable_server(s, tls.ticketKey)
        guard rv == 0 else { throw tlsError(rv, "gnutls_session_ticket_enable_server") }
        guard ngtcp2_crypto_gnutls_configure_server_session(s) == 0 else {
            throw QUICError.configuration("ngtcp2_crypto_gnutls_configure_server_session failed")
        }
        gnutls_anti_replay_enable(s, tls.antiReplay)
        // QUIC requires max_early_data_size 0xffffffff in tickets that allow 0-RTT (RFC 9001 §4.6.1).
        _ = gnutls_record_set_max_early_data_size(s, 0xffff_ffff)
        try setALPN(flags: UInt32(GNUTLS_ALPN_MANDATORY.rawValue | GNUTLS_ALPN_SERVER_PRECEDENCE.rawValue))
    }

    private func commonTLSSetUp(_ credentials: gnutls_certificate_credentials_t) throws {
        var rv = gnutls_priority_set_direct(session, quicPriority, nil)
        guard rv == 0 else { throw tlsError(rv, "gnutls_priority_set_direct") }
        gnutls_session_set_ptr(session, UnsafeMutableRawPointer(connRef))
        rv = gnutls_credentials_set(session, GNUTLS_CRD_CERTIFICATE, UnsafeMutableRawPointer(credentials))
        guard rv == 0 else { throw tlsError(rv, "gnutls_credentials_set") }
        if keyLog != nil {
            gnutls_session_set_keylog_function(session) { session, label, secret in
                guard let c = QUICConnection.fromSession(session), let log = c.keyLog,
                    let label, let secret
                else { return 0 }
                var clientRandom = gnutls_datum_t(), serverRandom = gnutls_datum_t()
                gnutls_session_get_random(session, &clientRandom, &serverRandom)
                log.keyLogLine(
                    String(cString: label) + " "
                        + hex(UnsafeRawBufferPointer(start: clientRandom.data, count: Int(clientRandom.size))) + " "
                        + hex(UnsafeRawBufferPointer(start: secret.pointee.data, count: Int(secret.pointee.size))))
                return 0
            }
        }
    }

    private func setALPN(flags: UInt32) throws {
        var bytes = Array(config.alpn.utf8)
        let rv = bytes.withUnsafeMutableBufferPointer { buf -> Int32 in
            var datum = gnutls_datum_t(data: buf.baseAddress, size: UInt32(buf.count))
            return gnutls_alpn_set_protocols(session, &datum, 1, flags)
        }
        guard rv == 0 else { throw tlsError(rv, "gnutls_alpn_set_protocols") }
    }

    static func fromSession(_ session: gnutls_session_t?) -> QUICConnection? {
        guard let session, let ref = gnutls_session_get_ptr(session) else { return nil }
        let connRef = ref.assumingMemoryBound(to: ngtcp2_crypto_conn_ref.self)
        return Unmanaged<QUICConnection>.fromOpaque(connRef.pointee.user_data).takeUnretainedValue()
    }

    /// Client: a NewSessionTicket arrived; package it with the server's transport parameters.
    func sessionTicketArrived() {
        var data = gnutls_datum_t()
        guard gnutls_session_get_data2(session, &data) == 0, let bytes = data.data else { return }
        defer { netbench_gnutls_free(bytes) }
        let ticket = Array(UnsafeRawBufferPointer(start: bytes, count: Int(data.size)))
        guard let params = ngtcp2_conn_get_remote_transport_params(conn) else { return }
        client.resumption = QUICResumptionState(
            ticket: ticket, serverName: client.serverName, alpn: config.alpn,
            params: params.pointee)
        events.append(.resumptionReady)
    }
}
