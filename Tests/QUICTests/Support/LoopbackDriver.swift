import BenchCore
import Foundation
import Glibc
import QUIC

/// A nonblocking UDP socket on 127.0.0.1 for the loopback interop tests.
final class LoopbackSocket {
    let fd: Int32
    let local: Endpoint

    init(port: UInt16 = 0) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EBADF) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let rv = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rv == 0 else { close(fd); throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var bound = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        self.fd = fd
        local = Endpoint(address: UInt32(bigEndian: bound.sin_addr.s_addr), port: UInt16(bigEndian: bound.sin_port))
    }

    deinit { close(fd) }

    func send(_ payload: UnsafeRawBufferPointer, to remote: Endpoint) {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = remote.port.bigEndian
        addr.sin_addr.s_addr = remote.address.bigEndian
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, payload.baseAddress, payload.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    /// Reads one datagram into `buffer`; `nil` when none is waiting.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> (Int, Endpoint)? {
        var from = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let n = withUnsafeMutablePointer(to: &from) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                recvfrom(fd, buffer.baseAddress, buffer.count, 0, $0, &len)
            }
        }
        guard n >= 0 else { return nil }
        return (n, Endpoint(address: UInt32(bigEndian: from.sin_addr.s_addr), port: UInt16(bigEndian: from.sin_port)))
    }

    /// A UDP port on 127.0.0.1 that was free a moment ago.
    static func freePort() throws -> UInt16 { try LoopbackSocket().local.port }
}

/// Drives one `HTTP3Client` over real loopback sockets with a poll loop.
final class LoopbackDriver {
    let probe: ClientProbe
    var sockets: [Endpoint: LoopbackSocket] = [:]
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)

    init(client: HTTP3Client, socket: LoopbackSocket) {
        probe = ClientProbe(client)
        sockets[socket.local] = socket
    }

    deinit { buffer.deallocate() }

    func add(_ socket: LoopbackSocket) { sockets[socket.local] = socket }

    private func write() {
        probe.record(
            probe.client.write(now: Instant.now()) { payload, remote, local in
                (self.sockets[local] ?? self.sockets.values.first!).send(payload, to: remote)
            })
    }

    /// Runs until `condition` holds, the client closes, or `timeout` passes.
    @discardableResult
    func run(timeout: Nanoseconds, until condition: () -> Bool) -> Bool {
        let deadline = Instant.now() + timeout
        write()
        while !condition() && !probe.client.isClosed {
            let now = Instant.now()
            if now >= deadline { return false }
            var wait = deadline.since(now)
            if let expiry = probe.client.expiry { wait = min(wait, max(0, expiry.since(now))) }
            var fds = sockets.values.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), Int32(min((wait + 999_999) / 1_000_000, 1000)))
            for socket in sockets.values {
                while let (n, from) = socket.receive(into: buffer) {
                    probe.record(
                        probe.client.receive(
                            UnsafeRawBufferPointer(rebasing: buffer[0..<n]),
                            local: socket.local, remote: from, now: Instant.now()))
                }
            }
            if let expiry = probe.client.expiry, expiry <= Instant.now() {
                probe.record(probe.client.handleExpiry(now: Instant.now()))
            }
            write()
        }
        return condition()
    }
}

/// A peer server process for interop tests, stopped (by its own PID) when released.
final class PeerProcess {
    let process = Process()
    let log: String

    init(executable: String, arguments: [String], directory: String? = nil, log: String) throws {
        self.log = log
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    deinit { stop() }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// Waits until something listens on UDP `port` of 127.0.0.1 (as /proc/net/udp shows).
    func waitForUDP(port: UInt16, timeout: Double = 15) -> Bool {
        let needle = String(format: "0100007F:%04X", port)
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if !process.isRunning { return false }
            if let table = try? String(contentsOfFile: "/proc/net/udp", encoding: .utf8), table.contains(needle) {
                return true
            }
            usleep(50_000)
        }
        return false
    }

    var output: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
}

/// Drives an `HTTP3Server` on one loopback socket, answering `/bytes/N` with N bytes, while
/// `keepRunning` holds (e.g. while a peer client process runs).
final class LoopbackServerDriver {
    let server: HTTP3Server
    let socket: LoopbackSocket
    var events: [HTTP3ServerEvent] = []
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)

    init(server: HTTP3Server, socket: LoopbackSocket) {
        self.server = server
        self.socket = socket
    }

    deinit { buffer.deallocate() }

    private func handle(_ new: [HTTP3ServerEvent]) {
        for e in new {
            events.append(e)
            if case .request(let conn, let stream, _, _, let path, _, _) = e {
                let size = Int64(path.split(separator: "/").last.flatMap { Int($0) } ?? 0)
                try? server.submitResponse(connection: conn, stream: stream, status: 200, bodyLength: size)
            }
        }
    }

    private func write() {
        handle(server.write(now: Instant.now()) { payload, remote, _ in self.socket.send(payload, to: remote) })
    }

    func run(timeout: Nanoseconds, while keepRunning: () -> Bool) {
        let deadline = Instant.now() + timeout
        while keepRunning() && Instant.now() < deadline {
            let now = Instant.now()
            var wait: Nanoseconds = .milliseconds(20)
            if let expiry = server.expiry { wait = min(wait, max(0, expiry.since(now))) }
            step(wait: wait)
        }
    }

    /// Waits up to `wait` for datagrams, then receives, runs due timers and writes.
    func step(wait: Nanoseconds) {
        do {
            var fds = [pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 1, Int32((wait + 999_999) / 1_000_000))
            while let (n, from) = socket.receive(into: buffer) {
                handle(
                    server.receive(
                        UnsafeRawBufferPointer(rebasing: buffer[0..<n]),
                        local: socket.local, remote: from, now: Instant.now()))
            }
            if let expiry = server.expiry, expiry <= Instant.now() { handle(server.handleExpiry(now: Instant.now())) }
            write()
        }
    }
}
