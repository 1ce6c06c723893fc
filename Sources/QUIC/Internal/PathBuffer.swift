import BenchCore
internal import CNgtcp2
internal import CNghttp3

/// One heap-allocated `ngtcp2_path_storage`: the addresses an `ngtcp2_path` points to must not
/// move while ngtcp2 reads or fills them, and allocating once keeps the packet path free of
/// allocations.
final class PathBuffer {
    let storage: UnsafeMutablePointer<ngtcp2_path_storage>

    init() {
        storage = .allocate(capacity: 1)
        ngtcp2_path_storage_zero(storage)
    }

    deinit { storage.deallocate() }

    var path: UnsafeMutablePointer<ngtcp2_path> {
        UnsafeMutableRawPointer(storage).assumingMemoryBound(to: ngtcp2_path.self)
    }

    /// Points the path at `local` and `remote` (IPv4) and returns it.
    func set(local: Endpoint, remote: Endpoint) -> UnsafeMutablePointer<ngtcp2_path> {
        ngtcp2_path_storage_zero(storage)
        withUnsafeMutableBytes(of: &storage.pointee.local_addrbuf) { raw in
            netbench_sockaddr_in_set(
                raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self),
                local.address, local.port)
        }
        withUnsafeMutableBytes(of: &storage.pointee.remote_addrbuf) { raw in
            netbench_sockaddr_in_set(
                raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self),
                remote.address, remote.port)
        }
        storage.pointee.path.local.addrlen = ngtcp2_socklen(MemoryLayout<sockaddr_in>.size)
        storage.pointee.path.remote.addrlen = ngtcp2_socklen(MemoryLayout<sockaddr_in>.size)
        return path
    }

    /// Resets the path so ngtcp2 can fill it while writing a packet.
    func clear() -> UnsafeMutablePointer<ngtcp2_path> {
        ngtcp2_path_storage_zero(storage)
        return path
    }
}

extension Endpoint {
    /// Reads an IPv4 `ngtcp2_addr`; `nil` for anything else (netbench is IPv4 only).
    init?(_ addr: ngtcp2_addr) {
        var address: UInt32 = 0
        var port: UInt16 = 0
        guard netbench_sockaddr_in_get(addr.addr, &address, &port) == 0 else { return nil }
        self.init(address: address, port: port)
    }
}

/// The memory ngtcp2 and nghttp3 write into for one connection: room for one batch of packets,
/// nghttp3's data vectors, and the paths of the packet being read and the one being written.
final class PacketBuffers {
    /// Room for one batch of full-size packets (a GSO send carries at most 64 KiB).
    static let sendSize = 64 * 1024
    /// Packets per batch: 40 full-size ones stay under 64 KiB and under the kernel's segment limit.
    static let maxBatch = 40
    static let vecCapacity = 16
    let send: UnsafeMutablePointer<UInt8>
    let vecs: UnsafeMutablePointer<nghttp3_vec>
    let rxPath = PathBuffer()
    let txPath = PathBuffer()

    init() {
        send = .allocate(capacity: Self.sendSize)
        vecs = .allocate(capacity: Self.vecCapacity)
    }

    deinit {
        send.deallocate()
        vecs.deallocate()
    }
}
