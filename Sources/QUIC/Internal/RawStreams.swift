internal import CNgtcp2
internal import CNghttp3

/// Streams a connection without an HTTP/3 session writes byte for byte (a `QUICStreamClient`):
/// what the caller queued, in order per stream, paced by flow control like nghttp3's output, and
/// what the peer sent on each stream, kept until taken.
final class RawStreams {
    struct Outgoing {
        var bytes: [UInt8] = []
        var offset = 0
        /// Zero bytes to send after `bytes` (generated as sent: a perf response or upload).
        var filler: Int64 = 0
        var fin = false
        var finSent = false
        var blocked = false

        var hasWork: Bool { !blocked && (offset < bytes.count || filler > 0 || (fin && !finSent)) }
    }

    /// Largest piece handed to ngtcp2 at once (it takes what fits in a packet).
    static let chunkSize = 16 * 1024
    private(set) var outgoing: [Int64: Outgoing] = [:]
    /// Streams in the order they were opened: the writer serves the first with work.
    private var order: [Int64] = []
    let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: chunkSize)
    var received: [(stream: Int64, bytes: [UInt8], fin: Bool)] = []
    /// Set: received bytes are only counted (`receivedCounts`), never copied (a perf client).
    var countOnly = false
    var receivedCounts: [(stream: Int64, count: Int, fin: Bool)] = []
    /// Set on a perf server connection (ALPN "perf"): it answers the client's streams itself.
    var perfServer: PerfServerStreams?
    /// The filler that `next` hands out: zeros, never written (so shared by every thread).
    nonisolated(unsafe) static let zeros: UnsafeMutablePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: chunkSize)
        p.initialize(repeating: 0, count: chunkSize)
        return p
    }()

    init(perfServer: PerfServerStreams? = nil) { self.perfServer = perfServer }

    deinit { scratch.deallocate() }

    func open(_ stream: Int64) {
        outgoing[stream] = Outgoing()
        order.append(stream)
    }

    /// Queues `bytes` (and FIN after them when `fin`); false for a stream not opened here or finished.
    func queue(_ stream: Int64, _ bytes: [UInt8], fin: Bool) -> Bool {
        guard var o = outgoing[stream], !o.fin, o.filler == 0 else { return false }
        o.bytes += bytes
        o.fin = fin
        outgoing[stream] = o
        return true
    }

    /// Queues `count` zero bytes after what is queued (and FIN after them when `fin`).
    func queueFiller(_ stream: Int64, _ count: Int64, fin: Bool) -> Bool {
        guard var o = outgoing[stream], !o.fin, count >= 0 else { return false }
        o.filler += count
        o.fin = fin
        outgoing[stream] = o
        return true
    }

    /// The next piece to write: queued bytes copied into `scratch`, or filler from `zeros`, with
    /// whether FIN goes with it.
    func next() -> (stream: Int64, base: UnsafeMutablePointer<UInt8>, count: Int, fin: Bool)? {
        guard let id = order.first(where: { outgoing[$0]?.hasWork == true }), let o = outgoing[id] else { return nil }
        if o.offset < o.bytes.count {
            let n = min(o.bytes.count - o.offset, Self.chunkSize)
            o.bytes.withUnsafeBufferPointer { buf in scratch.update(from: buf.baseAddress! + o.offset, count: n) }
            return (id, scratch, n, o.fin && o.filler == 0 && o.offset + n == o.bytes.count)
        }
        let n = Int(min(o.filler, Int64(Self.chunkSize)))
        return (id, Self.zeros, n, o.fin && Int64(n) == o.filler)
    }

    /// ngtcp2 took `accepted` bytes of the piece `next` returned (with its FIN when `fin`).
    func advance(_ stream: Int64, by accepted: Int, fin: Bool) {
        guard var o = outgoing[stream], accepted >= 0 else { return }
        if o.offset < o.bytes.count { o.offset += accepted } else { o.filler -= Int64(accepted) }
        if fin && o.offset == o.bytes.count && o.filler == 0 { o.finSent = true }
        if o.offset == o.bytes.count { o.bytes.removeAll(keepingCapacity: true); o.offset = 0 }
        outgoing[stream] = o
    }

    /// Flow control stops the stream until the peer extends it (`unblock`).
    func block(_ stream: Int64) { outgoing[stream]?.blocked = true }
    func unblock(_ stream: Int64) { outgoing[stream]?.blocked = false }

    /// The stream cannot be written any more (reset, STOP_SENDING): its queue is dropped.
    func drop(_ stream: Int64) {
        outgoing[stream] = nil
        order.removeAll { $0 == stream }
    }
}

extension QUICConnection {
    /// Opens a stream for raw bytes (a connection without HTTP/3).
    func openRawStream(bidirectional: Bool) throws -> Int64 {
        guard let raw, isOpen else { throw QUICError.invalidState("not an open raw-stream connection") }
        var id: Int64 = -1
        let rv =
            bidirectional ? ngtcp2_conn_open_bidi_stream(conn, &id, nil) : ngtcp2_conn_open_uni_stream(conn, &id, nil)
        guard rv == 0 else {
            throw transportError(rv, bidirectional ? "ngtcp2_conn_open_bidi_stream" : "ngtcp2_conn_open_uni_stream")
        }
        raw.open(id)
        return id
    }

    /// One raw piece for the writer: sets `streamID`, `fin` and the one vector; returns the count.
    func nextRawPiece(_ streamID: inout Int64, _ fin: inout Int32) -> Int {
        // Connection-level flow control needs no check: ngtcp2 then takes nothing and the
        // writer stops when a packet carries nothing else.
        guard let raw, let piece = raw.next() else { return 0 }
        streamID = piece.stream
        fin = piece.fin ? 1 : 0
        buffers.vecs[0] = nghttp3_vec(base: piece.base, len: piece.count)
        return 1
    }
}
