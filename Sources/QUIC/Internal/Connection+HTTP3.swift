import BenchCore
internal import CNgtcp2
internal import CNghttp3

extension QUICConnection {
    /// Creates the nghttp3 session and its control and QPACK streams (idempotent).
    func setUpHTTP3() throws {
        guard h3 == nil else { return }
        guard ngtcp2_conn_get_max_local_streams_uni(conn) >= 3 else {
            throw QUICError.invalidState("peer allows fewer than 3 unidirectional streams")
        }
        var callbacks = makeHTTP3Callbacks()
        var settings = nghttp3_settings()
        netbench_nghttp3_settings_default(&settings)
        settings.qpack_max_dtable_capacity = 4096
        settings.qpack_blocked_streams = 100
        settings.max_field_section_size = UInt64(max(config.maxHeaderListSize, 0))
        var raw: OpaquePointer?
        let rv =
            isServer
            ? netbench_nghttp3_conn_server_new(&raw, &callbacks, &settings, userData)
            : netbench_nghttp3_conn_client_new(&raw, &callbacks, &settings, userData)
        guard rv == 0, let raw else { throw http3Error(rv, "nghttp3_conn_new") }
        h3 = raw
        if isServer, let params = ngtcp2_conn_get_local_transport_params(conn) {
            nghttp3_conn_set_max_client_streams_bidi(raw, params.pointee.initial_max_streams_bidi)
        }
        var control: Int64 = -1, encoder: Int64 = -1, decoder: Int64 = -1
        for id in [
            withUnsafeMutablePointer(to: &control) { $0 },
            withUnsafeMutablePointer(to: &encoder) { $0 },
            withUnsafeMutablePointer(to: &decoder) { $0 },
        ] {
            let rv = ngtcp2_conn_open_uni_stream(conn, id, nil)
            guard rv == 0 else { throw transportError(rv, "ngtcp2_conn_open_uni_stream") }
        }
        var rv2 = nghttp3_conn_bind_control_stream(raw, control)
        guard rv2 == 0 else { throw http3Error(rv2, "nghttp3_conn_bind_control_stream") }
        rv2 = nghttp3_conn_bind_qpack_streams(raw, encoder, decoder)
        guard rv2 == 0 else { throw http3Error(rv2, "nghttp3_conn_bind_qpack_streams") }
    }

    // MARK: Client requests

    /// Queues a request and opens its stream as soon as HTTP/3 is up and stream credit allows.
    /// Streams open in submission order, so the n-th request gets stream 4n (RFC 9000 §2.1).
    /// A `bodyLength` > 0 sends that many filler bytes as the body (starting with `prefix`), paced by
    /// flow control.
    func submitRequest(
        method: String, authority: String, path: String, headers: [(String, String)],
        bodyLength: Int64, prefix: [UInt8] = []
    ) throws -> Int64 {
        guard isOpen else { throw QUICError.invalidState("connection is closed") }
        guard bodyLength >= 0 else { throw QUICError.invalidState("negative request body length \(bodyLength)") }
        var fields: [(String, String)] = [
            (":method", method), (":scheme", "https"),
            (":authority", authority), (":path", path),
        ]
        var hasLength = false
        for (name, value) in headers {
            let lower = name.lowercased()
            if lower == "content-length" { hasLength = true }
            fields.append((lower, value))
        }
        if bodyLength > 0 && !hasLength { fields.append(("content-length", String(bodyLength))) }
        let id = client.requests.enqueue(fields: fields, bodyLength: bodyLength, prefix: prefix)
        let rv = openPendingRequests()
        if rv != 0 { throw http3Error(rv, "nghttp3_conn_submit_request") }
        return id
    }

