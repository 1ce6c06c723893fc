internal import COpenSSL

/// A BIO over a plain byte queue, for the ciphertext a `TLSConnection` moves between OpenSSL and
/// the socket.
///
/// It stands where `BIO_s_mem()` stood: same behaviour for OpenSSL (reads of an empty queue ask to
/// retry, never end of file; writes always take everything; `BIO_ctrl_pending` counts the bytes
/// queued), without the memory BIO's cost per write: `BUF_MEM_grow_clean` zeroes every byte it
/// is about to overwrite, so each ciphertext byte was written twice (callgrind of `netbench load`
/// over HTTP/2: memset 3.2% of all instructions, as much as the copy itself).
/// Read bytes are dropped from the front; the rest moves to the start only when a write needs
/// the room, and the buffer grows by doubling.
enum ByteQueueBIO {
    /// One queue: `storage[start..<end]` holds the bytes not yet read.
    final class Queue {
        var storage: UnsafeMutableRawPointer
        var capacity: Int
        var start = 0
        var end = 0

        init(capacity: Int = 16 * 1024) {
            self.capacity = capacity
            storage = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        }

        deinit { storage.deallocate() }

        var count: Int { end - start }

        func append(_ bytes: UnsafeRawPointer, _ n: Int) {
            if capacity - end < n {
                if start > 0 {
                    storage.copyMemory(from: storage + start, byteCount: count)
                    end -= start
                    start = 0
                }
                if capacity - end < n {
                    var grown = capacity * 2
                    while grown - end < n { grown *= 2 }
                    let bigger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
                    bigger.copyMemory(from: storage, byteCount: end)
                    storage.deallocate()
                    storage = bigger
                    capacity = grown
                }
            }
            (storage + end).copyMemory(from: bytes, byteCount: n)
            end += n
        }

        /// Drops the first `n` queued bytes (they were read in place).
        func drop(_ n: Int) {
            start += Swift.min(n, count)
            if start == end { start = 0; end = 0 }
        }

        func take(into out: UnsafeMutableRawPointer, _ max: Int) -> Int {
            let n = Swift.min(max, count)
            out.copyMemory(from: storage + start, byteCount: n)
            start += n
            if start == end { start = 0; end = 0 }
            return n
        }
    }

    /// The method, made once per process.
    nonisolated(unsafe) static let method: OpaquePointer = {
        guard let m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "netbench byte queue") else {
            fatalError("BIO_meth_new failed (out of memory)")
        }
        _ = BIO_meth_set_create(m) { bio in
            BIO_set_data(bio, Unmanaged.passRetained(Queue()).toOpaque())
            BIO_set_init(bio, 1)
            return 1
        }
        _ = BIO_meth_set_destroy(m) { bio in
            guard let bio, let data = BIO_get_data(bio) else { return 0 }
            Unmanaged<Queue>.fromOpaque(data).release()
            BIO_set_data(bio, nil)
            return 1
        }
        _ = BIO_meth_set_write_ex(m) { bio, bytes, n, written in
            guard let bio, let bytes else { return 0 }
            queue(bio).append(bytes, n)
            written?.pointee = n
            return 1
        }
        _ = BIO_meth_set_read_ex(m) { bio, out, max, read in
            guard let bio, let out else { return 0 }
            BIO_clear_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_SHOULD_RETRY)
            let n = queue(bio).take(into: out, max)
            read?.pointee = n
            if n == 0 && max > 0 {
                BIO_set_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_SHOULD_RETRY)  // empty: retry, not EOF
                return 0
            }
            return 1
        }
        _ = BIO_meth_set_ctrl(m) { bio, cmd, _, _ in
            guard let bio else { return 0 }
            switch cmd {
            case BIO_CTRL_PENDING: return queue(bio).count
            case BIO_CTRL_FLUSH, BIO_CTRL_DUP: return 1
            case BIO_CTRL_RESET:
                let q = queue(bio)
                q.start = 0
                q.end = 0
                return 1
            default: return 0  // BIO_CTRL_EOF (never), BIO_CTRL_WPENDING (nothing held back) and the rest
            }
        }
        return m
    }()

    static func queue(_ bio: OpaquePointer) -> Queue {
        Unmanaged<Queue>.fromOpaque(BIO_get_data(bio)!).takeUnretainedValue()
    }

    /// A new BIO of this kind (freed with the SSL it is given to).
    static func make() -> OpaquePointer? { BIO_new(method) }
}

extension ByteQueueBIO {
    /// What OpenSSL's own BIO calls see of a fresh queue BIO: writes `bytes`, reads them back, reads
    /// once more from the empty queue (for the tests: COpenSSL is internal to this module).
    static func probe(_ bytes: [UInt8]) throws -> (
        pendingAfterWrite: Int, read: [UInt8], pendingAfterRead: Int, emptyReadFailedWithRetry: Bool
    ) {
        guard let bio = make() else { throw TLSError.fromQueue(.configuration, operation: "creating a BIO") }
        defer { BIO_free(bio) }
        var written = 0
        _ = bytes.withUnsafeBytes { BIO_write_ex(bio, $0.baseAddress, bytes.count, &written) }
        let pending = Int(BIO_ctrl_pending(bio))
        var out = [UInt8](repeating: 0, count: 16)
        var read = 0
        _ = out.withUnsafeMutableBytes { BIO_read_ex(bio, $0.baseAddress, 16, &read) }
        let after = Int(BIO_ctrl_pending(bio))
        var none = 0
        let ok = out.withUnsafeMutableBytes { BIO_read_ex(bio, $0.baseAddress, 16, &none) }
        let retry = ok == 0 && none == 0 && BIO_test_flags(bio, BIO_FLAGS_SHOULD_RETRY | BIO_FLAGS_READ) != 0
        return (pending, Array(out[0..<read]), after, retry)
    }
}
