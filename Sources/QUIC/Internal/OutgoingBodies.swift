import BenchCore
internal import CNghttp3

/// The bodies this side generates (a server's responses, a client's uploads): how much of each
/// stream's body is still to be handed to nghttp3, and the given first and last bytes of those
/// that have them. Every other byte comes from one filler that outlives the streams, so nghttp3
/// may point into it until the peer acknowledged the data: no copies.
final class OutgoingBodies {
    private let filler: FillerBuffer
    private var remaining: [Int64: Int64] = [:]
    private var edges: [Int64: BodyEdges] = [:]

    init(filler: FillerBuffer) { self.filler = filler }

    func start(_ stream: Int64, length: Int64, prefix: [UInt8] = [], suffix: [UInt8] = []) {
        remaining[stream] = length
        if !(prefix.isEmpty && suffix.isEmpty) {
            edges[stream] = BodyEdges(length: length, prefix: prefix, suffix: suffix)
        }
    }

    /// Forgets a stream's body (closed, reset, or never submitted).
    func end(_ stream: Int64) {
        remaining[stream] = nil
        edges[stream] = nil
    }

    /// Forgets every body (0-RTT rejected: the streams start over).
    func removeAll() {
        remaining.removeAll()
        edges.removeAll()
    }

    /// nghttp3's read_data: fills up to `capacity` vectors with the body's next bytes and sets
    /// EOF with the last of them.
    func fill(
        _ stream: Int64, _ vec: UnsafeMutablePointer<nghttp3_vec>, _ capacity: Int,
        _ flags: UnsafeMutablePointer<UInt32>
    ) -> nghttp3_ssize {
        var left = remaining[stream] ?? 0
        var filled = 0
        let base = filler.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let count = filler.bytes.count
        let edges = self.edges[stream]
        while filled < capacity && left > 0 {
            if let edges {
                vec[filled] = edges.next(offset: edges.length - left, filler: base, fillerCount: count)
            } else {
                vec[filled] = nghttp3_vec(base: base, len: Int(min(left, Int64(count))))
            }
            left -= Int64(vec[filled].len)
            filled += 1
        }
        if left == 0 {
            flags.pointee |= UInt32(NGHTTP3_DATA_FLAG_EOF)
            remaining[stream] = nil
        } else {
            remaining[stream] = left
        }
        return filled
    }
}

/// A body's first and last bytes, copied where they cannot move: nghttp3 points into them until
/// the peer acknowledged the data, so they live until the stream (or the connection) closes.
final class BodyEdges {
    let length: Int64
    private let prefix: UnsafeMutableRawBufferPointer
    private let suffix: UnsafeMutableRawBufferPointer

    init(length: Int64, prefix: [UInt8], suffix: [UInt8]) {
        self.length = length
        let head = UnsafeMutableRawBufferPointer.allocate(byteCount: max(prefix.count, 1), alignment: 1)
        let tail = UnsafeMutableRawBufferPointer.allocate(byteCount: max(suffix.count, 1), alignment: 1)
        prefix.withUnsafeBytes { head.copyMemory(from: $0) }
        suffix.withUnsafeBytes { tail.copyMemory(from: $0) }
        self.prefix = head
        self.suffix = tail
        prefixCount = prefix.count
        suffixCount = suffix.count
    }

    private let prefixCount: Int
    private let suffixCount: Int

    deinit {
        prefix.deallocate()
        suffix.deallocate()
    }

    /// The longest run of body bytes from `offset` that one buffer holds: the prefix, the filler, or the suffix.
    func next(offset: Int64, filler: UnsafeMutablePointer<UInt8>, fillerCount: Int) -> nghttp3_vec {
        let suffixStart = length - Int64(suffixCount)
        if offset < Int64(prefixCount) {
            let o = Int(offset)
            return nghttp3_vec(base: prefix.baseAddress!.assumingMemoryBound(to: UInt8.self) + o, len: prefixCount - o)
        }
        if offset >= suffixStart {
            let o = Int(offset - suffixStart)
            return nghttp3_vec(base: suffix.baseAddress!.assumingMemoryBound(to: UInt8.self) + o, len: suffixCount - o)
        }
        return nghttp3_vec(base: filler, len: Int(min(Int64(fillerCount), suffixStart - offset)))
    }
}

/// The bytes every generated body (responses, uploads) is made of: one buffer for the process
/// (`shared`), never written after creation, so nghttp3 may point at it until the data is
/// acknowledged. Body byte `i` is `bytes[i % size]`. (Made per connection, it cost each QUIC
/// client connection ~0.15 ms of CPU on the page's critical path.)
final class FillerBuffer: @unchecked Sendable {  // immutable once made
    static let shared = FillerBuffer()

    let bytes: UnsafeMutableRawBufferPointer

    static let size = 64 * 1024
    private static let pattern = Array("netbench-h3-filler\n".utf8)

    private init() {
        bytes = .allocate(byteCount: Self.size, alignment: 16)
        for i in 0..<Self.size { bytes[i] = Self.byte(at: Int64(i)) }
    }

    /// Body byte `offset` of a body made of filler only.
    static func byte(at offset: Int64) -> UInt8 {
        pattern[Int(offset % Int64(size)) % pattern.count]
    }

    deinit { bytes.deallocate() }
}
