import BenchCore
import SystemIO
import Glibc

/// UDP for the QUIC endpoints: a batch of equal-size datagrams goes out in one system call (UDP
/// GSO) and the kernel may hand several received datagrams over in one (UDP GRO). Where the kernel
/// or the route refuses segmentation, it falls back to one `sendto` per datagram for good.
///
/// What the emulator sees does not change: the kernel cuts a GSO send into datagrams before they
/// reach a TUN device (no offloads are negotiated on it), and a batch is at most the send quantum
/// that ngtcp2's pacer releases at once, which went out back to back before as well.
struct DatagramIO {
    private(set) var segmentationWorks = UDPOffload.enabled

    /// Sends that went out as one GSO system call, and datagrams they carried (for tests).
    private(set) var segmentedSends = 0
    private(set) var segmentedDatagrams = 0

    /// Sends the ECN codepoint the QUIC engine asks for (`QUICConfiguration.ecn`); false: Not-ECT.
    var marksECN = false

    /// Prepares a freshly bound socket: asks for receive coalescing (unless NETBENCH_UDP_GSO=0),
    /// for the kernel's receive time of each datagram and for its ECN codepoint (see `receive`).
    static func prepare(_ fd: FileDescriptor) {
        if UDPOffload.enabled { Socket.enableReceiveCoalescing(fd) }
        try? Socket.enableReceiveTimestamps(fd)
        try? Socket.enableReceiveECN(fd)
    }

    /// Sends `bytes`, datagrams of `segmentSize` bytes laid back to back (the last may be shorter),
    /// each marked `ecn` when `marksECN` is on. A full socket buffer drops the rest, as a full
    /// router queue would; QUIC recovers.
    mutating func send(
        _ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, segmentSize: Int, to remote: Endpoint,
        ecn: ECNCodepoint = .notECT
    ) {
        let mark: ECNCodepoint? = marksECN && ecn != .notECT ? ecn : nil
        if segmentationWorks && bytes.count > segmentSize {
            do {
                if try Socket.sendDatagrams(fd, bytes, segmentSize: segmentSize, to: remote, ecn: mark) {
                    segmentedSends += 1
                    segmentedDatagrams += (bytes.count + segmentSize - 1) / segmentSize
                }
                return
            } catch {
                segmentationWorks = false  // EIO / EINVAL: no GSO on this system or route
            }
        }
        var offset = 0
        while offset < bytes.count {
            let n = min(segmentSize, bytes.count - offset)
            let datagram = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + n)])
            let sent =
                mark.map { try? Socket.sendDatagram(fd, datagram, to: remote, ecn: $0) }
                ?? (try? Socket.sendDatagram(fd, datagram, to: remote))
            guard sent == true else { return }
            offset += n
        }
    }

    /// Receives what is waiting (up to `limit` system calls) and hands each datagram to `body`
    /// with the time the kernel received it (nil when the kernel attached none) and its ECN
    /// codepoint (Not-ECT when the kernel attached no TOS); `body` returns false to stop.
    ///
    /// The QUIC engines are given that time rather than the moment the process got round to the
    /// datagram, as production QUIC servers take it from the kernel: the time a datagram waited in
    /// the socket for a busy thread then counts as the receiver's ACK delay, which the peer takes
    /// out of its RTT samples, instead of inflating the RTT estimate (and slowing the pacing that
    /// derives from it) the way no TCP RTT estimate is inflated, since the kernel handles TCP's.
    static func receive(
        _ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, limit: Int = 64,
        _ body: (UnsafeRawBufferPointer, Endpoint, Instant?, ECNCodepoint) -> Bool
    ) {
        for _ in 0..<limit {
            guard let got = try? Socket.receiveDatagrams(fd, into: buffer) else { return }
            var offset = 0
            while offset < got.count {
                let n = min(got.segmentSize, got.count - offset)
                let datagram = UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + n)])
                guard body(datagram, got.from, got.arrival, got.ecn ?? .notECT) else { return }
                offset += n
            }
        }
    }
}

/// NETBENCH_UDP_GSO=0 turns segmentation and coalescing off (one `sendto`/`recvfrom` per
/// datagram), to compare; read once per process.
enum UDPOffload {
    static let enabled: Bool = getenv("NETBENCH_UDP_GSO").map { String(cString: $0) } != "0"
}
