#if canImport(Glibc)
    import Glibc
#endif
internal import CLinux
import BenchCore

/// TCP and UDP sockets for the event loop: non-blocking, IPv4, created in the calling thread's
/// network namespace (a socket stays in the namespace it was created in).
public enum Socket {
    /// A listening TCP socket bound to `endpoint` (port 0 picks one); returns the bound address.
    /// `congestionControl` is set on the listener, which accepted sockets inherit; a name the
    /// kernel refuses (not loaded, not allowed) throws.
    public static func listenTCP(on endpoint: Endpoint, backlog: Int32 = 1024, congestionControl: String? = nil) throws
        -> (FileDescriptor, Endpoint)
    {
        let fd = try Sys.socket(AF_INET, netbench_sock_stream(), 0)
        do {
            try Sys.setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR")
            if let cc = congestionControl {
                try Sys.setsockopt(fd, Int32(IPPROTO_TCP), TCP_CONGESTION, cc, "TCP_CONGESTION")
            }
            try Sys.bind(fd, endpoint)
            try Sys.listen(fd, backlog)
            return (fd, try Sys.getsockname(fd))
        } catch { Sys.close(fd); throw error }
    }

    /// Accepts one waiting connection, or nil when none is waiting.
    public static func accept(_ listener: FileDescriptor) throws -> (FileDescriptor, Endpoint)? {
        try Sys.accept4(listener)
    }

    /// Starts a non-blocking TCP connect; completion shows as writability, then check `connectResult`.
    /// `from` binds the local side first (a client path's address in an emulated network).
    public static func connectTCP(to remote: Endpoint, from local: Endpoint? = nil, options: TCPOptions = .init())
        throws -> FileDescriptor
    {
        let fd = try Sys.socket(AF_INET, netbench_sock_stream(), 0)
        do {
            try apply(options, to: fd)
            if let local { try Sys.bind(fd, local) }
            try Sys.connect(fd, remote)
            return fd
        } catch { Sys.close(fd); throw error }
    }

    /// Socket options a TCP connection may need; nil leaves the kernel's default.
    public struct TCPOptions: Sendable {
        public var noDelay = true
        /// TCP_USER_TIMEOUT: how long unacknowledged data may wait before the connection fails.
        public var userTimeoutMs: UInt32? = nil
        /// TCP_CONGESTION, e.g. "cubic" or "bbr".
        public var congestionControl: String? = nil
        /// SO_KEEPALIVE with TCP_KEEPIDLE = TCP_KEEPINTVL = this many seconds. A receiver has
        /// nothing unacknowledged in flight, so only keepalive probes let TCP_USER_TIMEOUT notice
        /// a path that silently died.
        public var keepAliveSeconds: Int32? = nil
        public init(
            noDelay: Bool = true, userTimeoutMs: UInt32? = nil, congestionControl: String? = nil,
            keepAliveSeconds: Int32? = nil
        ) {
            self.noDelay = noDelay
            self.userTimeoutMs = userTimeoutMs
            self.congestionControl = congestionControl
            self.keepAliveSeconds = keepAliveSeconds
        }
    }

