import Foundation
import XCTest
#if canImport(Glibc)
    import Glibc
#endif
import TLS

/// Connections by the thousand that never ask for anything, against `netbench serve`.
final class HostileConnectionTests: XCTestCase {
    /// 10,000 TCP connections (fewer if the descriptor limit is lower: said in the output) that
    /// never send a byte. The server keeps at most `--max-handshakes` of them, closing the oldest,
    /// and closes the rest at the handshake timeout.
    func testTenThousandIdleConnections() throws {
        let limit = raiseDescriptorLimit()
        let wanted = min(10_000, limit - 300)
        if wanted < 10_000 {
            print("HOSTILE idle: the descriptor limit is \(limit): \(wanted) connections instead of 10,000")
        }
        let server = try ServedNetbench(extra: ["--handshake-timeout", "3s"])
        let port = server.port, pid = server.pid
        let r = HostileRun.run("\(wanted) idle connections", server: server, seconds: 6) { deadline in
            var held: [RawConnection] = []
            for _ in 0..<wanted {
                guard let c = RawConnection(port: port, blocking: false) else { break }
                held.append(c)
            }
            let opened = held.count
            var most = 0
            while Date() < deadline {
                most = max(most, ServedNetbench.descriptorCount(pid: pid))
                Thread.sleep(forTimeInterval: 0.1)
            }
            var closed = 0
            for c in held {
                var p = pollfd(fd: c.fd, events: Int16(POLLIN), revents: 0)
                if poll(&p, 1, 0) == 1 {
                    var b: UInt8 = 0
                    if recv(c.fd, &b, 1, Int32(MSG_DONTWAIT)) <= 0 { closed += 1 }
                }
            }
            return "\(opened) TCP connections opened and left silent for 6 s, \(closed) closed by the server; "
                + "the server held at most \(most) descriptors"
        }
        XCTAssertNil(r.loadError)
        XCTAssertLessThan(r.peakKiB - r.baselineKiB, HostileClientTests.growthBoundKiB, "peak \(r.peakKiB) KiB")
        let opened = Int(r.attackNote.split(separator: " ").first ?? "") ?? 0
        XCTAssertEqual(opened, wanted, r.attackNote)
        // At most --max-handshakes (1024) silent connections, plus the page load's and the server's own.
        let most = Int(r.attackNote.split(separator: " ").dropLast().last ?? "") ?? .max
        XCTAssertLessThanOrEqual(most, 1024 + 64, r.attackNote)
        XCTAssertGreaterThan(ServedNetbench.count("evicted", in: r.summary), 0, r.summary)
    }

    /// Idle TLS connections past `--max-connections`: the idle ones make room for the page load.
    func testIdleConnectionsAtTheConnectionLimit() throws {
        let server = try ServedNetbench(extra: ["--max-connections", "64"])
        let context = try RawTLSClient.context(caPEM: server.caPEM, alpn: ["http/1.1"])
        let port = server.port
        let r = HostileRun.run(
            "idle TLS connections past --max-connections 64", server: server, transport: "h1", seconds: 4
        ) { deadline in
            var held: [RawTLSClient] = []
            while held.count < 200, let c = RawTLSClient(port: port, context: context) { held.append(c) }
            while Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
            let closed = held.filter { $0.connection.closedByPeer(within: 0.05) }.count
            return "\(held.count) idle TLS connections, \(closed) closed by the server"
        }
        XCTAssertNil(r.loadError)
        XCTAssertLessThan(r.peakKiB - r.baselineKiB, HostileClientTests.growthBoundKiB)
        XCTAssertTrue(r.attackNote.hasPrefix("200 idle"), r.attackNote)
        XCTAssertGreaterThanOrEqual(ServedNetbench.count("evicted", in: r.summary), 136, r.summary)
    }

    /// A connection with no request in flight is closed at the idle timeout.
    func testIdleTimeoutClosesAnIdleConnection() throws {
        let server = try ServedNetbench(extra: ["--idle-timeout", "1s"])
        defer { _ = server.stop() }
        let context = try RawTLSClient.context(caPEM: server.caPEM, alpn: ["http/1.1"])
        let idle = try XCTUnwrap(RawTLSClient(port: server.port, context: context))
        XCTAssertTrue(idle.connection.closedByPeer(within: 4), "an idle connection outlived --idle-timeout 1s")
    }
}
