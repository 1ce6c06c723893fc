#if canImport(Glibc)
    import Glibc
#endif
internal import CLinux

// The TUN offload calls of the link emulator (Syscalls.swift holds the rest).
extension Sys {
    /// ioctl(2) TUNSETIFF with IFF_VNET_HDR: every packet read or written carries a virtio-net header.
    /// With `napi`, also IFF_NAPI: a packet written is queued for the device's NAPI poll instead of
    /// being received inside the write.
    static func ioctlTunSetIffVnet(_ fd: FileDescriptor, _ name: String, napi: Bool = false) throws {
        var ifr = ifreq()
        netbench_ifreq_init(&ifr, name, Int16(IFF_TUN | IFF_NO_PI | IFF_VNET_HDR | (napi ? IFF_NAPI : 0)))
        if netbench_ioctl_ptr(fd.rawValue, netbench_tunsetiff(), &ifr) != 0 {
            throw fail("ioctl(TUNSETIFF \(name), IFF_VNET_HDR\(napi ? " | IFF_NAPI" : ""))")
        }
    }

    /// ioctl(2) TUNSETVNETHDRSZ: the virtio-net header's size (10: `struct virtio_net_hdr`).
    static func ioctlTunSetVnetHeaderSize(_ fd: FileDescriptor, _ size: Int32) throws {
        var v = size
        if netbench_ioctl_ptr(fd.rawValue, netbench_tunsetvnethdrsz(), &v) != 0 {
            throw fail("ioctl(TUNSETVNETHDRSZ \(size))")
        }
    }

    /// ioctl(2) TUNSETOFFLOAD: the offloads the reader of the device takes on (TUN_F_* flags). The
    /// argument is the flags themselves, not a pointer to them.
    static func ioctlTunSetOffload(_ fd: FileDescriptor, _ flags: UInt) throws {
        if netbench_ioctl_ptr(fd.rawValue, netbench_tunsetoffload(), UnsafeMutableRawPointer(bitPattern: flags)) != 0 {
            throw fail("ioctl(TUNSETOFFLOAD 0x\(String(flags, radix: 16)))")
        }
    }

    /// writev(2).
    static func writev(_ fd: FileDescriptor, _ vectors: UnsafePointer<iovec>, _ count: Int) throws -> IOStatus {
        guard let n = try check("writev", { Glibc.writev(fd.rawValue, vectors, Int32(count)) }) else {
            return .wouldBlock
        }
        return .bytes(n)
    }
}

extension TUNDevice {
    /// The TCP offloads `openWithOffload` asks for: checksums, TSO for IPv4 and IPv6, and TSO of
    /// packets that carry CWR. UDP segmentation (`TUN_F_USO4/6`, Linux 6.2) is not asked for: the
    /// kernel then cuts UDP GSO sends itself before the device.
    public static let tcpOffloads = UInt(TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN)

    /// Opens `/dev/net/tun` and creates the device `name` with a 10-byte virtio-net header on every
    /// packet and `offloads` (TUN_F_* flags) enabled: the kernel may then hand over TCP super-packets
    /// of up to 64 KB and packets whose checksum is left to finish (see `VirtioNetHeader`).
    ///
    /// With `napi` (IFF_NAPI, needs CAP_NET_ADMIN), what the reader writes is queued for the device's
    /// NAPI poll (with GRO) instead of being taken through the receiving stack inside the write; with
    /// the device's NAPI threaded (`/sys/class/net/<name>/threaded`), that poll runs in a kernel
    /// thread of its own, `napi/<name>-<id>`.
    public static func openWithOffload(name: String, offloads: UInt = tcpOffloads, napi: Bool = false) throws
        -> FileDescriptor
    {
        let fd = try Sys.open("/dev/net/tun", O_RDWR | O_NONBLOCK)
        do {
            try Sys.ioctlTunSetIffVnet(fd, name, napi: napi)
            try Sys.ioctlTunSetVnetHeaderSize(fd, 10)
            try Sys.ioctlTunSetOffload(fd, offloads)
            return fd
        } catch { Sys.close(fd); throw error }
    }
}

/// One gathering write (writev(2)) assembled from parts without allocating: the parts' memory must
/// stay valid until `write`.
public final class GatherWrite {
    private let vectors: UnsafeMutablePointer<iovec>
    public let capacity: Int
    public private(set) var count = 0
    public private(set) var byteCount = 0

    public init(capacity: Int) {
        self.capacity = max(1, min(capacity, 1024))  // IOV_MAX on Linux
        vectors = .allocate(capacity: self.capacity)
    }

    deinit { vectors.deallocate() }

    public var isFull: Bool { count == capacity }

    public func reset() {
        count = 0
        byteCount = 0
    }

    public func append(_ part: UnsafeRawBufferPointer) {
        precondition(count < capacity, "GatherWrite: more than \(capacity) parts")
        vectors[count] = iovec(iov_base: UnsafeMutableRawPointer(mutating: part.baseAddress), iov_len: part.count)
        count += 1
        byteCount += part.count
    }

    /// writev(2) of the parts so far (a TUN takes them as one packet); the parts are kept.
    public func write(to fd: FileDescriptor) throws -> IOStatus { try Sys.writev(fd, vectors, count) }
}
