import BenchCore
internal import CNgtcp2
internal import CNghttp3

/// The ngtcp2 callback table. Closures here capture nothing (they are C function pointers);
/// each finds its connection through `user_data`.
func makeCallbacks(server: Bool) -> ngtcp2_callbacks {
    var cb = ngtcp2_callbacks()
    if server {
        cb.recv_client_initial = ngtcp2_crypto_recv_client_initial_cb
    } else {
        cb.client_initial = ngtcp2_crypto_client_initial_cb
        cb.recv_retry = ngtcp2_crypto_recv_retry_cb
        cb.extend_max_local_streams_bidi = { _, _, ud in
            QUICConnection.from(ud).openPendingRequestsInCallback()
        }
        cb.recv_rx_key = { _, level, ud in
            QUICConnection.from(ud).clientReceivedKey(level)
        }
        cb.early_data_rejected = { _, ud in
            QUICConnection.from(ud).earlyDataWasRejected()
            return 0
        }
    }
    cb.recv_crypto_data = ngtcp2_crypto_recv_crypto_data_cb
    cb.encrypt = ngtcp2_crypto_encrypt_cb
    cb.decrypt = ngtcp2_crypto_decrypt_cb
    cb.hp_mask = ngtcp2_crypto_hp_mask_cb
    cb.update_key = ngtcp2_crypto_update_key_cb
    cb.delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb
    cb.delete_crypto_cipher_ctx = ngtcp2_crypto_delete_crypto_cipher_ctx_cb
    cb.get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb
    cb.version_negotiation = ngtcp2_crypto_version_negotiation_cb
    cb.rand = { dest, length, _ in
        _ = gnutls_rnd(GNUTLS_RND_RANDOM, dest, length)
    }
    cb.handshake_completed = { _, ud in
        QUICConnection.from(ud).handshakeDidComplete()
    }
    cb.recv_stream_data = { _, flags, stream, _, data, length, ud, _ in
        QUICConnection.from(ud).receivedStreamData(
            stream, data, length,
            fin: flags & UInt32(NGTCP2_STREAM_DATA_FLAG_FIN) != 0)
    }
    cb.acked_stream_data_offset = { _, stream, _, length, ud, _ in
        let c = QUICConnection.from(ud)
        c.streamBytesAcknowledged += Int64(length)
        guard let h3 = c.h3 else { return 0 }
        return nghttp3_conn_add_ack_offset(h3, stream, length) == 0 ? 0 : NGTCP2_ERR_CALLBACK_FAILURE
    }
    cb.stream_open = { _, stream, ud in
        let c = QUICConnection.from(ud)
        if ngtcp2_is_bidi_stream(stream) != 0 { c.streams.openBidi.insert(stream) }
        return 0
    }
    cb.stream_close = { _, flags, stream, code, ud, _ in
        let appCode =
            flags & UInt32(NGTCP2_STREAM_CLOSE_FLAG_APP_ERROR_CODE_SET) != 0
            ? code : UInt64(NGHTTP3_H3_NO_ERROR)
        return QUICConnection.from(ud).streamDidClose(stream, appCode)
    }
    cb.stream_reset = { _, stream, _, code, ud, _ in
        QUICConnection.from(ud).streamWasReset(stream, code)
    }
    cb.stream_stop_sending = { _, stream, code, ud, _ in
        let c = QUICConnection.from(ud)
        if let raw = c.raw {
            // RFC 9000 §3.5: answer STOP_SENDING with RESET_STREAM.
            raw.drop(stream)
            return ngtcp2_conn_shutdown_stream_write(c.conn, stream, code) == 0 ? 0 : NGTCP2_ERR_CALLBACK_FAILURE
        }
        guard let h3 = c.h3 else { return 0 }
        return nghttp3_conn_shutdown_stream_read(h3, stream) == 0 ? 0 : NGTCP2_ERR_CALLBACK_FAILURE
    }
    cb.extend_max_stream_data = { _, stream, _, ud, _ in
        let c = QUICConnection.from(ud)
        c.raw?.unblock(stream)
        guard let h3 = c.h3 else { return 0 }
        return nghttp3_conn_unblock_stream(h3, stream) == 0 ? 0 : NGTCP2_ERR_CALLBACK_FAILURE
    }
    cb.extend_max_remote_streams_bidi = { _, maxStreams, ud in
        let c = QUICConnection.from(ud)
        if let h3 = c.h3 { nghttp3_conn_set_max_client_streams_bidi(h3, maxStreams) }
        return 0
    }
    cb.get_new_connection_id = { _, cid, token, length, ud in
        let c = QUICConnection.from(ud)
        guard let cid, let token else { return NGTCP2_ERR_CALLBACK_FAILURE }
        fillRandomCID(&cid.pointee, length: length)
        let rv = c.staticSecret.withUnsafeBufferPointer {
            ngtcp2_crypto_generate_stateless_reset_token(token, $0.baseAddress, $0.count, cid)
        }
        guard rv == 0 else { return NGTCP2_ERR_CALLBACK_FAILURE }
        c.server?.onNewConnectionID?(ConnectionIDKey(cid.pointee))
        return 0
    }
    cb.remove_connection_id = { _, cid, ud in
        let c = QUICConnection.from(ud)
        if let cid { c.server?.onRetireConnectionID?(ConnectionIDKey(cid.pointee)) }
        return 0
    }
    cb.path_validation = { conn, _, path, result, ud in
        guard let path else { return 0 }
        QUICConnection.from(ud).pathValidationFinished(path, succeeded: result == NGTCP2_PATH_VALIDATION_RESULT_SUCCESS)
        return 0
    }
    if !server {
        cb.recv_tx_key = nil
    } else {
        cb.recv_tx_key = { _, level, ud in
            guard level == NGTCP2_CRYPTO_LEVEL_APPLICATION else { return 0 }
            let c = QUICConnection.from(ud)
            guard c.raw == nil else { return 0 }  // perf: no HTTP/3
            do { try c.setUpHTTP3() } catch { return NGTCP2_ERR_CALLBACK_FAILURE }
            return 0
        }
    }
    return cb
}

