import Foundation
import Glibc
import XCTest
import BenchCore
import HTTPCodec
import SystemIO
import TLS
import Transport

/// Without late binding (`--late-binding off`) the HTTP/2 server writes as nginx does: as much as
/// the kernel's send buffer accepts, and no more. What the kernel refused stays in nghttp2 as
/// frames, so a request with a higher priority that arrives while a large response fills the
/// kernel is answered right after the bytes the kernels already hold (plus at most the one 16 KiB
/// chunk nginx keeps in its TLS buffer), not after a further queue of ciphertext held in user
/// space, which priorities could no longer reorder.
///
/// A raw client on loopback asks for 12 MiB (more than the kernels hold: Linux's send buffer stops at
/// 4 MiB by default; Chrome's 6 MiB stream window) with a low priority and stops reading, so both
/// kernels fill up, notes how much they hold (/proc/net/tcp: the server socket's send queue, the
/// client socket's receive queue), asks for 2 KiB with the highest priority (Chromium's exclusive
/// dependency on the root, as for a stylesheet), and reads on: the ciphertext that arrives before
/// the small response's first DATA must be what the kernels held and little more.
final class H2ServerSendQueueTests: XCTestCase {
    private let big: Int64 = 12 << 20, small: Int64 = 2048

    func testAnUrgentRequestWaitsOnlyForWhatTheKernelHolds() throws {
        let ca = try CertificateAuthority(commonName: "h2 send queue test CA")
        let serverTLS = try TLSServerContext(
            TLSServerConfiguration(identities: [try ca.issue(hostNames: ["origin.test"])], alpn: ["h2"]))
        let loop = try EventLoop()
        let server = try TCPServer(
            loop: loop, endpoint: Endpoint(address: Endpoint.loopbackAddress, port: 0), tls: serverTLS
        ) { [big, small] request in ServerResponse(status: 200, bodyLength: request.path == "/big" ? big : small) }
        defer { server.close() }
        XCTAssertNil(server.unsentLimit, "late binding is off unless asked for")

        let client = try RawClient(port: server.endpoint.port, roots: ca.certificatePEM, loop: loop)
        defer { close(client.fd) }
        try client.handshake()
        let bigStream = try client.h2.submitRequest(
            authority: "origin.test", path: "/big", priority: HTTP2Priority(dependsOn: 0, weight: 16, exclusive: true))
        try client.flush()
        // The client reads nothing: the server fills the client's receive buffer and its own send buffer.
        // Until the server is blocked on a full send buffer: nothing moves then until the client reads.
        var held = 0, last = -1
        let filled = Instant.now() + .seconds(10)
        while held != last || held < 64 * 1024 {
            guard Instant.now() < filled else { return XCTFail("the kernels never filled up: \(held) bytes") }
            last = held
            try loop.run(until: .now() + .milliseconds(100))
            held = try kernelHeld(serverPort: server.endpoint.port, clientPort: client.port)
        }
        let smallStream = try client.h2.submitRequest(
            authority: "origin.test", path: "/small",
            priority: HTTP2Priority(dependsOn: 0, weight: 256, exclusive: true))
        try client.flush()
        try loop.run(until: .now() + .milliseconds(200))  // the server reads it and schedules

        // Ciphertext read before the urgent response's first DATA, and the large response's DATA bytes by then.
        let readBefore = client.bytesRead
        var bigTotal = 0, smallTotal = 0, readUntilSmall: Int?, bigBefore = 0
        let deadline = Instant.now() + .seconds(20)
        while smallTotal < Int(small) || bigTotal < Int(big) {
            XCTAssertLessThan(Instant.now(), deadline, "both responses arrive")
            if Instant.now() > deadline { break }
            for (event, read) in try client.receive(chunk: 2048) {
                guard case .data(let stream, let count, _) = event else { continue }
                if stream == smallStream {
                    smallTotal += count
                    if readUntilSmall == nil { readUntilSmall = read - readBefore; bigBefore = bigTotal }
                }
                if stream == bigStream { bigTotal += count }
            }
            try client.flush()  // WINDOW_UPDATEs
            try loop.run(until: .now() + .milliseconds(2))
        }
        let ahead = try XCTUnwrap(readUntilSmall, "the urgent response arrives")
        // Beyond what the kernels held: at most nginx's one 16 KiB chunk (in TLS records), the
        // urgent response's HEADERS and first DATA, and the last 2 KiB read (about 21 KiB; 256 KiB
        // when the server kept a queue of ciphertext of its own). The kernels' count is a snapshot
        // taken once it stops changing for 100 ms; in the fresh-clone CI it came 50 KB lower than on
        // the same code by hand (3,719,432 against 3,769,156, the bytes read before the small
        // response the same 3,791,420): 128 KiB of slack still fails a server that queues 256 KiB.
        XCTAssertLessThanOrEqual(
            ahead, held + 128 * 1024,
            "ciphertext read before the urgent response's first DATA: \(ahead); the kernels held \(held)")
        XCTAssertLessThan(bigBefore, Int(big) - 1 << 20, "the urgent response overtakes the rest")
        print("read before the urgent response: \(ahead) (\(bigBefore) of the large one's); kernels held \(held)")
    }

