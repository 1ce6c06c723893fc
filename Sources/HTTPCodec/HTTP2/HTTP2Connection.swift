internal import CNghttp2
import BenchCore

/// One HTTP/2 connection endpoint over nghttp2, with no I/O: bytes from the peer go into
/// `receive`, events come out; bytes for the peer come out of `takeOutbound` as fast as the
/// caller can write them (stop calling it when the socket would block: that is the backpressure).
///
/// Response bodies are generated (`BodyFiller`) frame by frame as flow control allows; they
/// are never held whole. Receive windows are replenished automatically as DATA arrives
/// (the client counts bytes and discards them), so bodies larger than any window never stall.
///
/// Not thread-safe: drive it from one event loop.
public final class HTTP2Connection {
    public enum Role: Sendable { case client, server }

    public let role: Role
    public let settings: HTTP2Settings
    private let session: OpaquePointer
    private let state: HTTP2SessionState
    /// Bytes nghttp2 serialized that did not fit the caller's buffer; sent first next time.
    private var overflow: [UInt8] = []
    private var overflowStart = 0
    /// Whether the frame whose tail is in `overflow` ends a header block.
    private var overflowEndsHeaderBlock = false
    private var failure: HTTP2Error?
    /// The fields of the message being submitted (reused: a message allocates no list of its own).
    private var fields = NameValueList()

    /// Creates the session and queues our SETTINGS (and, for a client, the connection preface)
    /// so that `wantsWrite` is true from the start.
    /// - Parameter settings: defaults to `.chromeClient` or `.defaultServer`.
    /// - Parameter limits: what the peer may make us do (a server facing clients it does not control).
    public init(role: Role, settings: HTTP2Settings? = nil, limits: HTTP2Limits? = nil) throws(HTTP2Error) {
        self.role = role
        self.settings = settings ?? (role == .client ? .chromeClient : .defaultServer)
        state = HTTP2SessionState(isServer: role == .server)
        state.limits = limits
        session = try Self.makeSession(role: role, limits: limits, userData: Unmanaged.passUnretained(state).toOpaque())
        try submitSettings()
    }

    deinit {
        nghttp2_session_del(session)
    }

    private static func makeSession(role: Role, limits: HTTP2Limits?, userData: UnsafeMutableRawPointer)
        throws(HTTP2Error) -> OpaquePointer
    {
        var callbacks: OpaquePointer?
        try check(nghttp2_session_callbacks_new(&callbacks), "nghttp2_session_callbacks_new")
        defer { nghttp2_session_callbacks_del(callbacks) }
        HTTP2Callbacks.install(into: callbacks!)
        var option: OpaquePointer?
        try check(nghttp2_option_new(&option), "nghttp2_option_new")
        defer { nghttp2_option_del(option) }
        if let limits { nghttp2_option_set_max_continuations(option, max(limits.maxContinuations, 0)) }
        var session: OpaquePointer?
        if role == .client {
            try check(nghttp2_session_client_new2(&session, callbacks, userData, option), "nghttp2_session_client_new2")
        } else {
            try check(nghttp2_session_server_new2(&session, callbacks, userData, option), "nghttp2_session_server_new2")
        }
        return session!
    }