extension QUICConnection {
    func handshakeDidComplete() -> Int32 {
        handshakeCompletedAt = now
        if isServer {
            // GNUTLS_NO_AUTO_SEND_TICKET: the ticket goes out once the handshake is done.
            _ = gnutls_session_ticket_send(session, 1, 0)
            events.append(.handshakeCompleted)
            return 0
        }
        let client = self.client
        if client.earlyDataAttempted {
            client.earlyDataAccepted =
                gnutls_session_get_flags(session) & UInt32(GNUTLS_SFLAGS_EARLY_DATA.rawValue) != 0
            if !client.earlyDataAccepted {
                // GnuTLS reports the verdict only now: drop the 0-RTT streams and start over.
                guard ngtcp2_conn_early_data_rejected(conn) == 0 else { return NGTCP2_ERR_CALLBACK_FAILURE }
                do { try setUpHTTP3() } catch { return NGTCP2_ERR_CALLBACK_FAILURE }
                let rv = openPendingRequestsInCallback()
                if rv != 0 { return rv }
            }
            client.requests.early.removeAll()
        }
        events.append(.handshakeCompleted)
        return 0
    }

    /// Client: once 1-RTT keys exist, HTTP/3 can start (unless 0-RTT already started it).
    func clientReceivedKey(_ level: ngtcp2_crypto_level) -> Int32 {
        guard level == NGTCP2_CRYPTO_LEVEL_APPLICATION, raw == nil else { return 0 }
        if !client.earlyDataAttempted || ngtcp2_conn_get_early_data_rejected(conn) != 0 {
            do { try setUpHTTP3() } catch { return NGTCP2_ERR_CALLBACK_FAILURE }
            return openPendingRequestsInCallback()
        }
        return 0
    }

    /// `openPendingRequests` from inside an ngtcp2 callback, where closing must be deferred.
    func openPendingRequestsInCallback() -> Int32 {
        let rv = openPendingRequests()
        guard rv != 0 else { return 0 }
        var ccerr = ngtcp2_connection_close_error()
        ngtcp2_connection_close_error_set_application_error(
            &ccerr, nghttp3_err_infer_quic_app_error_code(rv), nil, 0)
        callbackFailure = (ccerr, http3Error(rv, "nghttp3_conn_submit_request"))
        return NGTCP2_ERR_CALLBACK_FAILURE
    }

    /// ngtcp2 discarded the 0-RTT streams: requeue their requests in order (stream IDs restart
    /// at 0, so each gets the ID it was promised).
    func earlyDataWasRejected() {
        if let h3 { nghttp3_conn_del(h3) }
        h3 = nil
        streams.openBidi.removeAll()
        streams.headers.removeAll()
        streams.headerBytes.removeAll()
        bodies.removeAll()
        client.requests.requeueEarly()
    }