    /// Bytes the kernels hold between server and client: the server socket's send queue plus the
    /// client socket's receive queue, from /proc/net/tcp (tx_queue and rx_queue, hexadecimal).
    private func kernelHeld(serverPort: UInt16, clientPort: UInt16) throws -> Int {
        // This thread's network namespace, where both sockets are (/proc/net follows the process's main
        // thread, which a test before this one may have left in another namespace: then nothing matched).
        // Read to the end: Foundation's String(contentsOfFile:) stops after the first page of a /proc file
        // (4,050 bytes, 27 rows), so once earlier tests leave connections in TIME_WAIT, these rows were missed.
        guard let table = ProcessControl.readSmallFile("/proc/thread-self/net/tcp") else { throw POSIXError(.EIO) }
        var held = 0
        for line in table.split(separator: "\n").dropFirst() {
            let f = line.split(separator: " ")
            guard f.count > 4 else { continue }
            let local = f[1].split(separator: ":"), remote = f[2].split(separator: ":")
            let queues = f[4].split(separator: ":")
            guard local.count == 2, remote.count == 2, queues.count == 2,
                let lp = UInt16(local[1], radix: 16), let rp = UInt16(remote[1], radix: 16),
                let tx = Int(queues[0], radix: 16), let rx = Int(queues[1], radix: 16)
            else { continue }
            if lp == serverPort && rp == clientPort { held += tx }
            if lp == clientPort && rp == serverPort { held += rx }
        }
        return held
    }
}

/// A TLS HTTP/2 client on a non-blocking socket that reads only when told to, driven in turns
/// with the server's event loop on this thread.
private final class RawClient {
    let fd: Int32
    let port: UInt16
    let tls: TLSConnection
    let h2: HTTP2Connection
    private let loop: EventLoop
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    init(port serverPort: UInt16, roots: String, loop: EventLoop) throws {
        self.loop = loop
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var rcvbuf: Int32 = 32 * 1024  // a small window: the server's queue builds up in its kernel
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = serverPort.bigEndian
        addr.sin_addr.s_addr = Endpoint.loopbackAddress.bigEndian
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: local.sin_port)
        tls = try TLSConnection(
            client: try TLSClientContext(TLSClientConfiguration(trustedRootsPEM: roots, alpn: ["h2"])),
            serverName: "origin.test")
        h2 = try HTTP2Connection(role: .client)
    }

    /// Sends what TLS and nghttp2 have for the server (the socket's buffer has room: the client
    /// sends little).
    func flush() throws {
        if tls.isHandshakeComplete {
            let out = try h2.takeOutbound()
            if !out.isEmpty { _ = try out.withUnsafeBytes { try tls.writePlaintext($0) } }
        }
        while tls.hasPendingCiphertext {
            let bytes = tls.takeCiphertext(max: 64 * 1024)
            var done = 0
            while done < bytes.count {
                let n = bytes[done...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n > 0 { done += n; continue }
                guard errno == EAGAIN else { throw POSIXError(.EIO) }
                try loop.run(until: .now() + .milliseconds(1))
            }
        }
    }

    /// Ciphertext bytes read from the socket so far.
    private(set) var bytesRead = 0

    /// Reads what has arrived, `chunk` bytes at a time, and returns nghttp2's events in wire order,
    /// each with `bytesRead` after the read that carried it.
    func receive(chunk: Int = 64 * 1024) throws -> [(HTTP2Event, Int)] {
        var events: [(HTTP2Event, Int)] = []
        var plain = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, min(chunk, $0.count), 0) }
            if n == 0 { throw POSIXError(.ECONNRESET) }
            if n < 0 { guard errno == EAGAIN else { throw POSIXError(.EIO) }; break }
            bytesRead += n
            buffer.withUnsafeBytes { tls.receiveCiphertext(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            guard tls.isHandshakeComplete else { continue }
            while case .bytes(let m) = try plain.withUnsafeMutableBytes({ try tls.readPlaintext(into: $0) }) {
                events += try h2.receive(Array(plain[0..<m])).map { ($0, bytesRead) }
            }
        }
        return events
    }

    /// Completes the TLS handshake and the exchange of SETTINGS.
    func handshake() throws {
        let deadline = Instant.now() + .seconds(5)
        var settings = false
        while !settings {
            guard Instant.now() < deadline else { throw POSIXError(.ETIMEDOUT) }
            if !tls.isHandshakeComplete { _ = try tls.handshake() }
            try flush()
            try loop.run(until: .now() + .milliseconds(2))
            settings = try receive().contains { if case .settingsReceived = $0.0 { true } else { false } }
        }
        XCTAssertEqual(tls.negotiatedALPN, "h2")
        try flush()
    }
}