    private func submitSettings() throws(HTTP2Error) {
        var entries: [nghttp2_settings_entry] = []
        func add(_ id: nghttp2_settings_id, _ value: UInt32?) {
            if let value { entries.append(nghttp2_settings_entry(settings_id: Int32(id.rawValue), value: value)) }
        }
        add(NGHTTP2_SETTINGS_HEADER_TABLE_SIZE, settings.headerTableSize)
        add(NGHTTP2_SETTINGS_ENABLE_PUSH, settings.enablePush.map { $0 ? 1 : 0 })
        add(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, settings.maxConcurrentStreams)
        add(
            NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE,
            settings.initialWindowSize == 65_535 ? nil : settings.initialWindowSize)
        add(NGHTTP2_SETTINGS_MAX_FRAME_SIZE, settings.maxFrameSize)
        add(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, settings.maxHeaderListSize)
        try Self.check(
            nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), entries, entries.count),
            "nghttp2_submit_settings")
        if settings.connectionWindowSize != 65_535 {
            guard settings.connectionWindowSize <= UInt32(Int32.max) else {
                throw .library(
                    call: "nghttp2_session_set_local_window_size", code: NGHTTP2_ERR_INVALID_ARGUMENT.rawValue,
                    message: "connection window over 2^31-1")
            }
            try Self.check(
                nghttp2_session_set_local_window_size(
                    session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0,
                    Int32(settings.connectionWindowSize)),
                "nghttp2_session_set_local_window_size")
        }
    }

    // MARK: input

    /// Feeds bytes read from the peer.
    /// - Returns: the events they caused, after any left from sending (see `takeEvents`).
    /// - Throws: `HTTP2Error.library` when nghttp2 cannot go on (bad client preface, flooding):
    ///   close the connection. Lesser protocol violations instead produce a GOAWAY to flush
    ///   and a `.connectionError` event.
    /// - Parameter now: when the bytes arrived (the peer's frames are rate-limited per second).
    public func receive(_ bytes: UnsafeRawBufferPointer, now: Instant = .now()) throws(HTTP2Error) -> [HTTP2Event] {
        if let failure { throw failure }
        guard let base = bytes.baseAddress, bytes.count > 0 else { return state.takeEvents() }
        state.now = now.nanoseconds
        let result = nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        // Over a rate limit: the GOAWAY is queued; `.connectionError` comes once it is sent.
        if result < 0 && state.calmReason != nil { return state.takeEvents() }
        if result < 0 {
            let error = HTTP2Error.library(
                call: "nghttp2_session_mem_recv", code: Int32(result),
                message: String(cString: nghttp2_strerror(Int32(result))))
            failure = error
            throw error
        }
        return state.takeEvents()
    }

    public func receive(_ bytes: [UInt8], now: Instant = .now()) throws(HTTP2Error) -> [HTTP2Event] {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(HTTP2Error) in try receive(buffer, now: now) }
        }
        return try result.get()
    }

    /// Events caused by sending (streams closed when their last frame went out, a protocol
    /// error GOAWAY) that no `receive` has returned yet.
    public func takeEvents() -> [HTTP2Event] {
        state.takeEvents()
    }

    // MARK: output

    /// The id the next locally opened stream gets (nghttp2 numbers streams as they are submitted).
    public var nextStreamID: Int32 { Int32(truncatingIfNeeded: nghttp2_session_get_next_stream_id(session)) }

    /// Whether there is something to send.
    public var wantsWrite: Bool {
        overflowStart < overflow.count || nghttp2_session_want_write(session) != 0
    }

    /// Whether the session still expects input; when neither this nor `wantsWrite` holds,
    /// the connection is done and can be closed.
    public var wantsRead: Bool {
        failure == nil && nghttp2_session_want_read(session) != 0
    }

    public var isFinished: Bool { !wantsRead && !wantsWrite }

    /// Copies up to `buffer.count` bytes to send into `buffer`.
    /// - Returns: bytes written; 0 when there is nothing to send now (flow control, nothing
    ///   submitted). Bytes are taken from nghttp2 frame by frame, so a caller that stops
    ///   when its socket is full leaves the rest unserialized inside nghttp2.
    /// - Parameter endingAtHeaderBlock: stop right after the frame that ends a header block
    ///   (HEADERS or CONTINUATION with END_HEADERS), so that the caller can close a TLS record
    ///   there and the peer can decode the head without the DATA behind it.
    /// - Parameter sharedHeaderRecord: with `endingAtHeaderBlock`, a header block may share its
    ///   record with the frames after it while the bytes taken stay within this many (a record that
    ///   fits one packet arrives whole, so the head waits for nothing): many small responses then go
    ///   out in a few records instead of one per head. The frame that would go past it is kept for
    ///   the next call.
    public func takeOutbound(
        into buffer: UnsafeMutableRawBufferPointer,
        endingAtHeaderBlock: Bool = false, sharedHeaderRecord: Int = 0
    ) throws(HTTP2Error) -> Int {
        var written = 0
        try produce(
            limit: buffer.count, endingAtHeaderBlock: endingAtHeaderBlock, sharedHeaderRecord: sharedHeaderRecord
        ) { chunk in
            (buffer.baseAddress! + written).copyMemory(from: chunk.baseAddress!, byteCount: chunk.count)
            written += chunk.count
        }
        return written
    }

    /// Up to `max` bytes to send, as an array.
    public func takeOutbound(max: Int = .max) throws(HTTP2Error) -> [UInt8] {
        var out: [UInt8] = []
        try produce(limit: max) { out.append(contentsOf: $0) }
        return out
    }

    /// Hands `consume` the next bytes to send, at most `limit` in all, in order.
    private func produce(
        limit: Int, endingAtHeaderBlock: Bool = false, sharedHeaderRecord: Int = 0,
        _ consume: (UnsafeRawBufferPointer) -> Void
    ) throws(HTTP2Error) {
        if let failure { throw failure }
        var remaining = limit
        // Once a header block has been taken and the bytes stay within `sharedHeaderRecord`,
        // further frames may join it only while the total stays within that too.
        var sharing = false
        /// Whether to stop at the end of a header block, `limit - remaining` bytes taken.
        func stopsAtHeaderBlock() -> Bool {
            if limit - remaining <= sharedHeaderRecord { sharing = true; return false }
            return true
        }
        if overflowStart < overflow.count {
            let n = min(remaining, overflow.count - overflowStart)
            overflow.withUnsafeBytes {
                consume(UnsafeRawBufferPointer(rebasing: $0[overflowStart..<overflowStart + n]))
            }
            overflowStart += n
            remaining -= n
            if overflowStart == overflow.count {
                overflow.removeAll(keepingCapacity: true)
                overflowStart = 0
                if endingAtHeaderBlock && overflowEndsHeaderBlock && stopsAtHeaderBlock() { return }
            }
        }
        while remaining > 0 {
            var pointer: UnsafePointer<UInt8>?
            let n = nghttp2_session_mem_send(session, &pointer)
            if n < 0 {
                let error = HTTP2Error.library(
                    call: "nghttp2_session_mem_send", code: Int32(n),
                    message: String(cString: nghttp2_strerror(Int32(n))))
                failure = error
                throw error
            }
            if n == 0 { break }
            let frame = UnsafeRawBufferPointer(start: pointer, count: n)
            let endsHeaderBlock = Self.endsHeaderBlock(frame)
            if sharing && limit - remaining + n > sharedHeaderRecord {
                // It would take the head's record past one packet: it starts the next call.
                overflow.append(contentsOf: frame)
                overflowEndsHeaderBlock = endsHeaderBlock
                return
            }
            let fit = min(n, remaining)
            consume(UnsafeRawBufferPointer(rebasing: frame[0..<fit]))
            remaining -= fit
            // nghttp2 hands out one frame (one buffer of a HEADERS + CONTINUATION chain) per call.
            if fit < n {
                // nghttp2's pointer dies at the next mem_send: keep the tail ourselves.
                overflow.append(contentsOf: frame[fit...])
                overflowEndsHeaderBlock = endsHeaderBlock
            } else if endingAtHeaderBlock && endsHeaderBlock && stopsAtHeaderBlock() {
                return
            }
        }
    }

    /// Whether `frame` (starting with its 9-byte header) is a HEADERS or CONTINUATION frame with END_HEADERS.
    private static func endsHeaderBlock(_ frame: UnsafeRawBufferPointer) -> Bool {
        guard frame.count >= 9 else { return false }
        let type = UInt32(frame[3]), flags = UInt32(frame[4])
        return (type == NGHTTP2_HEADERS.rawValue || type == NGHTTP2_CONTINUATION.rawValue)
            && flags & NGHTTP2_FLAG_END_HEADERS.rawValue != 0
    }

    // MARK: submitting

    /// Client: queues a request and returns its stream id. The request opens when the peer's
    /// stream limit allows; `bodyLength` > 0 sends a generated body (with Content-Length) that starts
    /// with `prefix` (counted in `bodyLength`).
    public func submitRequest(
        method: String = "GET", scheme: String = "https", authority: String, path: String,
        headers: HTTPHeaders = [:], priority: HTTP2Priority? = nil,
        bodyLength: Int64 = 0, prefix: [UInt8] = []
    ) throws(HTTP2Error) -> Int32 {
        precondition(role == .client, "submitRequest on a server connection")
        lastHead = nil
        // A load generator sends the same request over and over: while the head repeats (no
        // regular fields, no body), the field list built for the last request is sent again.
        let repeated =
            headers.isEmpty && bodyLength == 0
            && lastRequest.map {
                $0.method == method && $0.path == path && $0.authority == authority && $0.scheme == scheme
            } ?? false
        if !repeated {
            fields.removeAll()
            fields.add(":method", method)  // Chrome's pseudo-header order
            fields.add(":authority", authority)
            fields.add(":scheme", scheme)
            fields.add(":path", path)
            if bodyLength > 0 && !headers.contains("content-length") {
                fields.add("content-length", String(bodyLength))
            }
            fields.addRegular(headers)
            lastRequest = headers.isEmpty && bodyLength == 0 ? (method, scheme, authority, path) : nil
        }
        var spec = nghttp2_priority_spec()
        if let priority {
            nghttp2_priority_spec_init(&spec, priority.dependsOn, Int32(priority.weight), priority.exclusive ? 1 : 0)
        }
        var provider = Self.bodyProvider
        let stream = fields.withNameValues { nva, count in
            withUnsafePointer(to: &spec) { specPointer in
                withUnsafePointer(to: &provider) { providerPointer in
                    nghttp2_submit_request(
                        session, priority == nil ? nil : specPointer, nva, count,
                        bodyLength > 0 ? providerPointer : nil, nil)
                }
            }
        }
        try Self.check(stream, "nghttp2_submit_request")
        if bodyLength > 0 { state.outbound[stream] = .init(length: bodyLength, prefix: prefix) }
        return stream
    }

    /// Server: answers `stream` with `status`, `headers` and a generated body of exactly
    /// `bodyLength` bytes. May be called any time after the `.request` event (think time).
    /// `content-length: bodyLength` is added unless `headers` has one (HEAD answers pass the
    /// representation's length there with `bodyLength` 0) or the status forbids a body.
    /// The body starts with `prefix` and ends with `suffix` (both counted in `bodyLength`).
    /// - Throws: `.streamNotOpen` if the client reset the stream meanwhile.
    public func submitResponse(
        stream: Int32, status: Int, headers: HTTPHeaders = [:],
        bodyLength: Int64, prefix: [UInt8] = [], suffix: [UInt8] = []
    ) throws(HTTP2Error) {
        try submitResponse(
            stream: stream, status: status, hasContentLength: headers.contains("content-length"),
            addFields: { $0.addRegular(headers) }, bodyLength: bodyLength, prefix: prefix, suffix: suffix)
    }

    /// `submitResponse` with the fields as name-value pairs (the replay server's, which keeps no
    /// `HTTPHeaders` of its own per response). A server answering many requests for one resource
    /// passes the same array each time: while the array (its storage, not only its contents), the
    /// status and the length repeat, the field list built for the last response is sent again as it is.
    public func submitResponse(
        stream: Int32, status: Int, fields pairs: [(String, String)],
        bodyLength: Int64, prefix: [UInt8] = [], suffix: [UInt8] = []
    ) throws(HTTP2Error) {
        precondition(role == .server, "submitResponse on a client connection")
        guard isOpen(stream) else { throw .streamNotOpen(stream) }
        let repeated =
            lastHead.map { $0.status == status && $0.bodyLength == bodyLength && Self.sameStorage($0.pairs, pairs) }
            ?? false
        if !repeated {
            let hasContentLength = pairs.contains {
                $0.0.utf8.count == 14 && HTTPHeaders.namesEqual($0.0, "content-length")
            }
            buildResponseFields(status: status, hasContentLength: hasContentLength, bodyLength: bodyLength) {
                $0.addRegular(pairs)
            }
            lastHead = (pairs, status, bodyLength)
        }
        try submitBuiltResponse(stream: stream, bodyLength: bodyLength, prefix: prefix, suffix: suffix)
    }

    /// The pseudo-fields `fields` was last built from for a request without regular fields or
    /// body (see `submitRequest`); nil once `fields` holds anything else.
    private var lastRequest: (method: String, scheme: String, authority: String, path: String)?

    /// Whether the regular fields of received header blocks are decoded (true, the default) or
    /// skipped, leaving `headers` of `.response` and `.trailers` events empty: for a client that
    /// reads only a response's status (`netbench load`, where decoding each response's fields into
    /// strings was ~3% of the generator's CPU). Pseudo-fields are always decoded; the limits on a
    /// header list's size count every field either way.
    public var decodesRegularFields: Bool {
        get { state.decodesRegularFields }
        set { state.decodesRegularFields = newValue }
    }

    /// The fields, status and length `fields` was last built from for a response (see above); nil
    /// once `fields` holds anything else. Holding the array keeps its storage from being reused.
    private var lastHead: (pairs: [(String, String)], status: Int, bodyLength: Int64)?

    /// Whether `a` and `b` share their storage (then they are equal: an array written to while
    /// another holds its storage gets storage of its own).
    private static func sameStorage(_ a: [(String, String)], _ b: [(String, String)]) -> Bool {
        a.count == b.count
            && a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
    }

    private func submitResponse(
        stream: Int32, status: Int, hasContentLength: Bool, addFields: (inout NameValueList) -> Void,
        bodyLength: Int64, prefix: [UInt8], suffix: [UInt8]
    ) throws(HTTP2Error) {
        precondition(role == .server, "submitResponse on a client connection")
        guard isOpen(stream) else { throw .streamNotOpen(stream) }
        buildResponseFields(status: status, hasContentLength: hasContentLength, bodyLength: bodyLength, addFields)
        lastHead = nil
        try submitBuiltResponse(stream: stream, bodyLength: bodyLength, prefix: prefix, suffix: suffix)
    }

    private func buildResponseFields(
        status: Int, hasContentLength: Bool, bodyLength: Int64, _ addFields: (inout NameValueList) -> Void
    ) {
        fields.removeAll()
        fields.add(":status", String(status))
        if !HTTPStatus.forbidsBody(status) && !hasContentLength {
            fields.add("content-length", String(bodyLength))
        }
        addFields(&fields)
    }

    /// Submits the response whose head is in `fields`.
    private func submitBuiltResponse(
        stream: Int32, bodyLength: Int64, prefix: [UInt8], suffix: [UInt8]
    ) throws(HTTP2Error) {
        var provider = Self.bodyProvider
        let session = self.session
        let result = fields.withNameValues { nva, count in
            withUnsafePointer(to: &provider) { providerPointer in
                nghttp2_submit_response(session, stream, nva, count, bodyLength > 0 ? providerPointer : nil)
            }
        }
        try Self.check(result, "nghttp2_submit_response")
        if bodyLength > 0 { state.outbound[stream] = .init(length: bodyLength, prefix: prefix, suffix: suffix) }
    }

    /// Resets `stream` with RST_STREAM (`.cancel` is what a browser sends for an abandoned load).
    public func submitReset(stream: Int32, code: HTTP2ErrorCode = .cancel) throws(HTTP2Error) {
        guard isOpen(stream) else { throw .streamNotOpen(stream) }
        try Self.check(
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, code.rawValue),
            "nghttp2_submit_rst_stream")
    }

    /// Sends GOAWAY naming the last stream we processed; streams up to it still complete,
    /// then `isFinished` becomes true.
    public func submitGoAway(code: HTTP2ErrorCode = .noError) throws(HTTP2Error) {
        state.applicationSentGoAway = true
        try Self.check(
            nghttp2_submit_goaway(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue),
                nghttp2_session_get_last_proc_stream_id(session), code.rawValue, nil, 0),
            "nghttp2_submit_goaway")
    }

    /// nghttp2 copies the provider; the stream id tells the callback which body to generate.
    private static var bodyProvider: nghttp2_data_provider {
        nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: HTTP2Callbacks.readBody)
    }

    // MARK: state

    /// Whether `stream` is open in either direction. A server's nghttp2 keeps closed streams
    /// around for the RFC 7540 priority tree, so finding one is not enough.
    private func isOpen(_ stream: Int32) -> Bool {
        guard stream > 0, let handle = nghttp2_session_find_stream(session, stream) else { return false }
        let state = nghttp2_stream_get_state(handle)
        return state != NGHTTP2_STREAM_STATE_CLOSED && state != NGHTTP2_STREAM_STATE_IDLE
    }

    /// The peer's SETTINGS_MAX_CONCURRENT_STREAMS (unlimited until its SETTINGS arrive).
    public var remoteMaxConcurrentStreams: UInt32 {
        nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
    }

    /// The last message nghttp2 logged about a peer error (why a stream was reset, for example).
    public var lastLibraryMessage: String? { state.lastLibraryMessage }

    private static func check<I: BinaryInteger>(_ result: I, _ call: String) throws(HTTP2Error) {
        guard result < 0 else { return }
        let code = Int32(result)
        throw .library(call: call, code: code, message: String(cString: nghttp2_strerror(code)))
    }
}
