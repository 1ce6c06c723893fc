import BenchCore

/// Round trips of one datagram between two UDP sockets bound to the same address, on one thread:
/// A sends to B, B echoes it back to A. What a round trip measures: the path through the kernel
/// both ways (two sendto, two recvfrom, the loopback device's delivery), the way a TCP connect's
/// SYN → SYN-ACK does, but without a TCP socket, so no congestion control is set or needed
/// (a run with only QUIC opens no TCP socket at all). No other thread is woken.
public enum UDPEchoProbe {
    /// The round trip of each of `samples` echoes between two sockets on `address` (host byte
    /// order; the sockets live in the calling thread's network namespace). An echo that does not
    /// come back within `timeout` gives no sample; a socket that cannot be made throws.
    public static func roundTrips(
        address: UInt32, samples: Int, timeout: Nanoseconds = .seconds(1)
    ) throws -> [Nanoseconds] {
        let (a, aEnd) = try Socket.bindUDP(Endpoint(address: address, port: 0))
        defer { Socket.close(a) }
        let (b, bEnd) = try Socket.bindUDP(Endpoint(address: address, port: 0))
        defer { Socket.close(b) }
        let epoll = try Epoll(capacity: 2)
        try epoll.add(a, .read, token: 0)
        try epoll.add(b, .read, token: 1)
        var times: [Nanoseconds] = []
        for i in 0..<samples {
            // Each echo carries its number: a late one of an earlier sample is read and dropped.
            let tag = UInt64(i)
            let start = Instant.now()
            let deadline = start + timeout
            try send(tag, from: a, to: bEnd)
            guard try receive(tag, on: b, epoll, until: deadline) else { continue }
            try send(tag, from: b, to: aEnd)
            guard try receive(tag, on: a, epoll, until: deadline) else { continue }
            times.append(Instant.now().since(start))
        }
        return times
    }

    private static func send(_ tag: UInt64, from fd: FileDescriptor, to remote: Endpoint) throws {
        _ = try withUnsafeBytes(of: tag.littleEndian) { try Socket.sendDatagram(fd, $0, to: remote) }
    }

    /// Waits until `deadline` for the datagram numbered `tag` on `fd`; true once it was read.
    private static func receive(
        _ tag: UInt64, on fd: FileDescriptor, _ epoll: Epoll, until deadline: Instant
    ) throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            while let (n, _) = try buffer.withUnsafeMutableBytes({ try Socket.receiveDatagram(fd, into: $0) }) {
                let got = buffer.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                if n == 8, got == tag { return true }
            }
            let now = Instant.now()
            guard now < deadline else { return false }
            try epoll.wait(timeout: deadline.since(now)) { _, _ in }
        }
    }
}
