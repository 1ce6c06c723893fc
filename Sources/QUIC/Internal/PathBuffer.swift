import BenchCore
internal import CNgtcp2

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
            netbench_sockaddr_in_set(raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self),
                                     local.address, local.port)
        }
        withUnsafeMutableBytes(of: &storage.pointee.remote_addrbuf) { raw in
            netbench_sockaddr_in_set(raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self),
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