    func receivedStreamData(_ stream: Int64, _ data: UnsafePointer<UInt8>?, _ length: Int, fin: Bool) -> Int32 {
        if let raw {
            if raw.perfServer != nil || raw.countOnly { return rawStreamData(raw, stream, data, length, fin: fin) }
            raw.received.append((stream, data.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? [], fin))
            consume(stream, length)
            return 0
        }
        if let tap = server?.onStreamData { tap(stream, UnsafeRawBufferPointer(start: data, count: length), fin) }
        guard let h3 else { return 0 }
        streams.held[stream, default: 0] += length
        streams.heldTotal += length
        let consumed = nghttp3_conn_read_stream(h3, stream, data, length, fin ? 1 : 0)
        if consumed < 0 {
            var ccerr = ngtcp2_connection_close_error()
            ngtcp2_connection_close_error_set_application_error(
                &ccerr, nghttp3_err_infer_quic_app_error_code(Int32(consumed)), nil, 0)
            // read_pkt fails with NGTCP2_ERR_CALLBACK_FAILURE next; remember the real reason
            // (unless one of our nghttp3 callbacks already gave it).
            callbackFailure = callbackFailure ?? (ccerr, http3Error(Int32(consumed), "nghttp3_conn_read_stream"))
            return NGTCP2_ERR_CALLBACK_FAILURE
        }
        consume(stream, consumed)
        if isServer && streams.heldTotal > heldBytesLimit {
            // nghttp3 keeps the bytes of a stream whose header block waits for a QPACK insert;
            // a peer that never sends the insert would pin a whole flow-control window.
            var ccerr = ngtcp2_connection_close_error()
            ngtcp2_connection_close_error_set_application_error(&ccerr, UInt64(NGHTTP3_H3_EXCESSIVE_LOAD), nil, 0)
            callbackFailure = (
                ccerr,
                .http3(
                    code: NGHTTP3_ERR_CALLBACK_FAILURE,
                    message: "\(streams.heldTotal) bytes held for QPACK-blocked streams (limit \(heldBytesLimit))")
            )
            return NGTCP2_ERR_CALLBACK_FAILURE
        }
        return 0
    }

    /// What a server lets its peer's QPACK-blocked streams hold at once: a blocked header section
    /// waits one round trip for its insert (a few KB), so 16 sections at the limit or 1 MiB.
    var heldBytesLimit: Int { max(1 << 20, 16 * config.maxHeaderListSize) }

    /// Returns flow-control credit for bytes HTTP/3 has consumed.
    func consume(_ stream: Int64, _ count: Int) {
        ngtcp2_conn_extend_max_stream_offset(conn, stream, UInt64(count))
        ngtcp2_conn_extend_max_offset(conn, UInt64(count))
        if let held = streams.held[stream] {
            let taken = min(held, count)
            streams.held[stream] = held - taken
            streams.heldTotal -= taken
        }
    }

    func streamDidClose(_ stream: Int64, _ code: UInt64) -> Int32 {
        if let held = streams.held.removeValue(forKey: stream) { streams.heldTotal -= held }
        if streams.openBidi.remove(stream) != nil {
            statistics.streamFramesLost += UInt64(ngtcp2_conn_get_stream_loss_count(conn, stream))
        }
        if let raw { rawStreamDidClose(raw, stream); return 0 }
        guard let h3 else { return 0 }
        let rv = nghttp3_conn_close_stream(h3, stream, code)
        switch rv {
        case 0:
            return 0
        case NGHTTP3_ERR_STREAM_NOT_FOUND:
            // A stream that carried no HTTP/3 data: give the peer its stream credit back.
            if ngtcp2_conn_is_local_stream(conn, stream) == 0 {
                if ngtcp2_is_bidi_stream(stream) != 0 {
                    ngtcp2_conn_extend_max_streams_bidi(conn, 1)
                } else {
                    ngtcp2_conn_extend_max_streams_uni(conn, 1)
                }
            }
            return 0
        default:
            return NGTCP2_ERR_CALLBACK_FAILURE
        }
    }

    func streamWasReset(_ stream: Int64, _ code: UInt64) -> Int32 {
        if !isServer, ngtcp2_is_bidi_stream(stream) != 0 {
            events.append(.streamReset(stream: stream, code: code))
        }
        guard let h3 else { return 0 }
        return nghttp3_conn_shutdown_stream_read(h3, stream) == 0 ? 0 : NGTCP2_ERR_CALLBACK_FAILURE
    }

    func pathValidationFinished(_ path: UnsafePointer<ngtcp2_path>, succeeded: Bool) {
        if succeeded { statistics.pathValidations += 1 } else { statistics.pathValidationFailures += 1 }
        guard let local = Endpoint(path.pointee.local), let remote = Endpoint(path.pointee.remote) else { return }
        events.append(.pathValidated(local: local, remote: remote, succeeded: succeeded))
    }
}
