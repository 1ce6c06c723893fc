internal import COpenSSL

/// What `TLSConnection.readPlaintext(into:)` produced.
public enum TLSReadResult: Sendable, Equatable {
    /// This many plaintext bytes were written to the start of the buffer.
    case bytes(Int)
    /// No complete record is buffered: feed more ciphertext (and write out pending ciphertext).
    case wantMore
    /// The peer sent close_notify; no more plaintext will come.
    case closed
}

/// One TLS connection over memory: the caller moves ciphertext between it and the socket.
///
/// Loop contract: after the socket reads, `receiveCiphertext`; then `handshake()` until it
/// returns true, afterwards `readPlaintext` until `.wantMore`; after every call, while
/// `hasPendingCiphertext`, write `takeCiphertext` to the socket. TLS 1.3 session tickets
/// arrive after the handshake and are consumed by `readPlaintext`.
///
/// Not thread-safe: one event-loop thread drives a connection. The connection keeps its
/// context alive.
public final class TLSConnection {
    private let ssl: OpaquePointer
    /// Ciphertext from the peer (owned by `ssl`).
    private let incoming: OpaquePointer
    /// Ciphertext for the peer (owned by `ssl`).
    private let outgoing: OpaquePointer
    /// `outgoing`'s queue, read in place (`pendingCiphertext`) without a call through OpenSSL.
    private let outgoingQueue: ByteQueueBIO.Queue
    let serverContext: TLSServerContext?
    let clientContext: TLSClientContext?
    /// The name a client connects to (SNI unless an IP literal, verified against the certificate).
    let peerName: String?
    /// Latched: OpenSSL's own state leaves "finished" after a fatal error.
    public private(set) var isHandshakeComplete = false

    private init(
        ctx: OpaquePointer, server: TLSServerContext?, client: TLSClientContext?,
        peerName: String?
    ) throws {
        let operation = "creating a TLS connection"
        guard let ssl = SSL_new(ctx) else { throw TLSError.fromQueue(.configuration, operation: operation) }
        // An empty queue means "wait for more", not end of stream (ByteQueueBIO).
        guard let incoming = ByteQueueBIO.make() else {
            SSL_free(ssl)
            throw TLSError.fromQueue(.configuration, operation: operation)
        }
        guard let outgoing = ByteQueueBIO.make() else {
            BIO_free(incoming)
            SSL_free(ssl)
            throw TLSError.fromQueue(.configuration, operation: operation)
        }
        SSL_set_bio(ssl, incoming, outgoing)
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
        outgoingQueue = ByteQueueBIO.queue(outgoing)
        self.serverContext = server
        self.clientContext = client
        self.peerName = peerName
        // For the new-session callback; valid because callbacks run inside our own SSL_* calls.
        _ = SSL_set_ex_data(ssl, connectionExDataIndex, Unmanaged.passUnretained(self).toOpaque())
    }

    /// A server-side connection for one accepted socket.
    public convenience init(server: TLSServerContext) throws {
        try self.init(ctx: server.ctx, server: server, client: nil, peerName: nil)
        SSL_set_accept_state(ssl)
    }