    public static func apply(_ options: TCPOptions, to fd: FileDescriptor) throws {
        if options.noDelay { try Sys.setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1, "TCP_NODELAY") }
        if let t = options.userTimeoutMs {
            try Sys.setsockopt(fd, Int32(IPPROTO_TCP), TCP_USER_TIMEOUT, Int32(t), "TCP_USER_TIMEOUT")
        }
        // A refused algorithm (not loaded; without CAP_NET_ADMIN, not in
        // net.ipv4.tcp_allowed_congestion_control) is an error: the run would measure another one.
        // The algorithm in effect is read back and recorded (`congestionControl(of:)`).
        if let cc = options.congestionControl {
            try Sys.setsockopt(fd, Int32(IPPROTO_TCP), TCP_CONGESTION, cc, "TCP_CONGESTION")
        }
        if let k = options.keepAliveSeconds {
            try Sys.setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, 1, "SO_KEEPALIVE")
            try Sys.setsockopt(fd, Int32(IPPROTO_TCP), TCP_KEEPIDLE, k, "TCP_KEEPIDLE")
            try Sys.setsockopt(fd, Int32(IPPROTO_TCP), TCP_KEEPINTVL, k, "TCP_KEEPINTVL")
        }
    }

    /// The outcome of a non-blocking connect once the socket is writable: nil on success.
    public static func connectResult(_ fd: FileDescriptor) throws -> SystemError? {
        let e = try Sys.socketError(fd)
        return e == 0 ? nil : SystemError(call: "connect", errno: e)
    }

    /// A UDP socket bound to `endpoint` (port 0 picks one); returns the bound address.
    public static func bindUDP(_ endpoint: Endpoint, receiveBuffer: Int32 = 4 << 20, sendBuffer: Int32 = 4 << 20) throws
        -> (FileDescriptor, Endpoint)
    {
        let fd = try Sys.socket(AF_INET, netbench_sock_dgram(), 0)
        do {
            // Best effort: the kernel caps these at net.core.{r,w}mem_max.
            try? Sys.setsockopt(fd, SOL_SOCKET, SO_RCVBUF, receiveBuffer, "SO_RCVBUF")
            try? Sys.setsockopt(fd, SOL_SOCKET, SO_SNDBUF, sendBuffer, "SO_SNDBUF")
            try Sys.bind(fd, endpoint)
            return (fd, try Sys.getsockname(fd))
        } catch { Sys.close(fd); throw error }
    }

    public static func localEndpoint(_ fd: FileDescriptor) throws -> Endpoint { try Sys.getsockname(fd) }

    /// The TCP congestion control a socket actually uses.
    public static func congestionControl(of fd: FileDescriptor) -> String? { Sys.congestionControl(fd) }

    /// Whether a connected TCP socket negotiated ECN in its handshake (TCP_INFO: tcpi_options has
    /// TCPI_OPT_ECN; RFC 3168 needs both ends to agree, `net.ipv4.tcp_ecn` on the side that
    /// connects). nil when TCP_INFO cannot be read.
    public static func ecnNegotiated(_ fd: FileDescriptor) -> Bool? {
        Sys.tcpInfo(fd).map { Int32($0.options) & netbench_tcpi_opt_ecn != 0 }
    }

    /// TCP_NOTSENT_LOWAT: the socket reports itself writable only while fewer than `bytes` wait
    /// unsent, so what to send next can be decided late (the kernel no longer holds a queue the
    /// sender cannot reorder).
    public static func setNotSentLowWater(_ fd: FileDescriptor, bytes: Int32) throws {
        try Sys.setsockopt(fd, Int32(IPPROTO_TCP), TCP_NOTSENT_LOWAT, bytes, "TCP_NOTSENT_LOWAT")
    }

    /// Bytes queued on a TCP socket that have not been sent yet (ioctl SIOCOUTQNSD); nil if unknown.
    public static func unsentBytes(_ fd: FileDescriptor) -> Int? {
        Sys.unsentBytes(fd)
    }

    /// What the kernel's TCP sender says about a connection (getsockopt TCP_INFO); nil if unknown.
    public static func senderStatistics(of fd: FileDescriptor) -> TCPSenderStatistics? {
        Sys.tcpInfo(fd).map(TCPSenderStatistics.init)
    }

    /// Payload bytes the peer acknowledged on a TCP socket (tcpi_bytes_acked: TLS records and the
    /// handshake included); nil if unknown.
    public static func bytesAcknowledged(_ fd: FileDescriptor) -> Int64? {
        Sys.tcpInfo(fd).map { Int64($0.bytes_acked) }
    }

    public static func read(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) throws -> IOStatus {
        try Sys.read(fd, buffer)
    }

    public static func write(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer) throws -> IOStatus {
        try Sys.write(fd, bytes)
    }

    /// One datagram, or nil when none is waiting.
    public static func receiveDatagram(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) throws -> (
        Int, Endpoint
    )? {
        try Sys.recvfrom(fd, buffer)
    }

    /// Asks the kernel to stamp each received datagram with its arrival time (SO_TIMESTAMPNS).
    public static func enableReceiveTimestamps(_ fd: FileDescriptor) throws {
        try Sys.setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, 1, "SO_TIMESTAMPNS")
    }

    /// One datagram with the instant the kernel received it (after `enableReceiveTimestamps`),
    /// converted to the monotonic clock; nil when none is waiting (the socket does not coalesce).
    public static func receiveDatagramTimestamped(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer)
        throws -> (Int, Endpoint, Instant?)?
    {
        guard let got = try Sys.recvmsgCoalesced(fd, buffer) else { return nil }
        return (got.count, got.from, got.stamp.map { monotonic(realtime: $0).arrival })
    }

    /// A kernel receive time (CLOCK_REALTIME ns) on the monotonic clock, beside the monotonic now.
    /// The conversion uses the realtime−monotonic offset read right after receiving, so a clock
    /// step in between would show.
    private static func monotonic(realtime stamp: Int64) -> (arrival: Instant, now: Int64) {
        let (rt, mono) = Sys.clockGettimeRealtimeMonotonic()
        return (Instant(nanoseconds: UInt64(max(0, stamp - (rt - mono)))), mono)
    }

    /// CLOCK_REALTIME − CLOCK_MONOTONIC now, in ns: what turns a monotonic time into wall-clock time
    /// (pcap records) and a kernel receive time into a monotonic one.
    public static func realtimeMinusMonotonic() -> Int64 {
        let (rt, mono) = Sys.clockGettimeRealtimeMonotonic()
        return rt - mono
    }

    /// Sends one datagram; false when the socket buffer is full (the datagram was not sent).
    public static func sendDatagram(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, to remote: Endpoint) throws
        -> Bool
    {
        try Sys.sendto(fd, bytes, remote)
    }

    /// Sends `bytes` as datagrams of `segmentSize` bytes (the last may be shorter) in one system
    /// call (UDP GSO, Linux 4.18+), each with the ECN codepoint `ecn` when given (an IP_TOS control
    /// message; nil: the socket's TOS, Not-ECT); false when the socket buffer is full. Throws where
    /// the kernel or the route cannot segment (EIO, EINVAL): send the datagrams one by one then.
    public static func sendDatagrams(
        _ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, segmentSize: Int,
        to remote: Endpoint, ecn: ECNCodepoint? = nil
    ) throws -> Bool {
        try Sys.sendmsgSegmented(fd, bytes, segmentSize, tos: ecn?.rawValue, remote)
    }

    /// Sends one datagram with the ECN codepoint `ecn` (an IP_TOS control message); false when the
    /// socket buffer is full.
    public static func sendDatagram(
        _ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, to remote: Endpoint, ecn: ECNCodepoint
    ) throws -> Bool {
        try Sys.sendmsgSegmented(fd, bytes, bytes.count, tos: ecn.rawValue, remote)
    }

    /// Lets the kernel coalesce datagrams of one flow into one receive (UDP_GRO, Linux 5.0+);
    /// false where it cannot.
    @discardableResult
    public static func enableReceiveCoalescing(_ fd: FileDescriptor) -> Bool {
        (try? Sys.setsockopt(fd, netbench_sol_udp, netbench_udp_gro, 1, "UDP_GRO")) != nil
    }

    /// Asks the kernel for each received datagram's TOS byte (IP_RECVTOS): `receiveDatagrams` then
    /// reports its ECN codepoint. (The kernel coalesces only datagrams of one TOS, so one receive
    /// has one codepoint.)
    public static func enableReceiveECN(_ fd: FileDescriptor) throws {
        try Sys.setsockopt(fd, Int32(IPPROTO_IP), netbench_ip_recvtos, 1, "IP_RECVTOS")
    }

    /// What one receive returned: `count` bytes from one sender, holding datagrams of
    /// `segmentSize` bytes each (the last may be shorter; one datagram when not coalesced), when
    /// the kernel received them (after `enableReceiveTimestamps`, on the monotonic clock, never
    /// after now; else nil), and their ECN codepoint (after `enableReceiveECN`; else nil), or nil
    /// when nothing is waiting.
    public static func receiveDatagrams(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) throws
        -> (count: Int, from: Endpoint, segmentSize: Int, arrival: Instant?, ecn: ECNCodepoint?)?
    {
        guard let got = try Sys.recvmsgCoalesced(fd, buffer) else { return nil }
        let arrival = got.stamp.map { stamp -> Instant in
            let (at, now) = monotonic(realtime: stamp)
            return Instant(nanoseconds: min(at.nanoseconds, UInt64(max(0, now))))
        }
        let n = got.count
        return (n, got.from, got.segment > 0 ? got.segment : max(n, 1), arrival, got.tos.map(ECNCodepoint.init(tos:)))
    }

    public static func shutdownWrite(_ fd: FileDescriptor) { Sys.shutdownWrite(fd) }

    public static func close(_ fd: FileDescriptor) { Sys.close(fd) }
}
