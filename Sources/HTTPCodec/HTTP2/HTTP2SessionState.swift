internal import CNghttp2
#if canImport(Glibc)
    import Glibc
#endif

/// The Swift side of one nghttp2 session: nghttp2's callbacks (see `HTTP2Callbacks`) land here
/// through `user_data`, turn into `HTTP2Event`s, and read generated bodies.
///
/// Owned by `HTTP2Connection`, which deletes the session before this object goes away, so the
/// unretained `user_data` pointer is always valid while nghttp2 can call back.
final class HTTP2SessionState {
    /// A header block being received, and body bytes not yet reported.
    struct InboundStream {
        var method: String?
        var path: String?
        var authority: String?
        var scheme: String?
        var status: Int?
        var headers = HTTPHeaders()
        var sawFinalHead = false
        var unreportedData = 0
        /// Decoded header list bytes of the block being received (RFC 9113 §6.5.2 counting).
        var headerListBytes = 0
        /// While `headers` is empty: how many regular fields so far were the last block's, in order
        /// (`lastFields`: taken from there when the block ends, not decoded again).
        var reusedFields = 0
    }

    /// A generated body being sent: `BodyFiller` bytes `offset ..< length`, the first and last
    /// ones replaced by `prefix` and `suffix` when given (a rendered page).
    struct OutboundBody {
        var offset: Int64 = 0
        let length: Int64
        var prefix: [UInt8] = []
        var suffix: [UInt8] = []

        /// Copies body bytes `offset ..< offset + buffer.count` into `buffer`.
        func fill(_ buffer: UnsafeMutableRawBufferPointer) {
            guard !prefix.isEmpty || !suffix.isEmpty else { return BodyFiller.fill(buffer, offset: offset) }
            let suffixStart = length - Int64(suffix.count)
            var done = 0
            while done < buffer.count {
                let at = offset + Int64(done)
                let room = buffer.count - done
                let n: Int
                if at < Int64(prefix.count) {
                    n = min(room, prefix.count - Int(at))
                    prefix.withUnsafeBytes {
                        buffer.baseAddress!.advanced(by: done).copyMemory(
                            from: $0.baseAddress!.advanced(by: Int(at)), byteCount: n)
                    }
                } else if at >= suffixStart {
                    n = min(room, suffix.count - Int(at - suffixStart))
                    suffix.withUnsafeBytes {
                        buffer.baseAddress!.advanced(by: done).copyMemory(
                            from: $0.baseAddress!.advanced(by: Int(at - suffixStart)), byteCount: n)
                    }
                } else {
                    n = Int(min(Int64(room), suffixStart - at))
                    BodyFiller.fill(UnsafeMutableRawBufferPointer(rebasing: buffer[done..<(done + n)]), offset: at)
                }
                done += n
            }
        }
    }

    let isServer: Bool
    var events: [HTTP2Event] = []
    var inbound = StreamTable<InboundStream>()
    /// The header block being received, out of `inbound` until it ends, so that a field costs no
    /// dictionary lookup (RFC 9113 §6.10: a block's frames are never interleaved with other frames,
    /// so one block at a time is all nghttp2 can be in). `blockStream` 0: no block. Two stored
    /// properties, not an optional tuple: a field then changes `blockState` in place, where
    /// `block!.state.x = ...` copied and destroyed the whole state (its strings and fields retained
    /// and released) several times per request (callgrind: ~40 retains and releases per request).
    private var blockStream: Int32 = 0
    private var blockState = InboundStream()
    /// The last header block's regular fields, `:path` and `:authority`. A client sends nearly the same
    /// fields on every request of a connection (HPACK indexes them for that reason); a field whose bytes
    /// are the last block's is not decoded again (a String and its UTF-8 check, an allocation for a long
    /// value such as a User-Agent), and a block whose fields all repeat shares the last block's storage.
    private var lastFields = HTTPHeaders()
    /// `lastFields` as received: names and values back to back, and where each field's name and value end.
    private var lastFieldBytes: [UInt8] = []
    private var lastFieldEnds: [(name: Int, value: Int)] = []
    private var lastPath = Remembered()
    private var lastAuthority = Remembered()