    /// Puts queued requests on streams; returns an nghttp3 error code or 0.
    @discardableResult
    func openPendingRequests() -> Int32 {
        guard let h3, isOpen else { return 0 }
        let client = self.client
        while let request = client.requests.next {
            var stream: Int64 = -1
            guard ngtcp2_conn_open_bidi_stream(conn, &stream, nil) == 0 else { break }
            precondition(stream == request.streamID, "stream \(stream) opened for request \(request.streamID)")
            var reader = nghttp3_data_reader(read_data: { _, stream, vec, count, flags, ud, _ in
                QUICConnection.from(ud).bodies.fill(stream, vec!, count, flags!)
            })
            // Set before submitting: nghttp3 may ask for body bytes at once.
            if request.bodyLength > 0 { bodies.start(stream, length: request.bodyLength, prefix: request.prefix) }
            let rv = withHeaderFields(request.fields) { nva, count in
                request.bodyLength > 0
                    ? nghttp3_conn_submit_request(h3, stream, nva, count, &reader, nil)
                    : nghttp3_conn_submit_request(h3, stream, nva, count, nil, nil)
            }
            if rv != 0 { bodies.end(stream); return rv }
            streams.openBidi.insert(stream)
            if client.earlyDataAttempted && handshakeCompletedAt == nil { client.requests.early.append(request) }
            client.requests.advance()
        }
        return 0
    }

    // MARK: Server responses

    /// Answers a request with `bodyLength` bytes of filler served from one shared buffer, the
    /// first and last of them `prefix` and `suffix` when given.
    func submitResponse(
        stream: Int64, status: Int, headers: [(String, String)], bodyLength: Int64,
        prefix: [UInt8] = [], suffix: [UInt8] = []
    ) throws {
        guard isOpen, let h3 else { throw QUICError.invalidState("connection is not open") }
        var fields: [(String, String)] = [(":status", String(status))]
        var hasLength = false
        for (name, value) in headers {
            let lower = name.lowercased()
            if lower == "content-length" { hasLength = true }
            fields.append((lower, value))
        }
        if !hasLength { fields.append(("content-length", String(bodyLength))) }
        var reader = nghttp3_data_reader(read_data: { _, stream, vec, count, flags, ud, _ in
            QUICConnection.from(ud).bodies.fill(stream, vec!, count, flags!)
        })
        if bodyLength > 0 { bodies.start(stream, length: bodyLength, prefix: prefix, suffix: suffix) }
        let rv = withHeaderFields(fields) { nva, count in
            bodyLength > 0
                ? nghttp3_conn_submit_response(h3, stream, nva, count, &reader)
                : nghttp3_conn_submit_response(h3, stream, nva, count, nil)
        }
        if rv != 0 {
            bodies.end(stream)
            throw http3Error(rv, "nghttp3_conn_submit_response")
        }
    }
}

/// Builds an `nghttp3_nv` array over one byte buffer for the duration of `body`; nghttp3
/// copies header fields when a request or response is submitted.
func withHeaderFields<R>(_ fields: [(String, String)], _ body: (UnsafePointer<nghttp3_nv>, Int) -> R) -> R {
    var bytes = [UInt8]()
    var spans: [(Int, Int, Int, Int)] = []
    for (name, value) in fields {
        let n = bytes.count
        bytes.append(contentsOf: name.utf8)
        let v = bytes.count
        bytes.append(contentsOf: value.utf8)
        spans.append((n, v - n, v, bytes.count - v))
    }
    bytes.append(0)
    return bytes.withUnsafeMutableBufferPointer { buf in
        let base = buf.baseAddress!
        let nva = spans.map {
            nghttp3_nv(name: base + $0.0, value: base + $0.2, namelen: $0.1, valuelen: $0.3, flags: 0)
        }
        return nva.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
    }
}

private func string(_ rcbuf: OpaquePointer?) -> String {
    let v = nghttp3_rcbuf_get_buf(rcbuf)
    guard let base = v.base else { return "" }
    return String(decoding: UnsafeBufferPointer(start: base, count: v.len), as: UTF8.self)
}

