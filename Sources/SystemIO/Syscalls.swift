#if canImport(Glibc)
    import Glibc
#endif
internal import CLinux
import BenchCore

/// A failed system call: the call's name and errno, with the C library's text.
public struct SystemError: Error, CustomStringConvertible, Sendable {
    public var call: String
    public var errno: Int32
    public var description: String { "\(call): \(reason)" }
    /// The errno text and number, e.g. `No space left on device (errno 28)`.
    public var reason: String { "\(String(cString: strerror(errno))) (errno \(errno))" }
}

/// An open file descriptor. Ownership is explicit: whoever holds it calls `close()`.
public struct FileDescriptor: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    public var description: String { "fd \(rawValue)" }
}

/// What a non-blocking read or write did.
public enum IOStatus: Equatable, Sendable {
    case bytes(Int)
    case wouldBlock
    case endOfFile
}

/// Every system call netbench makes, one wrapper each, named after the C call.
///
/// EINTR is retried; EAGAIN/EWOULDBLOCK is a value (`.wouldBlock` / `nil`); EBADF and EFAULT are
/// netbench bugs (precondition); anything else throws a `SystemError` naming the call.
enum Sys {
    @inline(__always)
    static func check(_ call: String, _ body: () -> Int) throws -> Int? {
        while true {
            let r = body()
            if r >= 0 { return r }
            let e = netbench_errno()
            switch e {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            case EBADF, EFAULT: preconditionFailure("\(call): \(String(cString: strerror(e))) — a netbench bug")
            default: throw SystemError(call: "\(call)", errno: e)
            }
        }
    }

    static func fail(_ call: String) -> SystemError { SystemError(call: call, errno: netbench_errno()) }

    /// socket(2), non-blocking and close-on-exec.
    static func socket(_ domain: Int32, _ type: Int32, _ proto: Int32) throws -> FileDescriptor {
        let r = try check("socket") { Int(Glibc.socket(domain, type | netbench_sock_nonblock_cloexec(), proto)) }
        return FileDescriptor(rawValue: Int32(r!))
    }

    /// close(2). EINTR is not retried (Linux closes the fd anyway).
    static func close(_ fd: FileDescriptor) { _ = Glibc.close(fd.rawValue) }

    /// bind(2).
    static func bind(_ fd: FileDescriptor, _ ep: Endpoint) throws {
        var sa = sockaddr_in(ep)
        _ = try check("bind") {
            Int(
                withUnsafePointer(to: &sa) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.bind(fd.rawValue, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                })
        }
    }

    /// listen(2).
    static func listen(_ fd: FileDescriptor, _ backlog: Int32) throws {
        _ = try check("listen") { Int(Glibc.listen(fd.rawValue, backlog)) }
    }

