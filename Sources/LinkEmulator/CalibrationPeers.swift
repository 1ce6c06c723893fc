import Foundation
import Synchronization
import BenchCore
import SystemIO

/// The server side of the RTT probe: echoes every datagram to its sender, on its own thread,
/// writing into bytes 8..<16 how long the datagram waited here (kernel receive timestamp to
/// just before the echo's sendto), so the prober can take it out.
final class EchoServer: @unchecked Sendable {
    private let fd: FileDescriptor
    private let epoll: Epoll
    private let wakeup: Wakeup
    private let stopFlag = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(fd: FileDescriptor) throws {
        self.fd = fd
        epoll = try Epoll(capacity: 4)
        wakeup = try Wakeup()
        try epoll.add(fd, .read, token: 0)
        try epoll.add(wakeup.fd, .read, token: 1)
        try Socket.enableReceiveTimestamps(fd)
    }

    func startThread() {
        Thread { [self] in
            try? ProcessControl.setTimerSlack(nanoseconds: 1)
            var buffer = [UInt8](repeating: 0, count: 2048)
            while !stopFlag.load(ordering: .acquiring) {
                try? epoll.wait(timeout: nil) { _, _ in }
                while let (n, from, stamp) = try? buffer.withUnsafeMutableBytes({
                    try Socket.receiveDatagramTimestamped(fd, into: $0)
                }) {
                    guard n >= 16 else { continue }
                    let now = Instant.now()
                    let dwell = stamp.map { now.since($0) } ?? 0
                    buffer.withUnsafeMutableBytes {
                        $0.storeBytes(of: Int64(dwell).littleEndian, toByteOffset: 8, as: Int64.self)
                    }
                    _ = try? buffer.withUnsafeBytes {
                        try Socket.sendDatagram(fd, UnsafeRawBufferPointer(rebasing: $0[0..<n]), to: from)
                    }
                }
            }
            finished.signal()
        }.start()
    }

    func stopAndJoin() {
        stopFlag.store(true, ordering: .releasing)
        wakeup.signal()
        finished.wait()
    }
}

/// The server side of the goodput probe: writes as fast as TCP accepts until stopped or the
/// peer goes away, on its own thread; closes its socket when done.
final class BulkSender: @unchecked Sendable {
    private let fds: [FileDescriptor]
    private let epoll: Epoll
    private let wakeup: Wakeup
    private let stopFlag = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// One thread writing as fast as the kernel takes it on every connection in `fds`.
    init(fds: [FileDescriptor]) throws {
        self.fds = fds
        epoll = try Epoll(capacity: Int32(fds.count + 4))
        wakeup = try Wakeup()
        for (i, fd) in fds.enumerated() { try epoll.add(fd, .write, token: UInt64(i)) }
        try epoll.add(wakeup.fd, .read, token: UInt64.max)
    }

    convenience init(fd: FileDescriptor) throws { try self.init(fds: [fd]) }

    func startThread() {
        Thread { [self] in
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 17, alignment: 64)
            chunk.initializeMemory(as: UInt8.self, repeating: 0x6E)
            var ready: [Int] = []
            sending: while !stopFlag.load(ordering: .acquiring) {
                ready.removeAll(keepingCapacity: true)
                guard (try? epoll.wait(timeout: 100_000_000) { token, _ in
                    if token != UInt64.max { ready.append(Int(token)) }
                }) != nil else { break }
                for i in ready {
                    while !stopFlag.load(ordering: .relaxed) {
                        guard let status = try? Socket.write(fds[i], UnsafeRawBufferPointer(chunk)) else {
                            break sending
                        }
                        if case .wouldBlock = status { break }
                    }
                }
            }
            chunk.deallocate()
            for fd in fds { Socket.close(fd) }
            finished.signal()
        }.start()
    }

    func stopAndJoin() {
        stopFlag.store(true, ordering: .releasing)
        wakeup.signal()
        finished.wait()
    }
}
