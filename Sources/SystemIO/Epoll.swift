#if canImport(Glibc)
    import Glibc
#endif
internal import CLinux
import BenchCore

/// Readiness interests, as a value type free of C.
public struct IOInterest: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let read = IOInterest(rawValue: EPOLLIN.rawValue)
    public static let write = IOInterest(rawValue: EPOLLOUT.rawValue)
    /// Error or hang-up: always reported by the kernel.
    public static let hangup = IOInterest(rawValue: EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue)
}

/// An epoll instance with nanosecond timeouts (epoll_pwait2). Each fd is registered with a
/// caller-chosen token that comes back with its readiness.
public final class Epoll {
    public let fd: FileDescriptor
    private var events: UnsafeMutablePointer<epoll_event>
    private let capacity: Int32

    public init(capacity: Int32 = 256) throws {
        fd = try Sys.epollCreate()
        self.capacity = capacity
        events = .allocate(capacity: Int(capacity))
    }

    deinit {
        events.deallocate()
        Sys.close(fd)
    }

    public func add(_ target: FileDescriptor, _ interest: IOInterest, token: UInt64) throws {
        try Sys.epollCtl(fd, EPOLL_CTL_ADD, target, interest.rawValue | EPOLLRDHUP.rawValue, token)
    }

    public func modify(_ target: FileDescriptor, _ interest: IOInterest, token: UInt64) throws {
        try Sys.epollCtl(fd, EPOLL_CTL_MOD, target, interest.rawValue | EPOLLRDHUP.rawValue, token)
    }

    public func remove(_ target: FileDescriptor) {
        try? Sys.epollCtl(fd, EPOLL_CTL_DEL, target, 0, 0)
    }

    /// Waits up to `timeout` (nil: forever; 0: poll) and calls `body` for each ready fd.
    public func wait(timeout: Nanoseconds?, _ body: (_ token: UInt64, _ ready: IOInterest) throws -> Void) throws {
        let n = try Sys.epollWait(fd, events, capacity, timeout.map { max(0, $0) } ?? -1)
        for i in 0..<n {
            let ev = events[i]
            try body(ev.data.u64, IOInterest(rawValue: ev.events))
        }
    }
}

/// An eventfd: another thread (or a signal handler's dispatch source) wakes the loop through it.
public final class Wakeup: @unchecked Sendable {
    public let fd: FileDescriptor
    public init() throws { fd = try Sys.eventfd() }
    deinit { Sys.close(fd) }

    public func signal() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { try? Sys.write(fd, $0) }
    }

    public func drain() {
        var v: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &v) { try? Sys.read(fd, $0) }
    }
}