/// The nghttp3 callback table (C function pointers; the connection comes from user data).
private func makeHTTP3Callbacks() -> nghttp3_callbacks {
    var cb = nghttp3_callbacks()
    cb.stream_close = { _, stream, _, ud, _ in
        let c = QUICConnection.from(ud)
        c.streams.headers[stream] = nil
        c.streams.headerBytes[stream] = nil
        c.bodies.end(stream)
        c.server?.requestBodyBytes[stream] = nil
        if c.isServer, ngtcp2_is_bidi_stream(stream) != 0 {
            ngtcp2_conn_extend_max_streams_bidi(c.conn, 1)
        } else if !c.isServer, ngtcp2_is_bidi_stream(stream) == 0 {
            ngtcp2_conn_extend_max_streams_uni(c.conn, 1)
        }
        return 0
    }
    cb.recv_data = { _, stream, data, length, ud, _ in
        let c = QUICConnection.from(ud)
        c.consume(stream, length)
        if let server = c.server {
            server.requestBodyBytes[stream, default: 0] += Int64(length)
            server.onRequestBody?(stream, UnsafeRawBufferPointer(start: data, count: length))
        } else {
            c.appendData(stream, length)
        }
        return 0
    }
    cb.deferred_consume = { _, stream, consumed, ud, _ in
        QUICConnection.from(ud).consume(stream, consumed)
        return 0
    }
    cb.begin_headers = { _, stream, ud, _ in
        let c = QUICConnection.from(ud)
        c.streams.headers[stream] = []
        c.streams.headerBytes[stream] = 0
        return 0
    }
    cb.recv_header = { _, stream, _, name, value, _, ud, _ in
        let c = QUICConnection.from(ud)
        let field = (string(name), string(value))
        // A QPACK bomb (a large table entry referenced again and again) ends the connection
        // instead of growing a header list without bound.
        let total = c.streams.headerBytes[stream, default: 0] + field.0.utf8.count + field.1.utf8.count + 32
        guard total <= c.config.maxHeaderListSize else {
            // H3_EXCESSIVE_LOAD rather than the H3_INTERNAL_ERROR a failed callback implies: the
            // peer ignored the SETTINGS_MAX_FIELD_SECTION_SIZE we sent.
            var ccerr = ngtcp2_connection_close_error()
            ngtcp2_connection_close_error_set_application_error(&ccerr, UInt64(NGHTTP3_H3_EXCESSIVE_LOAD), nil, 0)
            c.callbackFailure = (
                ccerr,
                .http3(
                    code: NGHTTP3_ERR_CALLBACK_FAILURE,
                    message: "stream \(stream): header section over \(c.config.maxHeaderListSize) bytes")
            )
            return NGHTTP3_ERR_CALLBACK_FAILURE
        }
        c.streams.headerBytes[stream] = total
        c.streams.headers[stream, default: []].append(field)
        return 0
    }
    cb.end_headers = { _, stream, _, ud, _ in
        let c = QUICConnection.from(ud)
        guard !c.isServer, let fields = c.streams.headers[stream] else { return 0 }
        // Interim (1xx) responses are skipped; the final one is reported.
        let status = fields.first { $0.0 == ":status" }.flatMap { Int($0.1) } ?? 0
        if status >= 200 { c.events.append(.headers(stream: stream, fields: fields)) }
        c.streams.headers[stream] = nil
        return 0
    }
    cb.end_stream = { _, stream, ud, _ in
        let c = QUICConnection.from(ud)
        if c.isServer {
            let fields = c.streams.headers.removeValue(forKey: stream) ?? []
            let body = c.server?.requestBodyBytes.removeValue(forKey: stream) ?? 0
            c.events.append(.request(stream: stream, fields: fields, bodyBytes: body))
        } else {
            c.events.append(.streamEnd(stream: stream))
        }
        return 0
    }
    cb.stop_sending = { _, stream, code, ud, _ in
        let c = QUICConnection.from(ud)
        return ngtcp2_conn_shutdown_stream_read(c.conn, stream, code) == 0 ? 0 : NGHTTP3_ERR_CALLBACK_FAILURE
    }
    cb.reset_stream = { _, stream, code, ud, _ in
        let c = QUICConnection.from(ud)
        return ngtcp2_conn_shutdown_stream_write(c.conn, stream, code) == 0 ? 0 : NGHTTP3_ERR_CALLBACK_FAILURE
    }
    return cb
}

extension QUICConnection {
    /// Records body bytes, merging consecutive arrivals on one stream into one event.
    func appendData(_ stream: Int64, _ count: Int) {
        if case .data(let s, let n)? = events.last, s == stream {
            events[events.count - 1] = .data(stream: stream, count: n + count)
        } else {
            events.append(.data(stream: stream, count: count))
        }
    }
}