    /// A value as received and as decoded (its bytes' storage kept from one value to the next).
    private struct Remembered {
        var bytes: [UInt8] = []
        var string = ""
    }
    var outbound = StreamTable<OutboundBody>()
    /// Streams with DATA bytes received in a frame that has not ended yet.
    private var partialData: [Int32] = []
    /// Set when the application itself submits GOAWAY, so that only the library's own
    /// protocol-error GOAWAYs become `.connectionError`.
    var applicationSentGoAway = false
    /// The last message nghttp2 gave `error_callback2` (for diagnostics).
    var lastLibraryMessage: String?
    /// A server's limits on its peer (nil: none beyond nghttp2's own).
    var limits: HTTP2Limits?
    /// See `HTTP2Connection.decodesRegularFields`.
    var decodesRegularFields = true
    /// The time of the bytes being received, for the per-second frame counts.
    var now: UInt64 = 0
    private var windowStart: UInt64 = 0
    private var resetsInWindow = 0
    private var controlFramesInWindow = 0
    /// Why the peer is being sent GOAWAY ENHANCE_YOUR_CALM (set once a rate limit is passed).
    var calmReason: String?

    init(isServer: Bool) {
        self.isServer = isServer
    }

    static func from(_ userData: UnsafeMutableRawPointer?) -> HTTP2SessionState {
        Unmanaged<HTTP2SessionState>.fromOpaque(userData!).takeUnretainedValue()
    }

    /// `body` with the state behind `userData`, without a retain and release around it (nghttp2 calls
    /// back only inside our own calls on the session, while `HTTP2Connection` holds the state): five to
    /// ten callbacks per request.
    @inline(__always)
    static func with<R>(_ userData: UnsafeMutableRawPointer?, _ body: (HTTP2SessionState) -> R) -> R {
        Unmanaged<HTTP2SessionState>.fromOpaque(userData!)._withUnsafeGuaranteedRef(body)
    }

