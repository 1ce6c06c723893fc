import BenchCore
import Foundation
import QUIC
import XCTest

/// Measures (prints, does not assert) how fast one thread moves a large response through an
/// HTTP3Client and an HTTP3Server: the in-memory wire costs nothing in virtual time, so the
/// wall-clock time is the engines' CPU cost (encryption, framing, ACK processing).
final class ThroughputTests: XCTestCase {
    func testInMemoryThroughput100MB() throws {
        let size = Int(ProcessInfo.processInfo.environment["NETBENCH_QUIC_THROUGHPUT_BYTES"] ?? "") ?? 100_000_000
        let net = VirtualNetwork(
            server: try makeServer(now: Instant(nanoseconds: 1_000_000_000)),
            at: serverAddress, oneWayDelay: .microseconds(500))
        let probe = net.add(try makeClient(now: net.now), at: clientAddress)
        XCTAssertTrue(net.run(for: .seconds(5)) { probe.handshakeDone })
        let stream = try probe.client.submitRequest(authority: "localhost", path: "/bytes/\(size)")
        let wallStart = Instant.now()
        let virtualStart = net.now
        XCTAssertTrue(net.run(for: .seconds(600)) { probe.finished.contains(stream) || probe.closedWith != nil })
        let wall = Instant.now().since(wallStart)
        XCTAssertEqual(probe.bytes[stream], size)
        let mbps = Double(size) / 1e6 / (Double(wall) / 1e9)
        let stats = probe.client.statistics
        print(
            "QUIC in-memory throughput: \(size / 1_000_000) MB in \(Units.format(Double(wall) / 1e6, 1)) ms wall "
                + "= \(Units.format(mbps, 1)) MB/s (one thread, client+server; virtual transfer time "
                + "\(Units.format(net.now.since(virtualStart).inMilliseconds, 1)) ms; "
                + "\(stats.datagramsReceived) datagrams received by the client)")
    }

    /// The same over real loopback UDP sockets, client and server in one thread and one poll
    /// loop (so the figure includes the sendto/recvfrom system calls, without GSO).
    func testLoopbackThroughput100MB() throws {
        let size = Int(ProcessInfo.processInfo.environment["NETBENCH_QUIC_THROUGHPUT_BYTES"] ?? "") ?? 100_000_000
        let serverSocket = try LoopbackSocket(), clientSocket = try LoopbackSocket()
        let server = LoopbackServerDriver(server: try makeServer(now: Instant.now()), socket: serverSocket)
        let client = try HTTP3Client(
            config: QUICConfiguration().with { $0.initialRTT = .milliseconds(1) },
            trustedRootsPEM: TestPKI.shared.caPEM, serverName: "localhost",
            local: clientSocket.local, remote: serverSocket.local, now: Instant.now())
        let probe = ClientProbe(client)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
        defer { buffer.deallocate() }
        let stream = try client.submitRequest(authority: "localhost", path: "/bytes/\(size)")
        let start = Instant.now()
        let deadline = start + .seconds(120)
        while !probe.finished.contains(stream) && probe.closedWith == nil && Instant.now() < deadline {
            probe.record(client.write(now: Instant.now()) { p, remote, _ in clientSocket.send(p, to: remote) })
            server.step(wait: 0)
            var fds = [
                pollfd(fd: clientSocket.fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: serverSocket.fd, events: Int16(POLLIN), revents: 0),
            ]
            var wait: Nanoseconds = .milliseconds(5)
            let now = Instant.now()
            for t in [client.expiry, server.server.expiry].compactMap({ $0 }) { wait = min(wait, max(0, t.since(now))) }
            _ = poll(&fds, 2, Int32(wait / 1_000_000))
            while let (n, from) = clientSocket.receive(into: buffer) {
                probe.record(
                    client.receive(
                        UnsafeRawBufferPointer(rebasing: buffer[0..<n]),
                        local: clientSocket.local, remote: from, now: Instant.now()))
            }
            if let t = client.expiry, t <= Instant.now() { probe.record(client.handleExpiry(now: Instant.now())) }
        }
        let wall = Instant.now().since(start)
        XCTAssertEqual(probe.bytes[stream], size)
        let stats = client.statistics
        print(
            "QUIC loopback throughput: \(size / 1_000_000) MB in \(Units.format(Double(wall) / 1e6, 1)) ms "
                + "= \(Units.format(Double(size) / 1e6 / (Double(wall) / 1e9), 1)) MB/s (one thread, client+server, "
                + "\(stats.datagramsReceived) datagrams to the client, smoothed RTT "
                + "\(Units.format((stats.smoothedRTT ?? 0).inMilliseconds, 3)) ms)")
    }
}
