import Foundation
import XCTest
#if canImport(Glibc)
    import Glibc
#endif
import BenchCore
import QUIC

/// Hostile QUIC clients against `netbench serve -t h3` (the built binary), with an h3 page load
/// (`netbench run --server -t h3`) beside each.
final class HostileQUICTests: XCTestCase {
    /// Datagrams whose headers parse (Initial long headers of version 1, short headers) and whose
    /// payloads are random, from 200 source ports.
    func testValidHeadersRandomPayloads() throws {
        // h2 beside h3 on the same port: `run --server` checks certificates over TCP first.
        let server = try ServedNetbench(transports: "h2,h3")
        let port = server.port
        let r = HostileRun.run("QUIC valid headers, random payloads", server: server, transport: "h3", seconds: 4) {
            deadline in
            let sockets = (0..<200).compactMap { _ in UDPSocket() }
            // A pool of random datagrams, each sent with fresh connection IDs (bytes 6..<14, 15..<23).
            var pool = (0..<64).map { $0 % 2 == 0 ? Self.randomInitial() : Self.randomShortHeader() }
            var sent = 0
            while Date() < deadline {
                for s in sockets {
                    let i = sent % pool.count
                    for j in 6..<14 { pool[i][j] = UInt8.random(in: 0...255) }
                    s.send(pool[i], to: port)
                    sent += 1
                }
            }
            return "\(sent) datagrams from \(sockets.count) ports"
        }
        XCTAssertNil(r.loadError)
        XCTAssertLessThan(r.peakKiB - r.baselineKiB, HostileClientTests.growthBoundKiB, "peak \(r.peakKiB) KiB")
    }

    /// Real client Initials from 600 ports, never followed up: the server answers each with at
    /// most 3× the bytes it received (RFC 9000 §8.1: the address is not validated), and once half
    /// of `--max-handshakes` are pending answers with a Retry instead; the page load (whose client
    /// follows the Retry) gets through.
    func testInitialFloodKeepsTheAmplificationLimit() throws {
        _ = raiseDescriptorLimit()
        let server = try ServedNetbench(transports: "h2,h3", extra: ["--max-handshakes", "256"])
        let port = server.port, ca = server.caPEM
        let r = HostileRun.run("QUIC Initial flood from 600 ports", server: server, transport: "h3", seconds: 5) {
            deadline in
            var flood: [(UDPSocket, sent: Int)] = []
            for _ in 0..<600 {
                guard let s = UDPSocket(), let local = s.local,
                    let client = try? HTTP3Client(
                        config: QUICConfiguration(), trustedRootsPEM: ca, serverName: "www.shop.test",
                        local: local, remote: Endpoint(address: 0x7F00_0001, port: port), now: .now())
                else { continue }
                var sent = 0
                client.write(now: .now()) { bytes, _, _ in
                    sent += bytes.count; s.send(Array(bytes), to: port)
                }
                flood.append((s, sent))
            }
            var worst = 0.0, answered = 0
            var received = [Int](repeating: 0, count: flood.count)
            // Retransmissions (PTO) included: listen on past the deadline if the flood took longer.
            let end = max(deadline, Date().addingTimeInterval(3))
            while Date() < end {
                for (i, f) in flood.enumerated() { received[i] += f.0.drain() }
                Thread.sleep(forTimeInterval: 0.05)
            }
            for (i, f) in flood.enumerated() where received[i] > 0 {
                answered += 1
                worst = max(worst, Double(received[i]) / Double(f.sent))
            }
            return
                "\(flood.count) Initials from as many ports, \(answered) answered, largest answer/Initial byte ratio "
                    + "\(String(format: "%.2f", worst))"
        }
        XCTAssertNil(r.loadError)
        XCTAssertLessThan(r.peakKiB - r.baselineKiB, HostileClientTests.growthBoundKiB, "peak \(r.peakKiB) KiB")
        let ratio = Double(r.attackNote.split(separator: " ").last ?? "") ?? 99
        XCTAssertLessThanOrEqual(ratio, 3.0, r.attackNote)
        XCTAssertTrue(r.attackNote.hasPrefix("600 Initials"), r.attackNote)
        XCTAssertTrue(r.attackNote.contains(", 600 answered"), r.attackNote)
        XCTAssertGreaterThan(
            Int(r.summary.components(separatedBy: "Retry: ").last?.split(separator: " ").first ?? "") ?? 0, 0, r.summary
        )
    }

    /// `--quic-retry always`: every new connection is sent a Retry first; the page load follows it
    /// and its Initial comes back with a token the server validates.
    func testRetryAlways() throws {
        let server = try ServedNetbench(transports: "h2,h3", extra: ["--quic-retry", "always"])
        let loadError = server.loadPage("h3")
        let summary = server.stop()
        XCTAssertNil(loadError)
        let retry = summary.components(separatedBy: "Retry: ").last?.split(separator: " ") ?? []
        XCTAssertGreaterThan(Int(retry.first ?? "") ?? 0, 0, summary)
        XCTAssertGreaterThan(Int(retry.dropFirst(2).first ?? "") ?? 0, 0, summary)
    }

    /// A version 1 Initial long header with random connection IDs and a random (undecryptable) payload, 1200 bytes.
    static func randomInitial() -> [UInt8] {
        let dcid = (0..<8).map { _ in UInt8.random(in: 0...255) }, scid = (0..<8).map { _ in UInt8.random(in: 0...255) }
        var p: [UInt8] = [0xC3, 0, 0, 0, 1, UInt8(dcid.count)] + dcid + [UInt8(scid.count)] + scid + [0]  // no token
        let rest = 1200 - p.count - 2
        p += [0x40 | UInt8(rest >> 8), UInt8(rest & 0xFF)]
        p += (0..<rest).map { _ in UInt8.random(in: 0...255) }
        return p
    }

    /// A short header (1-RTT) packet with a random 8-byte connection ID and random payload.
    static func randomShortHeader() -> [UInt8] {
        [0x40 | UInt8.random(in: 0...0x3F)] + (0..<300).map { _ in UInt8.random(in: 0...255) }
    }
}

/// A UDP socket on 127.0.0.1, non-blocking.
final class UDPSocket {
    let fd: Int32

    init?() {
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard ok else { close(fd); return nil }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(fd) }

    var local: Endpoint? {
        var addr = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) == 0 }
        }
        return ok ? Endpoint(address: 0x7F00_0001, port: UInt16(bigEndian: addr.sin_port)) : nil
    }

    func send(_ bytes: [UInt8], to port: UInt16) {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = bytes.withUnsafeBytes { b in
            withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, b.baseAddress, b.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// Reads every datagram waiting; returns their total size.
    func drain() -> Int {
        var total = 0
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return total }
            total += n
        }
    }
}