    func takeEvents() -> [HTTP2Event] {
        if blockStream != 0, blockState.unreportedData > 0 {
            // Body bytes counted before a trailer block that has not ended yet.
            events.append(.data(stream: blockStream, count: blockState.unreportedData, endStream: false))
            blockState.unreportedData = 0
        }
        for stream in partialData {
            guard let count = inbound.modify(stream, Self.takeUnreported), count > 0 else { continue }
            events.append(.data(stream: stream, count: count, endStream: false))
        }
        partialData.removeAll(keepingCapacity: true)
        // Nothing to hand out: keep the buffer (emptying a shared one would allocate a new one).
        if events.isEmpty { return [] }
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    // MARK: receiving

    func beginHeaders(stream: Int32) {
        endBlock()
        // A server's requests without bodies keep no state: `inbound` is mostly empty (no lookup then).
        if !inbound.isEmpty, let known = inbound.removeValue(forKey: stream) {
            blockState = known
            blockState.method = nil; blockState.path = nil; blockState.authority = nil; blockState.scheme = nil
            blockState.status = nil
            blockState.headers = HTTPHeaders()
            blockState.headerListBytes = 0
            blockState.reusedFields = 0
        }  // else: `blockState` is a fresh `InboundStream()` (every block ends by taking or resetting it)
        blockStream = stream
    }

    /// Takes the block's state out, leaving a fresh one (no copy of its strings and fields).
    private func takeBlock() -> InboundStream {
        var state = InboundStream()
        swap(&state, &blockState)
        blockStream = 0
        if state.headers.isEmpty {
            // Every field so far was the last block's (or there were none): nothing new to remember.
            if state.reusedFields > 0 {
                state.headers =
                    state.reusedFields == lastFields.count
                    ? lastFields : HTTPHeaders(Array(lastFields.pairs.prefix(state.reusedFields)))
            }
        } else if isServer {  // a client's responses repeat less (dates, lengths): not worth the copy
            remember(state.headers)
        }
        state.reusedFields = 0
        return state
    }

    /// Puts the block being received back with the other streams (it ended, or another began).
    private func endBlock() {
        guard blockStream != 0 else { return }
        let stream = blockStream
        inbound[stream] = takeBlock()
    }

    /// Records one header field; false once the block is over `limits.maxHeaderListSize` (the
    /// stream is then reset and the rest of its block dropped, so an HPACK bomb is never stored).
    func header(stream: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard blockStream == stream, stream != 0 else { return true }
        if let max = limits?.maxHeaderListSize {
            blockState.headerListBytes += name.count + value.count + 32
            if blockState.headerListBytes > max {
                lastLibraryMessage = "header list of stream \(stream) over \(max) bytes"
                _ = takeBlock()
                return false
            }
        }
        // Pseudo-fields are told apart by their bytes: no String is made for their names.
        // A literal for the value nearly every request repeats (`StaticString.description` made a String each time).
        switch Self.pseudoField(name) {
        case .method: blockState.method = Self.spells(value, "GET") ? "GET" : String(decoding: value, as: UTF8.self)
        case .path: blockState.path = Self.decode(value, reusing: &lastPath)
        case .authority: blockState.authority = Self.decode(value, reusing: &lastAuthority)
        case .scheme:
            blockState.scheme = Self.spells(value, "https") ? "https" : String(decoding: value, as: UTF8.self)
        case .status: blockState.status = Self.status(value)
        case nil:
            guard decodesRegularFields else { return true }
            if blockState.headers.isEmpty {
                let k = blockState.reusedFields
                if k < lastFieldEnds.count, repeatsLastField(k, name: name, value: value) {
                    blockState.reusedFields += 1
                    return true
                }
                // One allocation for a typical head, not one per doubling (1, 2, 4, 8 fields).
                blockState.headers.reserveCapacity(max(8, k + 1))
                for i in 0..<k { blockState.headers.add(name: lastFields[i].name, value: lastFields[i].value) }
                blockState.reusedFields = 0
            }
            blockState.headers.add(
                name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        }
        return true
    }

    /// `bytes` as a string: `last`'s when they are its bytes, else decoded (and remembered in `last`).
    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>, reusing last: inout Remembered) -> String {
        if bytes.count == last.bytes.count, last.bytes.withUnsafeBufferPointer({ same($0, 0, bytes) }) {
            return last.string
        }
        last.bytes.removeAll(keepingCapacity: true)
        last.bytes.append(contentsOf: bytes)
        last.string = String(decoding: bytes, as: UTF8.self)
        return last.string
    }

    /// Whether field `k` of this block has the bytes of the last block's field `k`.
    private func repeatsLastField(_ k: Int, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        let start = k == 0 ? 0 : lastFieldEnds[k - 1].value
        let (nameEnd, valueEnd) = lastFieldEnds[k]
        guard name.count == nameEnd - start, value.count == valueEnd - nameEnd else { return false }
        return lastFieldBytes.withUnsafeBufferPointer { Self.same($0, start, name) && Self.same($0, nameEnd, value) }
    }

    /// Keeps `fields` (a block's regular fields, decoded from new bytes) for the next block to repeat.
    private func remember(_ fields: HTTPHeaders) {
        lastFields = fields
        lastFieldBytes.removeAll(keepingCapacity: true)
        lastFieldEnds.removeAll(keepingCapacity: true)
        for field in fields {
            lastFieldBytes.append(contentsOf: field.name.utf8)
            let nameEnd = lastFieldBytes.count
            lastFieldBytes.append(contentsOf: field.value.utf8)
            lastFieldEnds.append((nameEnd, lastFieldBytes.count))
        }
    }

    /// Whether `stored` holds `bytes` from `offset` on (the caller checked that they fit).
    private static func same(_ stored: UnsafeBufferPointer<UInt8>, _ offset: Int, _ bytes: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        bytes.isEmpty || memcmp(stored.baseAddress! + offset, bytes.baseAddress!, bytes.count) == 0
    }

    /// Whether `bytes` are exactly `spelling`'s, compared from byte `from` on (the caller checked those before).
    private static func spells(_ bytes: UnsafeBufferPointer<UInt8>, _ spelling: StaticString, from: Int = 0) -> Bool {
        guard bytes.count == spelling.utf8CodeUnitCount else { return false }
        for i in from..<bytes.count where bytes[i] != spelling.utf8Start[i] { return false }
        return true
    }

    /// A `:status` value's number: three ASCII digits (RFC 9110 §15), nil for anything else (as
    /// `Int(String)` of a malformed value was; nghttp2 itself rejects a non-numeric status).
    static func status(_ value: UnsafeBufferPointer<UInt8>) -> Int? {
        guard value.count == 3 else { return nil }
        var n = 0
        for byte in value {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            n = n * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return n
    }

    enum PseudoField { case method, path, authority, scheme, status }

    /// The pseudo-field `name` spells, nil for any other name (regular fields, unknown pseudo-fields).
    static func pseudoField(_ name: UnsafeBufferPointer<UInt8>) -> PseudoField? {
        // Per field of every request: the length and the second byte pick the one candidate, then its
        // bytes are compared (a generic `elementsEqual` per candidate cost ~170 instructions a field).
        guard name.count >= 5, name[0] == UInt8(ascii: ":") else { return nil }
        let candidate: (spelling: StaticString, field: PseudoField)
        switch (name.count, name[1]) {
        case (5, UInt8(ascii: "p")): candidate = (":path", .path)
        case (7, UInt8(ascii: "m")): candidate = (":method", .method)
        case (7, UInt8(ascii: "s")):
            candidate = name[3] == UInt8(ascii: "h") ? (":scheme", .scheme) : (":status", .status)
        case (10, UInt8(ascii: "a")): candidate = (":authority", .authority)
        default: return nil
        }
        return spells(name, candidate.spelling, from: 2) ? candidate.field : nil
    }

    /// Counts a frame about to be received against the per-second limits; false once one is
    /// passed (`calmReason` says which).
    func beginFrame(type: UInt8) -> Bool {
        guard let limits, calmReason == nil else { return calmReason == nil }
        if now &- windowStart >= 1_000_000_000 { windowStart = now; resetsInWindow = 0; controlFramesInWindow = 0 }
        switch UInt32(type) {
        case NGHTTP2_RST_STREAM.rawValue:
            resetsInWindow += 1
            if resetsInWindow > limits.maxResetsPerSecond {
                calmReason = "more than \(limits.maxResetsPerSecond) RST_STREAM frames in a second"
            }
        case NGHTTP2_SETTINGS.rawValue, NGHTTP2_PING.rawValue:
            controlFramesInWindow += 1
            if controlFramesInWindow > limits.maxControlFramesPerSecond {
                calmReason = "more than \(limits.maxControlFramesPerSecond) SETTINGS and PING frames in a second"
            }
        default:
            break
        }
        return calmReason == nil
    }

    func headersComplete(stream: Int32, isRequest: Bool, endStream: Bool) {
        var state: InboundStream
        let inInbound: Bool
        if blockStream == stream, stream != 0 {
            // The usual case: the block just received, taken without a round trip through `inbound`.
            state = takeBlock()
            inInbound = false
        } else {
            guard let known = inbound[stream] else { return }
            state = known
            inInbound = true
        }
        if isServer && isRequest {
            state.sawFinalHead = true
            let head = HTTPRequestHead(
                method: state.method ?? "", target: state.path ?? "", version: .http2,
                headers: state.headers, authority: state.authority, scheme: state.scheme)
            events.append(.request(stream: stream, head: head, endStream: endStream))
            // A request without a body needs nothing more from this stream's state (no DATA or
            // trailers may follow END_STREAM): keep none (a dictionary insert and removal per request).
            if endStream {
                if inInbound { inbound[stream] = nil }
                return
            }
            inbound[stream] = state
            return
        }
        defer { inbound[stream] = state }
        if !isServer, let status = state.status, !state.sawFinalHead {
            if (100..<200).contains(status) { return }  // interim response: wait for the final one
            state.sawFinalHead = true
            events.append(.response(stream: stream, status: status, headers: state.headers, endStream: endStream))
        } else if state.sawFinalHead {
            events.append(.trailers(stream: stream, headers: state.headers))
        }
    }

    // One lookup per call, the value changed in place: these run per DATA frame. Reading
    // `inbound[stream]?.unreportedData` would copy the whole state out (its strings and fields
    // retained and released) for one integer.
    func dataChunk(stream: Int32, count: Int) {
        if inbound.modify(stream, { Self.add(count, to: &$0) }) == true { partialData.append(stream) }
    }

    /// Adds `count` unreported bytes; whether there were none before.
    private static func add(_ count: Int, to state: inout InboundStream) -> Bool {
        defer { state.unreportedData += count }
        return state.unreportedData == 0
    }

    /// The unreported bytes, now reported.
    private static func takeUnreported(_ state: inout InboundStream) -> Int {
        defer { state.unreportedData = 0 }
        return state.unreportedData
    }

    func dataFrameComplete(stream: Int32, endStream: Bool) {
        guard let count = inbound.modify(stream, Self.takeUnreported) else { return }
        if count > 0 || endStream {
            events.append(.data(stream: stream, count: count, endStream: endStream))
        }
    }

    func streamClosed(stream: Int32, errorCode: UInt32) {
        if blockStream == stream { endBlock() }
        if !inbound.isEmpty, let count = inbound.removeValue(forKey: stream)?.unreportedData, count > 0 {
            events.append(.data(stream: stream, count: count, endStream: false))
        }
        if !outbound.isEmpty { outbound.removeValue(forKey: stream) }
        events.append(.streamClosed(stream: stream, errorCode: HTTP2ErrorCode(rawValue: errorCode)))
    }

    // MARK: sending

    /// Fills `buffer` with the next bytes of `stream`'s generated body.
    /// - Returns: bytes written and whether that was the end of the body.
    func readBody(stream: Int32, into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, eof: Bool)? {
        // One lookup per DATA frame; the body is updated in place.
        guard
            let (n, eof) = outbound.modify(stream, { body -> (Int, Bool) in
                let n = Int(min(Int64(buffer.count), body.length - body.offset))
                body.fill(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<n]))
                body.offset += Int64(n)
                return (n, body.offset == body.length)
            })
        else { return nil }
        if eof { outbound.removeValue(forKey: stream) }
        return (n, eof)
    }
}