    /// A client-side connection to `serverName`: a DNS name (sent as SNI, checked against the
    /// certificate's SAN) or an IP literal (no SNI, checked against SAN IP entries). Offers the
    /// stored session for that name when the context resumes.
    public convenience init(client: TLSClientContext, serverName: String) throws {
        try self.init(ctx: client.ctx, server: nil, client: client, peerName: serverName)
        SSL_set_connect_state(ssl)
        let operation = "setting the server name \"\(serverName)\""
        guard !serverName.isEmpty else {
            throw TLSError(.configuration, operation: operation, message: "the name is empty")
        }
        if let address = a2i_IPADDRESS(serverName) {
            ASN1_OCTET_STRING_free(address)
            try check(X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName) == 1, .configuration, operation)
        } else {
            try check(netbench_SSL_set_tlsext_host_name(ssl, serverName) == 1, .configuration, operation)
            SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
            try check(SSL_set1_host(ssl, serverName) == 1, .configuration, operation)
        }
        if let session = client.sessions?.session(for: serverName) {
            try check(SSL_set_session(ssl, session.pointer) == 1, .configuration, "offering a stored session")
        }
        ERR_clear_error()  // a2i_IPADDRESS leaves an entry for every DNS name
    }

    deinit {
        // OpenSSL marks the session of an SSL freed without close_notify as not resumable (a
        // TLS 1.0-era rule). netbench drops connections without it on purpose; fatal alerts
        // have already invalidated the session where that matters.
        SSL_set_shutdown(ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN)
        SSL_free(ssl)  // also frees both BIOs
    }

    public var isClient: Bool { clientContext != nil }

    // MARK: Ciphertext in and out

    /// Bytes the socket read; all are buffered (the queue grows as needed).
    public func receiveCiphertext(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        var written = 0
        let ok = BIO_write_ex(incoming, base, bytes.count, &written)
        precondition(ok == 1 && written == bytes.count, "ciphertext queue write failed")
    }

    public var hasPendingCiphertext: Bool { outgoingQueue.count > 0 }

    /// Bytes waiting to be written to the socket.
    public var pendingCiphertextCount: Int { outgoingQueue.count }

    /// The bytes waiting for the socket, in place: valid until the next call on this connection.
    /// Write them straight to the socket and `dropCiphertext` what it took (no copy on the way).
    public var pendingCiphertext: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: outgoingQueue.storage + outgoingQueue.start, count: outgoingQueue.count)
    }

    /// Removes the first `count` bytes of `pendingCiphertext` (the socket took them).
    public func dropCiphertext(_ count: Int) { outgoingQueue.drop(count) }

    /// Up to `max` bytes for the socket, removed from the connection.
    public func takeCiphertext(max: Int) -> [UInt8] {
        let count = Swift.min(max, pendingCiphertextCount)
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = takeCiphertext(into: UnsafeMutableRawBufferPointer(buffer))
        }
    }

    /// Copies up to `buffer.count` bytes for the socket into `buffer` and returns how many;
    /// no allocation.
    public func takeCiphertext(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        var read = 0
        return BIO_read_ex(outgoing, base, buffer.count, &read) == 1 ? read : 0
    }

    // MARK: Handshake and plaintext

    /// Advances the handshake with the ciphertext received so far. Returns true once it is
    /// complete; false when it waits for the peer. Throws on failure; the alert for the peer is
    /// then pending ciphertext, worth sending before closing.
    public func handshake() throws -> Bool {
        try throwIfFailed()
        if isHandshakeComplete { return true }
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            isHandshakeComplete = true
            return true
        }
        let code = SSL_get_error(ssl, result)
        if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE { return false }
        try failOrDefer(code, after: 0)
        return false
    }

    /// Decrypts as many buffered records as fit into `buffer` (pass a large one, e.g. 256 KiB:
    /// one call then covers many 16 KiB records). `.closed` and errors that follow some bytes
    /// are reported by the next call; after a failure every call throws it again.
    public func readPlaintext(into buffer: UnsafeMutableRawBufferPointer) throws -> TLSReadResult {
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            preconditionFailure("readPlaintext needs a non-empty buffer")
        }
        try throwIfFailed()
        var total = 0
        while total < buffer.count {
            ERR_clear_error()
            var read = 0
            if SSL_read_ex(ssl, base + total, buffer.count - total, &read) == 1 {
                isHandshakeComplete = true  // a read may finish the handshake implicitly
                total += read
                continue
            }
            noteImplicitHandshake()
            let code = SSL_get_error(ssl, 0)
            switch code {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return total > 0 ? .bytes(total) : .wantMore
            case SSL_ERROR_ZERO_RETURN: return total > 0 ? .bytes(total) : .closed
            default: try failOrDefer(code, after: total)
            }
            return .bytes(total)
        }
        return .bytes(total)
    }

    /// Soft bound on pending ciphertext: `writePlaintext` stops accepting plaintext once this
    /// many bytes wait for the socket (one record may overshoot it). Backpressure for callers
    /// that hand over large buffers.
    public var pendingCiphertextLimit = 256 * 1024

    /// Encrypts plaintext into pending ciphertext, record by record (at most `recordSize` bytes
    /// each, 16 KiB at most; the last record ends with `bytes`), until all of `bytes` is taken or
    /// `pendingCiphertextLimit` is reached; returns how many bytes were taken (0 while the
    /// handshake is under way or the limit is reached).
    public func writePlaintext(_ bytes: UnsafeRawBufferPointer, recordSize: Int = 16_384) throws -> Int {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return 0 }
        precondition(recordSize > 0, "record size must be positive")
        try throwIfFailed()
        var total = 0
        while total < bytes.count && pendingCiphertextCount < pendingCiphertextLimit {
            ERR_clear_error()
            var written = 0
            // One SSL_write of at most max_send_fragment (16 KiB) bytes makes exactly one record.
            if SSL_write_ex(ssl, base + total, Swift.min(recordSize, bytes.count - total), &written) == 1 {
                isHandshakeComplete = true  // a write may finish the handshake implicitly
                total += written
                continue
            }
            noteImplicitHandshake()
            let code = SSL_get_error(ssl, 0)
            if code != SSL_ERROR_WANT_READ && code != SSL_ERROR_WANT_WRITE {
                try failOrDefer(code, after: total)
            }
            break
        }
        return total
    }

    /// Queues close_notify (as pending ciphertext). Nothing is sent before the handshake ends
    /// or after a failure (whose alert is already pending).
    public func shutdown() {
        guard isHandshakeComplete, fatalFailure == nil else { return }
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    // MARK: What was negotiated

    public var negotiatedALPN: String? {
        var data: UnsafePointer<UInt8>? = nil
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Nil until the handshake completes.
    public var negotiatedVersion: TLSVersion? {
        isHandshakeComplete ? TLSVersion(protocolConstant: SSL_version(ssl)) : nil
    }

    /// OpenSSL's name of the cipher, e.g. "TLS_AES_128_GCM_SHA256" or "ECDHE-ECDSA-AES128-GCM-SHA256".
    public var negotiatedCipher: String? {
        guard isHandshakeComplete, let cipher = SSL_get_current_cipher(ssl),
            let name = SSL_CIPHER_get_name(cipher)
        else { return nil }
        return String(cString: name)
    }

    /// Whether the handshake resumed a session (SSL_session_reused).
    public var sessionResumed: Bool { SSL_session_reused(ssl) == 1 }

    /// The SNI the client sent (server side) or the name connected to (client side).
    public var serverName: String? {
        if isClient { return peerName }
        return SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) }
    }

    /// The common name of the peer's leaf certificate (client side: which identity the server chose).
    public var peerCertificateCommonName: String? {
        guard let x509 = SSL_get1_peer_certificate(ssl) else { return nil }
        return Certificate(owning: x509).commonName
    }

    // MARK: Errors

    /// The first fatal failure. TLS errors are terminal, and OpenSSL's answer to later calls
    /// ("unexpected EOF") would hide the cause, so every later call throws this again.
    private var fatalFailure: TLSError?

    /// Records the failure; throws it unless `count` bytes were already moved in this call
    /// (then the next call throws it).
    private func failOrDefer(_ code: Int32, after count: Int) throws {
        let error = failure(code)
        fatalFailure = error
        if count == 0 { throw error }
    }

    private func throwIfFailed() throws {
        if let fatalFailure { throw fatalFailure }
    }

    /// Records a handshake that SSL_read/SSL_write completed before returning "want more".
    private func noteImplicitHandshake() {
        if !isHandshakeComplete && SSL_is_init_finished(ssl) == 1 { isHandshakeComplete = true }
    }

    private func failure(_ code: Int32) -> TLSError {
        let inHandshake = !isHandshakeComplete
        var kind: TLSError.Kind = inHandshake ? .handshake : .connection
        let operation =
            inHandshake
            ? (isClient
                ? "TLS handshake with \(peerName ?? "?")" : "TLS handshake (server, SNI \(serverName ?? "none"))")
            : "TLS connection \(isClient ? "to \(peerName ?? "?")" : "(server)")"
        var parts: [String] = []
        let verify = SSL_get_verify_result(ssl)
        if isClient && inHandshake && verify != Int(X509_V_OK) {
            kind = .certificateVerification
            parts.append("certificate verification failed: \(String(cString: X509_verify_cert_error_string(verify)))")
        }
        let queue = drainErrorQueue()
        if !queue.isEmpty { parts.append(queue) }
        if parts.isEmpty {
            parts.append(code == SSL_ERROR_SYSCALL ? "unexpected end of stream" : "SSL_get_error \(code)")
        }
        return TLSError(kind, operation: operation, message: parts.joined(separator: "; "))
    }
}