    /// accept4(2), non-blocking and close-on-exec. nil when no connection is waiting.
    static func accept4(_ fd: FileDescriptor) throws -> (FileDescriptor, Endpoint)? {
        var sa = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let r = try check("accept4") {
            Int(
                withUnsafeMutablePointer(to: &sa) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        CLinux.accept4(fd.rawValue, $0, &len, netbench_sock_nonblock_cloexec())
                    }
                })
        }
        guard let r else { return nil }
        return (FileDescriptor(rawValue: Int32(r)), Endpoint(sa))
    }

    /// connect(2) on a non-blocking socket: EINPROGRESS is the expected answer.
    static func connect(_ fd: FileDescriptor, _ ep: Endpoint) throws {
        var sa = sockaddr_in(ep)
        let r = withUnsafePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd.rawValue, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if r == 0 { return }
        let e = netbench_errno()
        if e == EINPROGRESS || e == EINTR { return }
        throw SystemError(call: "connect to \(ep)", errno: e)
    }

    /// getsockname(2).
    static func getsockname(_ fd: FileDescriptor) throws -> Endpoint {
        var sa = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = try check("getsockname") {
            Int(
                withUnsafeMutablePointer(to: &sa) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.getsockname(fd.rawValue, $0, &len) }
                })
        }
        return Endpoint(sa)
    }

    /// setsockopt(2) with an int value.
    static func setsockopt(_ fd: FileDescriptor, _ level: Int32, _ name: Int32, _ value: Int32, _ what: String) throws {
        var v = value
        if Glibc.setsockopt(fd.rawValue, level, name, &v, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            throw fail("setsockopt(\(what))")
        }
    }

    /// setsockopt(2) with a string value (TCP_CONGESTION, SO_BINDTODEVICE).
    static func setsockopt(_ fd: FileDescriptor, _ level: Int32, _ name: Int32, _ value: String, _ what: String) throws
    {
        let r = value.withCString { Glibc.setsockopt(fd.rawValue, level, name, $0, socklen_t(strlen($0))) }
        if r != 0 { throw fail("setsockopt(\(what)=\(value))") }
    }

    /// getsockopt(2) TCP_CONGESTION: the algorithm a TCP socket uses.
    static func congestionControl(_ fd: FileDescriptor) -> String? {
        var buf = [CChar](repeating: 0, count: 32)
        var len = socklen_t(buf.count)
        guard Glibc.getsockopt(fd.rawValue, Int32(IPPROTO_TCP), TCP_CONGESTION, &buf, &len) == 0 else { return nil }
        let name = buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: name, as: UTF8.self)
    }

    /// getsockopt(2) TCP_INFO (the kernel's layout, `netbench_tcp_info`); nil when the call fails or the
    /// kernel fills too little of it to include `bytes_retrans` (Linux < 4.19).
    static func tcpInfo(_ fd: FileDescriptor) -> netbench_tcp_info? {
        var info = netbench_tcp_info()
        let filled = netbench_tcp_info(fd.rawValue, &info)
        guard filled >= netbench_tcp_info_required() else { return nil }
        return info
    }

    /// ioctl(2) SIOCOUTQNSD: bytes queued on a TCP socket and not yet sent; nil on error.
    static func unsentBytes(_ fd: FileDescriptor) -> Int? {
        let n = netbench_unsent_bytes(fd.rawValue)
        return n < 0 ? nil : Int(n)
    }

    /// getsockopt(2) SO_ERROR: the outcome of a non-blocking connect.
    static func socketError(_ fd: FileDescriptor) throws -> Int32 {
        var v: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        if Glibc.getsockopt(fd.rawValue, SOL_SOCKET, SO_ERROR, &v, &len) != 0 { throw fail("getsockopt(SO_ERROR)") }
        return v
    }

    /// read(2).
    static func read(_ fd: FileDescriptor, _ buf: UnsafeMutableRawBufferPointer) throws -> IOStatus {
        guard let n = try check("read", { Glibc.read(fd.rawValue, buf.baseAddress, buf.count) }) else {
            return .wouldBlock
        }
        return n == 0 && buf.count > 0 ? .endOfFile : .bytes(n)
    }

    /// write(2).
    static func write(_ fd: FileDescriptor, _ buf: UnsafeRawBufferPointer) throws -> IOStatus {
        guard let n = try check("write", { Glibc.write(fd.rawValue, buf.baseAddress, buf.count) }) else {
            return .wouldBlock
        }
        return .bytes(n)
    }

    /// recvfrom(2): nil when nothing is waiting.
    static func recvfrom(_ fd: FileDescriptor, _ buf: UnsafeMutableRawBufferPointer) throws -> (Int, Endpoint)? {
        var sa = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let r = try check("recvfrom") {
            withUnsafeMutablePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.recvfrom(fd.rawValue, buf.baseAddress, buf.count, 0, $0, &len)
                }
            }
        }
        guard let r else { return nil }
        return (r, Endpoint(sa))
    }

    /// clock_gettime(2) CLOCK_REALTIME and CLOCK_MONOTONIC, read back to back, in nanoseconds.
    static func clockGettimeRealtimeMonotonic() -> (Int64, Int64) {
        var rt = timespec(), mono = timespec()
        clock_gettime(CLOCK_REALTIME, &rt)
        clock_gettime(CLOCK_MONOTONIC, &mono)
        return (
            Int64(rt.tv_sec) * 1_000_000_000 + Int64(rt.tv_nsec),
            Int64(mono.tv_sec) * 1_000_000_000 + Int64(mono.tv_nsec)
        )
    }

    /// sendto(2): false when the socket buffer is full.
    static func sendto(_ fd: FileDescriptor, _ buf: UnsafeRawBufferPointer, _ ep: Endpoint) throws -> Bool {
        var sa = sockaddr_in(ep)
        let r = try check("sendto \(ep)") {
            withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.sendto(
                        fd.rawValue, buf.baseAddress, buf.count, Int32(MSG_NOSIGNAL), $0,
                        socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        return r != nil
    }

    /// sendmsg(2) with a UDP_SEGMENT control message (GSO) when `segment` is below the length: the
    /// kernel cuts `buf` into datagrams of `segment` bytes; with an IP_TOS control message when
    /// `tos` is given (each datagram's TOS byte). False when the socket buffer is full.
    static func sendmsgSegmented(
        _ fd: FileDescriptor, _ buf: UnsafeRawBufferPointer, _ segment: Int, tos: UInt8?, _ ep: Endpoint
    ) throws -> Bool {
        var sa = sockaddr_in(ep)
        let r = try check(segment < buf.count ? "sendmsg(UDP_SEGMENT)" : "sendmsg") {
            netbench_sendmsg_segmented(
                fd.rawValue, buf.baseAddress, buf.count, UInt16(clamping: segment), tos.map { Int32($0) } ?? -1, &sa)
        }
        return r != nil
    }

    /// recvmsg(2) reading the UDP_GRO segment size, the SO_TIMESTAMPNS receive time and the IP_TOS
    /// byte: nil when nothing is waiting; the size is 0 when the kernel delivered a single
    /// datagram, the time (CLOCK_REALTIME ns) nil when the kernel attached none, the TOS nil when
    /// the socket did not ask for it (IP_RECVTOS).
    static func recvmsgCoalesced(_ fd: FileDescriptor, _ buf: UnsafeMutableRawBufferPointer) throws -> (
        count: Int, from: Endpoint, segment: Int, stamp: Int64?, tos: UInt8?
    )? {
        var sa = sockaddr_in()
        var segment: Int32 = 0
        var stamp: Int64 = 0
        var tos: Int32 = -1
        let r = try check("recvmsg") {
            netbench_recvmsg_coalesced(fd.rawValue, buf.baseAddress, buf.count, &sa, &segment, &stamp, &tos)
        }
        guard let r else { return nil }
        return (r, Endpoint(sa), Int(segment), stamp > 0 ? stamp : nil, tos >= 0 ? UInt8(truncatingIfNeeded: tos) : nil)
    }

    /// shutdown(2) for writing: sends FIN after queued data.
    static func shutdownWrite(_ fd: FileDescriptor) { _ = Glibc.shutdown(fd.rawValue, Int32(SHUT_WR)) }

    /// epoll_create1(2).
    static func epollCreate() throws -> FileDescriptor {
        let r = CLinux.epoll_create1(Int32(EPOLL_CLOEXEC))
        if r < 0 { throw fail("epoll_create1") }
        return FileDescriptor(rawValue: r)
    }

    /// epoll_ctl(2).
    static func epollCtl(_ ep: FileDescriptor, _ op: Int32, _ fd: FileDescriptor, _ events: UInt32, _ token: UInt64)
        throws
    {
        var ev = epoll_event()
        ev.events = events
        ev.data.u64 = token
        if CLinux.epoll_ctl(ep.rawValue, op, fd.rawValue, &ev) != 0 { throw fail("epoll_ctl(\(op), \(fd))") }
    }

    /// epoll_pwait2(2) with a nanosecond timeout (negative: wait forever). Returns the count ready.
    static func epollWait(
        _ ep: FileDescriptor, _ events: UnsafeMutablePointer<epoll_event>, _ max: Int32, _ timeoutNs: Int64
    ) throws -> Int {
        let r = netbench_epoll_pwait2_ns(ep.rawValue, events, max, timeoutNs)
        if r >= 0 { return Int(r) }
        if netbench_errno() == EINTR { return 0 }
        throw fail("epoll_pwait2")
    }

    /// eventfd(2), non-blocking.
    static func eventfd() throws -> FileDescriptor {
        let r = CLinux.eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        if r < 0 { throw fail("eventfd") }
        return FileDescriptor(rawValue: r)
    }

    /// open(2).
    static func open(_ path: String, _ flags: Int32) throws -> FileDescriptor {
        let r = netbench_open(path, flags | O_CLOEXEC)
        if r < 0 { throw SystemError(call: "open(\(path))", errno: netbench_errno()) }
        return FileDescriptor(rawValue: r)
    }

    /// open(2) with O_CREAT: the file is created with `mode` when absent.
    static func openCreating(_ path: String, _ flags: Int32, mode: mode_t) throws -> FileDescriptor {
        let r = Glibc.open(path, flags | O_CREAT | O_CLOEXEC, mode)
        if r < 0 { throw SystemError(call: "open(\(path))", errno: netbench_errno()) }
        return FileDescriptor(rawValue: r)
    }

    /// fsync(2).
    static func fsync(_ fd: FileDescriptor) throws {
        _ = try check("fsync", { Int(Glibc.fsync(fd.rawValue)) })
    }

    /// ftruncate(2).
    static func ftruncate(_ fd: FileDescriptor, _ length: Int64) throws {
        _ = try check("ftruncate", { Int(Glibc.ftruncate(fd.rawValue, off_t(length))) })
    }

    /// lseek(2) to the end: the file's size.
    static func lseekEnd(_ fd: FileDescriptor) throws -> Int64 {
        let r = Glibc.lseek(fd.rawValue, 0, SEEK_END)
        if r < 0 { throw fail("lseek") }
        return Int64(r)
    }

    /// pread(2).
    static func pread(_ fd: FileDescriptor, _ buf: UnsafeMutableRawBufferPointer, _ offset: Int64) throws -> Int {
        try check("pread", { Glibc.pread(fd.rawValue, buf.baseAddress, buf.count, off_t(offset)) }) ?? 0
    }

    /// rename(2).
    static func rename(_ from: String, _ to: String) throws {
        if Glibc.rename(from, to) != 0 { throw SystemError(call: "rename(\(from), \(to))", errno: netbench_errno()) }
    }

    /// unlink(2); a missing file is not an error.
    static func unlink(_ path: String) { _ = Glibc.unlink(path) }

    /// ioctl(2) TUNSETIFF: attaches the fd to a TUN device of that name (created if absent)
    /// in the calling thread's network namespace. No packet-info header, no offloads.
    static func ioctlTunSetIff(_ fd: FileDescriptor, _ name: String) throws -> String {
        var ifr = ifreq()
        netbench_ifreq_init(&ifr, name, Int16(IFF_TUN | IFF_NO_PI))
        if netbench_ioctl_ptr(fd.rawValue, netbench_tunsetiff(), &ifr) != 0 { throw fail("ioctl(TUNSETIFF \(name))") }
        return String(cString: netbench_ifreq_name(&ifr))
    }

    /// setns(2) CLONE_NEWNET: moves the calling thread into the namespace behind `fd`.
    static func setns(_ fd: FileDescriptor, _ what: String) throws {
        if CLinux.setns(fd.rawValue, netbench_clone_newnet) != 0 {
            throw SystemError(call: "setns(\(what))", errno: netbench_errno())
        }
    }

    /// prctl(2) PR_SET_TIMERSLACK: timers of this thread fire within `ns` of their deadline.
    static func prctlTimerSlack(_ ns: UInt) throws {
        if netbench_prctl_timerslack(ns) != 0 { throw fail("prctl(PR_SET_TIMERSLACK)") }
    }

    /// clock_nanosleep(2) on CLOCK_MONOTONIC with TIMER_ABSTIME: sleeps until the absolute
    /// deadline (no drift from the time spent before the call); EINTR resumes the same sleep.
    static func clockNanosleepMonotonicUntil(_ deadlineNs: UInt64) {
        var ts = timespec(tv_sec: Int(deadlineNs / 1_000_000_000), tv_nsec: Int(deadlineNs % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }

    /// setpriority(2) PRIO_PROCESS with who = 0: on Linux nice values are per thread and this
    /// form changes only the calling thread's.
    static func setpriorityCallingThread(_ nice: Int32) throws {
        if Glibc.setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice) != 0 {
            throw fail("setpriority(\(nice))")
        }
    }

    /// sched_setscheduler(2) with pid 0: the calling thread's policy (SCHED_FIFO when
    /// `fifoPriority` is given, else SCHED_OTHER).
    static func schedSetscheduler(fifoPriority: Int32?) throws {
        var param = sched_param(sched_priority: fifoPriority ?? 0)
        if Glibc.sched_setscheduler(0, fifoPriority == nil ? SCHED_OTHER : SCHED_FIFO, &param) != 0 {
            throw fail("sched_setscheduler(\(fifoPriority.map { "SCHED_FIFO \($0)" } ?? "SCHED_OTHER"))")
        }
    }

    /// sched_setscheduler(2) SCHED_FIFO of thread `pid`.
    static func schedSetscheduler(pid: Int32, fifoPriority: Int32) throws {
        var param = sched_param(sched_priority: fifoPriority)
        if Glibc.sched_setscheduler(pid, SCHED_FIFO, &param) != 0 {
            throw fail("sched_setscheduler(\(pid), SCHED_FIFO \(fifoPriority))")
        }
    }

    /// kill(2).
    static func kill(_ pid: Int32, _ signal: Int32) -> Bool { Glibc.kill(pid, signal) == 0 }

    /// signal(2) SIGPIPE → SIG_IGN, process-wide.
    static func ignoreSIGPIPE() { signal(SIGPIPE, ignored: true) }

    /// signal(2): `sig` → SIG_IGN, or back to SIG_DFL, process-wide.
    static func signal(_ sig: Int32, ignored: Bool) { _ = Glibc.signal(sig, ignored ? SIG_IGN : SIG_DFL) }

    /// fcntl(2) F_DUPFD_CLOEXEC: a close-on-exec copy of `fd` at `minimum` or above; `fd` is closed.
    /// A child's dup2 onto a low number (3, 4) then never meets the descriptors it is given.
    static func moveAbove(_ fd: FileDescriptor, minimum: Int32) throws -> FileDescriptor {
        let moved = Glibc.fcntl(fd.rawValue, F_DUPFD_CLOEXEC, minimum)
        let e = netbench_errno()
        _ = Glibc.close(fd.rawValue)
        if moved < 0 { throw SystemError(call: "fcntl(F_DUPFD_CLOEXEC)", errno: e) }
        return FileDescriptor(rawValue: moved)
    }

    /// posix_spawn(3) of `path` with `argv` and `envp` (nil: this process's environment). In the
    /// child: each `dup2` pair (parent fd, child fd) applied, then each `open` (child fd, path,
    /// flags) — appending files are created 0644 —, default signal dispositions and an empty signal
    /// mask, and with `newProcessGroup` a process group of its own, made the foreground group of
    /// the terminal `foregroundOf` when given (posix_spawn_file_actions_addtcsetpgrp_np, glibc
    /// 2.35). Close-on-exec fds stay behind.
    static func posixSpawn(
        _ path: String, _ argv: [String], environment envp: [String]? = nil,
        dup2 pairs: [(Int32, Int32)] = [], open opens: [(Int32, String, Int32)] = [],
        newProcessGroup: Bool = false, foregroundOf terminal: Int32? = nil
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        for (parent, child) in pairs { posix_spawn_file_actions_adddup2(&actions, parent, child) }
        for (fd, file, flags) in opens { posix_spawn_file_actions_addopen(&actions, fd, file, flags, 0o644) }
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            if let terminal { posix_spawn_file_actions_addtcsetpgrp_np(&actions, terminal) }
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        func cStrings(_ xs: [String]) -> [UnsafeMutablePointer<CChar>?] { xs.map { strdup($0) } + [nil] }
        let cargv = cStrings(argv)
        let cenv = envp.map(cStrings)
        defer { for p in cargv + (cenv ?? []) { free(p) } }
        var pid: pid_t = 0
        let rc =
            cenv.map { Glibc.posix_spawn(&pid, path, &actions, &attributes, cargv, $0) }
            ?? Glibc.posix_spawn(&pid, path, &actions, &attributes, cargv, environ)
        if rc != 0 { throw SystemError(call: "posix_spawn(\(path))", errno: rc) }
        return pid
    }

    /// waitpid(2), EINTR retried; with `block` false (WNOHANG), nil while the child runs. Returns
    /// the raw status (see `exitStatus`).
    static func waitpid(_ pid: Int32, block: Bool) throws -> Int32? {
        var status: Int32 = 0
        while true {
            let r = Glibc.waitpid(pid, &status, block ? 0 : WNOHANG)
            if r == pid { return status }
            if r == 0 { return nil }
            let e = netbench_errno()
            if e == EINTR { continue }
            throw SystemError(call: "waitpid(\(pid))", errno: e)
        }
    }

    /// A raw wait status as a shell shows it: the exit code, or 128 + the signal that killed it.
    static func exitStatus(_ raw: Int32) -> Int32 {
        raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
    }

    /// geteuid(2).
    static func geteuid() -> UInt32 { Glibc.geteuid() }
}

extension Sys {
    /// pipe2(2) with O_CLOEXEC: (read end, write end).
    static func pipe() throws -> (FileDescriptor, FileDescriptor) {
        var fds: [Int32] = [0, 0]
        if CLinux.pipe2(&fds, O_CLOEXEC) != 0 { throw fail("pipe2") }
        return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
    }

    /// poll(2) for readability of some descriptors; returns those ready (or hung up).
    static func pollReadable(_ fds: [FileDescriptor], timeoutMs: Int32) throws -> [FileDescriptor] {
        var p = fds.map { pollfd(fd: $0.rawValue, events: Int16(POLLIN), revents: 0) }
        while true {
            let r = Glibc.poll(&p, nfds_t(p.count), timeoutMs)
            if r >= 0 { break }
            if netbench_errno() == EINTR { continue }
            throw fail("poll")
        }
        return p.filter { $0.revents != 0 }.map { FileDescriptor(rawValue: $0.fd) }
    }
}

extension sockaddr_in {
    init(_ ep: Endpoint) {
        self.init()
        sin_family = sa_family_t(AF_INET)
        sin_port = ep.port.bigEndian
        sin_addr = in_addr(s_addr: ep.address.bigEndian)
    }
}

extension Endpoint {
    init(_ sa: sockaddr_in) {
        self.init(address: UInt32(bigEndian: sa.sin_addr.s_addr), port: UInt16(bigEndian: sa.sin_port))
    }
}

/// The process's descriptor limit, which bounds how many connections a server can hold.
public enum OpenFileLimit {
    /// getrlimit(2) + setrlimit(2) RLIMIT_NOFILE: raises the soft limit to the hard one (no
    /// privilege needed) and returns the soft limit now in effect.
    @discardableResult
    public static func raiseToHard() -> Int {
        var r = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &r) == 0 else { return 1024 }
        if r.rlim_cur < r.rlim_max {
            var raised = r
            raised.rlim_cur = r.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { r = raised }
        }
        return r.rlim_cur > UInt(Int.max) ? Int.max : Int(r.rlim_cur)
    }
}

/// The calls of a short blocking exchange outside the event loop (`report --push`): name lookup,
/// a blocking socket with timeouts, and its connect, send and receive.
extension Sys {
    /// getaddrinfo(3) for a stream socket, any family (or IPv4 only); the resolver's order is kept.
    static func getaddrinfo(_ host: String, _ service: String?, ipv4Only: Bool) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = ipv4Only ? AF_INET : AF_UNSPEC
        hints.ai_socktype = netbench_sock_stream()
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = Glibc.getaddrinfo(host, service, &hints, &list)
        guard rc == 0 else { throw NameResolutionError(host: host, reason: String(cString: gai_strerror(rc))) }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var next = list
        while let entry = next?.pointee {
            next = entry.ai_next
            guard let sa = entry.ai_addr else { continue }
            let bytes = UnsafeRawBufferPointer(start: sa, count: Int(entry.ai_addrlen))
            addresses.append(SocketAddress(family: entry.ai_family, bytes: [UInt8](bytes)))
        }
        return addresses
    }

    /// socket(2) for a stream in blocking mode, close-on-exec, with SO_RCVTIMEO and SO_SNDTIMEO
    /// set to `timeoutSeconds` (a receive or send that waits longer fails with EAGAIN; so does a connect).
    static func socketBlocking(family: Int32, timeoutSeconds: Int) throws -> FileDescriptor {
        let type = netbench_sock_stream() | Int32(SOCK_CLOEXEC.rawValue)
        let r = try check("socket") { Int(Glibc.socket(family, type, 0)) }
        let fd = FileDescriptor(rawValue: Int32(r!))
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        for (name, what) in [(SO_RCVTIMEO, "SO_RCVTIMEO"), (SO_SNDTIMEO, "SO_SNDTIMEO")] {
            let size = socklen_t(MemoryLayout<timeval>.size)
            if Glibc.setsockopt(fd.rawValue, SOL_SOCKET, name, &tv, size) != 0 {
                let error = fail("setsockopt(\(what))")
                close(fd)
                throw error
            }
        }
        return fd
    }

    /// connect(2) on a blocking socket. After EINTR the connect goes on in the kernel; calling
    /// again waits for it (EISCONN once it is done).
    static func connectBlocking(_ fd: FileDescriptor, _ address: SocketAddress) throws {
        while true {
            let r = address.bytes.withUnsafeBytes {
                Glibc.connect(fd.rawValue, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
            }
            let e = netbench_errno()
            if r == 0 || e == EISCONN { return }
            if e == EINTR || e == EALREADY { continue }
            throw SystemError(call: "connect to \(address)", errno: e)
        }
    }

    /// send(2) with MSG_NOSIGNAL (a closed peer is EPIPE, not SIGPIPE); nil when the timeout passed.
    static func send(_ fd: FileDescriptor, _ buf: UnsafeRawBufferPointer) throws -> Int? {
        try check("send") { Glibc.send(fd.rawValue, buf.baseAddress, buf.count, Int32(MSG_NOSIGNAL)) }
    }

    /// recv(2): 0 at the end of the stream; nil when the timeout passed.
    static func recv(_ fd: FileDescriptor, _ buf: UnsafeMutableRawBufferPointer) throws -> Int? {
        try check("recv") { Glibc.recv(fd.rawValue, buf.baseAddress, buf.count, 0) }
    }
}
