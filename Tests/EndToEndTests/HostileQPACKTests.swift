import Foundation
import XCTest
import QUIC

/// QPACK header bombs against `netbench serve -t h3` (the built binary), sent by a QUIC client
/// that writes its own HTTP/3 stream bytes, with an h3 page load beside each attack.
final class HostileQPACKTests: XCTestCase {
    /// One 4 KB dynamic-table entry (the largest the server's 4096-byte table takes) referenced by
    /// one-byte field lines: 16,000 of them per header block, 64 MB decoded. The server must close
    /// each connection (H3_EXCESSIVE_LOAD) once a section passes --max-header-list (64 KiB).
    func testQPACKBombH3() throws {
        let server = try ServedNetbench(transports: "h2,h3")
        let port = server.port, ca = server.caPEM
        let r = HostileRun.run("h3 QPACK bomb", server: server, transport: "h3", seconds: 4) { deadline in
            var connections = 0, blocks = 0, excessive = 0
            let table = H3.setCapacity(4096) + H3.insert("x-bomb", String(repeating: "b", count: 4000))
            let bomb = H3.prefix(requiredInserts: 1) + H3.getRoot + [UInt8](repeating: H3.newestEntry, count: 16_000)
            while Date() < deadline, let c = RawQUICConnection(port: port, caPEM: ca) {
                connections += 1
                guard (try? c.startHTTP3(encoderInstructions: table)) != nil else { break }
                while Date() < deadline && c.client.isOpen, (try? c.request(bomb)) != nil {
                    blocks += 1
                    c.pump(until: Date().addingTimeInterval(0.05))
                }
                c.pump(until: Date().addingTimeInterval(1)) { $0.closeReason != nil }
                if c.closeReason == QUICCloseReason(isApplicationError: true, code: 0x107) { excessive += 1 }
            }
            return
                "\(blocks) header blocks of 16,000 references to a 4 KB QPACK entry (64 MB decoded each) on "
                    + "\(connections) connections, "
                + "\(excessive) closed with H3_EXCESSIVE_LOAD"
        }
        XCTAssertNil(r.loadError)
        XCTAssertLessThan(r.peakKiB - r.baselineKiB, HostileClientTests.growthBoundKiB, "peak \(r.peakKiB) KiB")
        let connections = ServedNetbench.count("connections", in: r.attackNote)
        let closed = ServedNetbench.count("closed with H3_EXCESSIVE_LOAD", in: r.attackNote)
        XCTAssertGreaterThan(closed, 0, r.attackNote)
        // The last connection may be cut off by the attack's deadline before its close arrives.
        XCTAssertGreaterThanOrEqual(closed, connections - 1, "every attacking connection closed: \(r.attackNote)")
        XCTAssertGreaterThanOrEqual(ServedNetbench.count("malformed", in: r.summary), closed, r.summary)
    }

    /// `--max-header-list 16KiB` holds over HTTP/3: a request with 12 KB of literal fields is
    /// answered, one with 24 KB closes its connection (H3_EXCESSIVE_LOAD), over and over, while
    /// a page load succeeds.
    func testMaxHeaderListH3() throws {
        let server = try ServedNetbench(transports: "h2,h3", extra: ["--max-header-list", "16KiB"])
        let port = server.port, ca = server.caPEM
        @Sendable func section(kilobytes: Int) -> [UInt8] {
            H3.prefix(requiredInserts: 0) + H3.getRoot
                + (0..<kilobytes).flatMap { H3.literal("x-field-\($0)", String(repeating: "v", count: 1000)) }
        }
        let r = HostileRun.run("h3 header list over --max-header-list", server: server, transport: "h3", seconds: 3) {
            deadline in
            var answered = 0, refused = 0, tries = 0
            while Date() < deadline, let c = RawQUICConnection(port: port, caPEM: ca) {
                tries += 1
                guard (try? c.startHTTP3()) != nil, let small = try? c.request(section(kilobytes: 12)) else { break }
                c.pump(until: Date().addingTimeInterval(2)) { $0.answered(small) }
                if c.answered(small) { answered += 1 }
                _ = try? c.request(section(kilobytes: 24))
                c.pump(until: Date().addingTimeInterval(2)) { $0.closeReason != nil }
                if c.closeReason == QUICCloseReason(isApplicationError: true, code: 0x107) { refused += 1 }
            }
            return "\(tries) connections: \(answered) answered a 12 KB header section, \(refused) closed on a 24 KB one"
        }
        XCTAssertNil(r.loadError)
        XCTAssertLessThan(r.peakKiB - r.baselineKiB, HostileClientTests.growthBoundKiB, "peak \(r.peakKiB) KiB")
        let tries = ServedNetbench.count("connections", in: r.attackNote)
        XCTAssertGreaterThan(tries, 0, r.attackNote)
        XCTAssertGreaterThanOrEqual(ServedNetbench.count("answered", in: r.attackNote), tries - 1, r.attackNote)
        XCTAssertGreaterThanOrEqual(ServedNetbench.count("closed on", in: r.attackNote), tries - 1, r.attackNote)
    }

    /// Header blocks that wait for a table insert that never comes (Required Insert Count 2 with
    /// one entry inserted) on every stream the server allows, each block 140 KB long (under
    /// QUIC flow control: 15 MB a connection), on connection after connection held open.
    /// nghttp3 keeps a blocked stream's bytes until the insert arrives, so the server must cap
    /// what a connection may have waiting (H3_EXCESSIVE_LOAD) or its memory grows with every
    /// connection.
    func testQPACKBlockedStreamsH3() throws {
        let server = try ServedNetbench(transports: "h2,h3")
        let port = server.port, ca = server.caPEM
        let r = HostileRun.run("h3 QPACK blocked streams", server: server, transport: "h3", seconds: 5) { deadline in
            var held: [RawQUICConnection] = []
            var streams = 0, closed = 0
            let table = H3.setCapacity(4096) + H3.insert("x-bomb", String(repeating: "b", count: 4000))
            let waiting =
                H3.prefix(requiredInserts: 2) + H3.getRoot + [UInt8](repeating: H3.newestEntry, count: 140_000)
            while Date() < deadline, let c = RawQUICConnection(port: port, caPEM: ca) {
                held.append(c)
                guard (try? c.startHTTP3(encoderInstructions: table)) != nil else { break }
                for _ in 0..<100 where (try? c.request(waiting)) != nil { streams += 1 }
                c.pump(until: Date().addingTimeInterval(0.5)) { $0.closeReason != nil }
            }
            for c in held { c.pump(until: Date().addingTimeInterval(0.05)) { $0.closeReason != nil } }
            for c in held where c.closeReason == QUICCloseReason(isApplicationError: true, code: 0x107) { closed += 1 }
            return
                "\(streams) blocked header blocks of 140 KB on \(held.count) connections, \(closed) closed with "
                    + "H3_EXCESSIVE_LOAD"
        }
        XCTAssertNil(r.loadError)
        XCTAssertLessThan(r.peakKiB - r.baselineKiB, HostileClientTests.growthBoundKiB, "peak \(r.peakKiB) KiB")
        let connections = ServedNetbench.count("connections", in: r.attackNote)
        let closed = ServedNetbench.count("closed with H3_EXCESSIVE_LOAD", in: r.attackNote)
        XCTAssertGreaterThan(closed, 0, r.attackNote)
        XCTAssertGreaterThanOrEqual(closed, connections - 1, r.attackNote)
    }
}
