internal import CNghttp2

/// nghttp2's callbacks. Each is a non-capturing C function that finds its
/// `HTTP2SessionState` through `user_data` and never fails the session (returns 0).
enum HTTP2Callbacks {
    static func install(into callbacks: OpaquePointer) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            HTTP2SessionState.with(userData) { $0.beginHeaders(stream: frame!.pointee.hd.stream_id) }
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, userData in
            let kept = HTTP2SessionState.with(userData) {
                $0.header(
                    stream: frame!.pointee.hd.stream_id,
                    name: UnsafeBufferPointer(start: name, count: nameLength),
                    value: UnsafeBufferPointer(start: value, count: valueLength))
            }
            // Temporal failure: nghttp2 resets this stream and skips the rest of its header block.
            return kept ? 0 : Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        nghttp2_session_callbacks_set_on_begin_frame_callback(callbacks) { session, hd, userData in
            let within = HTTP2SessionState.with(userData) { state in
                if state.beginFrame(type: hd!.pointee.type) { return true }
                state.lastLibraryMessage = state.calmReason
                return false
            }
            if within { return 0 }
            // Over a rate limit: GOAWAY ENHANCE_YOUR_CALM, and stop reading this input at once.
            nghttp2_session_terminate_session(session, NGHTTP2_ENHANCE_YOUR_CALM.rawValue)
            return Int32(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            HTTP2SessionState.with(userData) { $0.frameReceived(frame!) }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, stream, _, length, userData in
            HTTP2SessionState.with(userData) { $0.dataChunk(stream: stream, count: length) }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, stream, errorCode, userData in
            HTTP2SessionState.with(userData) { $0.streamClosed(stream: stream, errorCode: errorCode) }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, userData in
            HTTP2SessionState.with(userData) { $0.frameSent(frame!) }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, _, userData in
            // A response HEADERS that could not go out (stream reset meanwhile): its body never will.
            let hd = frame!.pointee.hd
            if UInt32(hd.type) == NGHTTP2_HEADERS.rawValue {
                HTTP2SessionState.from(userData).outbound.removeValue(forKey: hd.stream_id)
            }
            return 0
        }
        nghttp2_session_callbacks_set_error_callback2(callbacks) { _, _, message, length, userData in
            HTTP2SessionState.from(userData).lastLibraryMessage =
                String(decoding: UnsafeRawBufferPointer(start: message, count: length), as: UTF8.self)
            return 0
        }
    }

    /// The read callback of every body we send: generated filler, never stored.
    static let readBody: nghttp2_data_source_read_callback = { _, stream, buffer, length, flags, _, userData in
        guard
            let (count, eof) = HTTP2SessionState.with(userData, {
                $0.readBody(stream: stream, into: UnsafeMutableRawBufferPointer(start: buffer, count: length))
            })
        else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        if eof { flags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }
}

extension HTTP2SessionState {
    fileprivate func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) {
        let hd = frame.pointee.hd
        let endStream = UInt32(hd.flags) & NGHTTP2_FLAG_END_STREAM.rawValue != 0
        switch UInt32(hd.type) {
        case NGHTTP2_DATA.rawValue:
            dataFrameComplete(stream: hd.stream_id, endStream: endStream)
        case NGHTTP2_HEADERS.rawValue:
            headersComplete(
                stream: hd.stream_id, isRequest: frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST,
                endStream: endStream)
        case NGHTTP2_SETTINGS.rawValue:
            events.append(UInt32(hd.flags) & NGHTTP2_FLAG_ACK.rawValue != 0 ? .settingsAcknowledged : .settingsReceived)
        case NGHTTP2_GOAWAY.rawValue:
            let goaway = frame.pointee.goaway
            events.append(
                .goAway(
                    lastStream: goaway.last_stream_id, errorCode: HTTP2ErrorCode(rawValue: goaway.error_code),
                    debugData: Self.text(goaway.opaque_data, goaway.opaque_data_len)))
        default:
            break
        }
    }

    fileprivate func frameSent(_ frame: UnsafePointer<nghttp2_frame>) {
        guard UInt32(frame.pointee.hd.type) == NGHTTP2_GOAWAY.rawValue, !applicationSentGoAway else { return }
        let goaway = frame.pointee.goaway
        guard goaway.error_code != NGHTTP2_NO_ERROR.rawValue else { return }
        var reason = Self.text(goaway.opaque_data, goaway.opaque_data_len)
        if reason.isEmpty { reason = lastLibraryMessage ?? "" }
        events.append(.connectionError(errorCode: HTTP2ErrorCode(rawValue: goaway.error_code), reason: reason))
    }

    private static func text(_ bytes: UnsafeMutablePointer<UInt8>?, _ count: Int) -> String {
        guard let bytes, count > 0 else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
