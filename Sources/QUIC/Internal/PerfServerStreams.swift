internal import CNgtcp2

/// The server side of the QUIC performance protocol (`QUICPerf`) on one connection: each
/// client-opened bidirectional stream carries an 8-byte big-endian response size, then the
/// client's upload, then FIN; the server drains the upload and answers with that many bytes and
/// FIN. A client-opened unidirectional stream is an upload only and is drained.
final class PerfServerStreams {
    /// Request bytes seen so far on each open request stream (the size needs 8).
    private var headers: [Int64: [UInt8]] = [:]
    private(set) var uploadBytes: Int64 = 0
    private(set) var streamsAnswered = 0
    private(set) var requestedBytes: Int64 = 0

    /// What to do after `length` bytes (and FIN when `fin`) arrived on `stream`: nothing yet,
    /// answer with `count` bytes, or refuse a stream that ended before its 8-byte size.
    enum Action: Equatable {
        case none
        case respond(count: Int64)
        case refuse
    }

    func received(_ stream: Int64, _ data: UnsafePointer<UInt8>?, _ length: Int, fin: Bool, bidi: Bool) -> Action {
        guard bidi else {
            uploadBytes += Int64(length)
            return .none
        }
        var header = headers[stream] ?? []
        var used = 0
        if header.count < 8, let data {
            used = min(8 - header.count, length)
            header.append(contentsOf: UnsafeBufferPointer(start: data, count: used))
        }
        uploadBytes += Int64(length - used)
        guard fin else {
            headers[stream] = header
            return .none
        }
        headers[stream] = nil
        guard header.count == 8 else { return .refuse }
        let count = Int64(bitPattern: QUICPerf.decodeSize(header))
        if count >= 0 {
            streamsAnswered += 1
            requestedBytes += count
        }
        return .respond(count: count)
    }

    func forget(_ stream: Int64) { headers[stream] = nil }
}

extension QUICConnection {
    /// Stream bytes of a perf connection: counted on a client, answered on a server.
    func rawStreamData(_ raw: RawStreams, _ stream: Int64, _ data: UnsafePointer<UInt8>?, _ length: Int, fin: Bool)
        -> Int32
    {
        consume(stream, length)
        guard let perf = raw.perfServer else {
            raw.receivedCounts.append((stream, length, fin))
            return 0
        }
        switch perf.received(stream, data, length, fin: fin, bidi: ngtcp2_is_bidi_stream(stream) != 0) {
        case .none:
            return 0
        case .respond(let count):
            raw.open(stream)
            // A size past Int64 (the top bit set) cannot be sent: refused like a missing one.
            guard count >= 0, raw.queueFiller(stream, count, fin: true) else {
                raw.drop(stream)
                return ngtcp2_conn_shutdown_stream(conn, stream, QUICPerf.refusedCode) == 0
                    ? 0 : NGTCP2_ERR_CALLBACK_FAILURE
            }
            return 0
        case .refuse:
            return ngtcp2_conn_shutdown_stream(conn, stream, QUICPerf.refusedCode) == 0
                ? 0 : NGTCP2_ERR_CALLBACK_FAILURE
        }
    }

    /// A raw stream is gone: its queue is dropped, and a peer's stream credit comes back.
    func rawStreamDidClose(_ raw: RawStreams, _ stream: Int64) {
        raw.drop(stream)
        raw.perfServer?.forget(stream)
        guard ngtcp2_conn_is_local_stream(conn, stream) == 0 else { return }
        if ngtcp2_is_bidi_stream(stream) != 0 {
            ngtcp2_conn_extend_max_streams_bidi(conn, 1)
        } else {
            ngtcp2_conn_extend_max_streams_uni(conn, 1)
        }
    }
}
