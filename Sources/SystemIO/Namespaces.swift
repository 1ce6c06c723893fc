#if canImport(Glibc)
    import Glibc
#endif
internal import CLinux
import BenchCore
import Foundation

/// Network namespaces entered per thread with setns(2): a socket or TUN device created while a
/// thread is inside a namespace belongs to that namespace for its whole life, so one process can
/// hold the server's, the client's and the emulator's descriptors at once.
public enum NetworkNamespace {
    /// The directory `ip netns` keeps named namespaces in.
    public static let directory = "/var/run/netns"

    /// Runs `body` with the calling thread inside namespace `name` (as created by `ip netns add`),
    /// then returns the thread to the namespace it was in, also when `body` throws.
    public static func with<T>(_ name: String?, _ body: () throws -> T) throws -> T {
        guard let name else { return try body() }
        let original = try Sys.open("/proc/thread-self/ns/net", O_RDONLY)
        defer { Sys.close(original) }
        let target = try Sys.open("\(directory)/\(name)", O_RDONLY)
        defer { Sys.close(target) }
        try Sys.setns(target, "netns \(name)")
        defer {
            // Failing to return would leave the thread in the wrong namespace: a netbench bug.
            do { try Sys.setns(original, "original netns") } catch { preconditionFailure("\(error)") }
        }
        return try body()
    }

    /// Moves the calling thread into `name` for good (a thread dedicated to that namespace).
    public static func enter(_ name: String) throws {
        let target = try Sys.open("\(directory)/\(name)", O_RDONLY)
        defer { Sys.close(target) }
        try Sys.setns(target, "netns \(name)")
    }
}

/// A TUN device: IPv4 packets in and out, no packet-info header, no offloads (MTU-sized packets
/// with software checksums).
public enum TUNDevice {
    /// Opens `/dev/net/tun` and creates the device `name` in the calling thread's namespace.
    public static func open(name: String) throws -> FileDescriptor {
        let fd = try Sys.open("/dev/net/tun", O_RDWR | O_NONBLOCK)
        do {
            _ = try Sys.ioctlTunSetIff(fd, name)
            return fd
        } catch { Sys.close(fd); throw error }
    }

    /// Whether this process may open `/dev/net/tun` for reading and writing (opened and closed
    /// at once; no device is created): nil when it can, else the failed call and its errno.
    public static func probe() -> SystemError? {
        do {
            let fd = try Sys.open("/dev/net/tun", O_RDWR)
            Sys.close(fd)
            return nil
        } catch let e as SystemError {
            return e
        } catch {
            return SystemError(call: "open(/dev/net/tun)", errno: EIO)
        }
    }
}

/// Process-level calls the command line needs.
public enum ProcessControl {
    /// PR_SET_TIMERSLACK for the calling thread.
    public static func setTimerSlack(nanoseconds: UInt) throws { try Sys.prctlTimerSlack(nanoseconds) }
    /// Sleeps the calling thread until `deadline` on the monotonic clock (clock_nanosleep, absolute).
    public static func sleep(until deadline: Instant) { Sys.clockNanosleepMonotonicUntil(deadline.nanoseconds) }
    /// The calling thread's nice value (-20…19; lower runs sooner). Lowering it needs CAP_SYS_NICE.
    public static func setThreadNice(_ nice: Int32) throws { try Sys.setpriorityCallingThread(nice) }
    /// Puts the calling thread under SCHED_FIFO at `priority` (1…99), or back under SCHED_OTHER
    /// with nil. Needs CAP_SYS_NICE.
    public static func setThreadRealtime(priority: Int32?) throws { try Sys.schedSetscheduler(fifoPriority: priority) }
    /// kill(2) of a process netbench started itself.
    @discardableResult
    public static func signal(pid: Int32, _ signal: Int32) -> Bool { Sys.kill(pid, signal) }
    public static var isRoot: Bool { Sys.geteuid() == 0 }
    /// Writes to a peer that went away (a browser netbench stopped, a reset connection) fail with
    /// EPIPE instead of killing netbench with SIGPIPE.
    public static func ignoreBrokenPipes() { Sys.ignoreSIGPIPE() }
    /// Ignores `signal` process-wide, so that only a DispatchSourceSignal sees it (or, with `ignored`
    /// false, gives it back its default action).
    public static func setIgnored(_ signal: Int32, _ ignored: Bool) { Sys.signal(signal, ignored: ignored) }
    /// Puts thread `pid` (any thread, a kernel thread too) under SCHED_FIFO at `priority`. Needs
    /// CAP_SYS_NICE.
    public static func setRealtime(pid: Int32, priority: Int32) throws {
        try Sys.schedSetscheduler(pid: pid, fifoPriority: priority)
    }
    /// The threads whose name (`/proc/<pid>/comm`) begins with `prefix` (kernel threads are
    /// processes of their own in /proc).
    public static func threads(namedWithPrefix prefix: String) -> [Int32] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { e -> Int32? in
            guard let pid = Int32(e), let comm = readSmallFile("/proc/\(e)/comm"), comm.hasPrefix(prefix) else {
                return nil
            }
            return pid
        }.sorted()
    }
    /// Reads a whole small file (/proc, /sys), or nil.
    public static func readSmallFile(_ path: String) -> String? {
        guard let fd = try? Sys.open(path, O_RDONLY) else { return nil }
        defer { Sys.close(fd) }
        var out = [UInt8]()
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let st = buf.withUnsafeMutableBytes { (try? Sys.read(fd, $0)) ?? .endOfFile }
            guard case .bytes(let n) = st, n > 0 else { break }
            out.append(contentsOf: buf[0..<n])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
