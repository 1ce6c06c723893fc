import Foundation
import XCTest
#if canImport(Glibc)
    import Glibc
#endif
import TLS

/// Hostile clients against `netbench serve` (the built binary) over h1/h2 on loopback. Each
/// attack runs a few seconds on its own thread while `netbench run --server` loads the page; the
/// load must succeed, the server's peak resident memory (VmHWM) stay within a bound over its
/// size after a warm-up load, and the limit meant for the attack must have acted.
final class HostileClientTests: XCTestCase {
    /// How much the server may grow over its warm size under any of these attacks (a 64 MB
    /// header bomb or a connection that is never reaped would pass it).
    static let growthBoundKiB = 96 * 1024

    private func check(_ r: HostileRun, bound: Int = growthBoundKiB, file: StaticString = #filePath, line: UInt = #line)
    {
        XCTAssertNil(r.loadError, "the well-behaved load failed beside the attack", file: file, line: line)
        XCTAssertGreaterThan(r.baselineKiB, 0, file: file, line: line)
        XCTAssertLessThan(
            r.peakKiB - r.baselineKiB, bound,
            "server memory grew from \(r.baselineKiB) KiB to a peak of \(r.peakKiB) KiB",
            file: file, line: line)
    }

    /// Slowloris: request heads trickled a byte a second never complete; the header timeout closes them.
    func testSlowlorisH1() throws {
        let server = try ServedNetbench(extra: ["--header-timeout", "2s"])
        let context = try RawTLSClient.context(caPEM: server.caPEM, alpn: ["http/1.1"])
        let port = server.port
        let r = HostileRun.run("slowloris h1", server: server, transport: "h1", seconds: 5) { deadline in
            let clients = (0..<100).compactMap { _ in RawTLSClient(port: port, context: context) }
            for c in clients { c.send(Array("GET / HTTP/1.1\r\nHost: www.shop.test\r\nX-Slow: ".utf8)) }
            while Date() < deadline {
                for c in clients { c.send([UInt8(ascii: "a")]) }
                Thread.sleep(forTimeInterval: 1)
            }
            let closed = clients.filter { $0.connection.closedByPeer(within: 0.5) }.count
            return
                "\(clients.count) connections trickling a header a byte a second for 5 s, \(closed) closed by the "
                    + "server"
        }
        check(r)
        XCTAssertTrue(r.attackNote.hasPrefix("100 connections"), r.attackNote)
        XCTAssertTrue(r.attackNote.hasSuffix("100 closed by the server"), r.attackNote)
        XCTAssertGreaterThanOrEqual(ServedNetbench.count("timed out", in: r.summary), 100, r.summary)
    }

    /// CVE-2023-44487: HEADERS + RST_STREAM pairs as fast as the socket takes them.
    func testRapidResetH2() throws {
        let server = try ServedNetbench()
        let context = try RawTLSClient.context(caPEM: server.caPEM, alpn: ["h2"])
        let port = server.port
        let r = HostileRun.run("h2 rapid reset", server: server, seconds: 4) { deadline in
            var connections = 0, pairs = 0
            var codes: [UInt32] = []
            while Date() < deadline, let c = RawTLSClient(port: port, context: context) {
                connections += 1
                c.send(H2.preface + H2.frame(H2.settings))
                var stream: UInt32 = 1
                var received: [UInt8] = []
                while Date() < deadline && stream < 1 << 30 {
                    var batch: [UInt8] = []
                    for _ in 0..<50 {
                        batch += H2.frame(
                            H2.headers, flags: H2.endStream | H2.endHeaders, stream: stream, H2.getRequestBlock())
                        batch += H2.rst(stream)
                        stream += 2
                    }
                    pairs += 50
                    guard c.send(batch) else { break }
                    received += c.receive(timeoutMs: 1)
                }
                received += c.receive(timeoutMs: 300)
                codes += H2.goawayCodes(in: received)
            }
            let calm = codes.filter { $0 == 0xB }.count
            return "\(pairs) HEADERS+RST_STREAM pairs on \(connections) connections, \(calm) GOAWAY ENHANCE_YOUR_CALM"
        }
        check(r)
        let calm = Int(r.attackNote.split(separator: ",").last?.split(separator: " ").first ?? "") ?? 0
        XCTAssertGreaterThan(calm, 0, r.attackNote)
    }

    /// CVE-2024-27316: a header block that never ends, CONTINUATION after CONTINUATION.
    func testContinuationFloodH2() throws {
        let server = try ServedNetbench()
        let context = try RawTLSClient.context(caPEM: server.caPEM, alpn: ["h2"])
        let port = server.port
        let r = HostileRun.run("h2 CONTINUATION flood", server: server, seconds: 4) { deadline in
            var connections = 0, frames = 0, closed = 0
            let field = H2.literal("x-continued", String(repeating: "c", count: 1000))
            while Date() < deadline, let c = RawTLSClient(port: port, context: context) {
                connections += 1
                c.send(
                    H2.preface + H2.frame(H2.settings)
                        + H2.frame(H2.headers, flags: H2.endStream, stream: 1, H2.getRequestBlock()))
                var open = true
                while Date() < deadline && open {
                    var batch: [UInt8] = []
                    for _ in 0..<16 { batch += H2.frame(H2.continuation, stream: 1, field) }
                    frames += 16
                    open = c.send(batch)
                    if open && c.connection.closedByPeer(within: 0.01) { open = false }
                }
                if !open { closed += 1 }
            }
            return "\(frames) CONTINUATION frames on \(connections) connections, \(closed) closed by the server"
        }
        check(r)
        XCTAssertTrue(r.attackNote.contains(" closed by the server"))
        XCTAssertFalse(r.attackNote.hasSuffix(" 0 closed by the server"), r.attackNote)
        XCTAssertGreaterThan(ServedNetbench.count("malformed", in: r.summary), 0, r.summary)
    }

    /// An HPACK bomb: one 4 KB table entry referenced by one-byte indices, 64 MB of fields per 16 KB frame.
    func testHPACKBombH2() throws {
        let server = try ServedNetbench()
        let context = try RawTLSClient.context(caPEM: server.caPEM, alpn: ["h2"])
        let port = server.port
        let r = HostileRun.run("h2 HPACK bomb", server: server, seconds: 4) { deadline in
            var connections = 0, blocks = 0, resets = 0
            let entry = H2.indexedLiteral("x-bomb", String(repeating: "b", count: 4000))
            while Date() < deadline, let c = RawTLSClient(port: port, context: context) {
                connections += 1
                var stream: UInt32 = 1
                var first = H2.getRequestBlock() + entry
                first += [UInt8](repeating: 0xBE, count: 16_000 - first.count)  // 0xBE: dynamic entry 62, the bomb
                c.send(
                    H2.preface + H2.frame(H2.settings)
                        + H2.frame(H2.headers, flags: H2.endStream | H2.endHeaders, stream: 1, first))
                let next = H2.getRequestBlock() + [UInt8](repeating: 0xBE, count: 16_000)
                var received: [UInt8] = []
                while Date() < deadline {
                    stream += 2
                    blocks += 1
                    guard c.send(H2.frame(H2.headers, flags: H2.endStream | H2.endHeaders, stream: stream, next)) else {
                        break
                    }
                    received += c.receive(timeoutMs: 1)
                }
                received += c.receive(timeoutMs: 300)
                resets += Self.frames(of: H2.rstStream, in: received)
            }
            return
                "\(blocks) header blocks of 16,000 references to a 4 KB entry (64 MB decoded each) on \(connections) "
                    + "connections, \(resets) RST_STREAM back"
        }
        check(r)
        XCTAssertFalse(r.attackNote.hasSuffix(" 0 RST_STREAM back"), r.attackNote)
    }

    /// SETTINGS frames as fast as the socket takes them, their ACKs never read.
    func testSettingsFloodH2() throws {
        let server = try ServedNetbench()
        let context = try RawTLSClient.context(caPEM: server.caPEM, alpn: ["h2"])
        let port = server.port
        let r = HostileRun.run("h2 SETTINGS flood", server: server, seconds: 4) { deadline in
            var connections = 0, frames = 0
            var codes: [UInt32] = []
            let one = H2.frame(H2.settings, [0, 3, 0, 0, 0, 100])  // MAX_CONCURRENT_STREAMS 100
            let batch = [UInt8]((0..<500).map { _ in one }.joined())
            while Date() < deadline, let c = RawTLSClient(port: port, context: context) {
                connections += 1
                c.send(H2.preface)
                while Date() < deadline {
                    frames += 500
                    guard c.send(batch) else { break }
                }
                codes += H2.goawayCodes(in: c.receive(timeoutMs: 300) + c.receive(timeoutMs: 300))
            }
            return
                "\(frames) SETTINGS frames on \(connections) connections, \(codes.filter { $0 == 0xB }.count) GOAWAY "
                    + "ENHANCE_YOUR_CALM"
        }
        check(r)
        // Each connection ends by a flood limit: ours (GOAWAY ENHANCE_YOUR_CALM) or, when a burst
        // queues 1000 SETTINGS ACKs inside one read, nghttp2's own (closed, counted malformed).
        let numbers = r.attackNote.split(separator: " ").compactMap { Int($0) }
        let (connections, calm) = (numbers[1], numbers[2])
        XCTAssertGreaterThanOrEqual(
            calm + ServedNetbench.count("malformed", in: r.summary), connections - 1, r.attackNote + "; " + r.summary)
        XCTAssertGreaterThan(calm, 0, r.attackNote)
    }

    /// Bytes that are not HTTP after a good handshake: random plaintext (h2 and h1 by ALPN) and
    /// random bytes in place of TLS records.
    /// (HTTP/1.1 noise without an empty line is a head that never ends: the header timeout closes it.)
    func testRandomBytesAfterHandshake() throws {
        let server = try ServedNetbench(extra: ["--header-timeout", "1s"])
        let h2 = try RawTLSClient.context(caPEM: server.caPEM, alpn: ["h2"])
        let h1 = try RawTLSClient.context(caPEM: server.caPEM, alpn: ["http/1.1"])
        let port = server.port
        let r = HostileRun.run("random bytes after the handshake", server: server, seconds: 4) { deadline in
            var sent = 0, closed = 0, i = 0
            while Date() < deadline, let c = RawTLSClient(port: port, context: i % 2 == 0 ? h2 : h1) {
                let noise = (0..<4096).map { _ in UInt8.random(in: 0...255) }
                if i % 3 == 2 { c.connection.send(noise) } else { c.send(noise) }
                sent += 1
                if c.connection.closedByPeer(within: 2) { closed += 1 }
                i += 1
            }
            return
                "\(sent) connections sent 4 KB of random bytes (plaintext or raw) after the handshake, \(closed) "
                    + "closed by the server"
        }
        check(r)
        let parts = r.attackNote.split(separator: " ")
        XCTAssertEqual(parts.first, parts.dropLast(4).last, r.attackNote)  // every one closed
    }

    /// TLS handshake flood: ClientHellos as fast as four threads can send them, never finished.
    func testTLSHandshakeFlood() throws {
        _ = raiseDescriptorLimit()
        let server = try ServedNetbench(extra: ["--max-handshakes", "256"])
        let context = try RawTLSClient.context(caPEM: server.caPEM, alpn: ["h2"])
        let port = server.port
        let r = HostileRun.run("TLS handshake flood", server: server, seconds: 4) { deadline in
            let hellos = Mutex2(0)
            let group = DispatchGroup()
            for _ in 0..<4 {
                group.enter()
                Thread {
                    var held: [RawConnection] = []
                    var n = 0
                    while Date() < deadline, let c = RawConnection(port: port),
                        let t = try? TLSConnection(client: context, serverName: "www.shop.test")
                    {
                        _ = try? t.handshake()
                        c.send(t.takeCiphertext(max: 65536))
                        held.append(c)
                        if held.count > 1000 { held.removeFirst(500) }
                        n += 1
                    }
                    hellos.modify { $0 += n }
                    group.leave()
                }.start()
            }
            group.wait()
            return "\(hellos.get()) ClientHellos on as many connections, never finished"
        }
        check(r)
        XCTAssertGreaterThan(ServedNetbench.count("evicted", in: r.summary), 0, r.summary)
    }

    static func frames(of type: UInt8, in bytes: [UInt8]) -> Int {
        var count = 0, i = 0
        while i + 9 <= bytes.count {
            let n = Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2])
            if bytes[i + 3] == type { count += 1 }
            i += 9 + n
        }
        return count
    }
}
