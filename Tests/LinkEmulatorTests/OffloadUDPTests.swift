import Foundation
import XCTest
import BenchCore
import LinkModel
import SystemIO

@testable import LinkEmulator

/// UDP datagrams of one flow (QUIC) released in one pass leave in one `GSO_UDP_L4` write
/// (`OffloadWriter`), and arrive as the same datagrams, whether the receiver coalesces (`UDP_GRO`)
/// or reads them one by one.
final class OffloadUDPTests: XCTestCase {
    /// A UDP/IPv4 datagram of `payload` bytes from 198.18.0.1:443 to 198.18.1.2:50000.
    static func datagram(
        payload: Int, tos: UInt8 = 0x02, sourcePort: UInt8 = 187, fragment: UInt8 = 0x40
    ) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: 28 + payload)
        p[0] = 0x45
        p[1] = tos
        p[2] = UInt8((28 + payload) >> 8)
        p[3] = UInt8((28 + payload) & 0xFF)
        p[6] = fragment
        p[8] = 64
        p[9] = 17
        p.replaceSubrange(12..<20, with: [198, 18, 0, 1, 198, 18, 1, 2])
        p.replaceSubrange(20..<24, with: [1, sourcePort, 195, 80])
        p[24] = UInt8((8 + payload) >> 8)
        p[25] = UInt8((8 + payload) & 0xFF)
        for i in 28..<p.count { p[i] = UInt8(truncatingIfNeeded: i &* 5) }
        return p
    }

    func testWriterMergesDatagramsOfOneFlow() {
        let w = OffloadWriter()
        let a = Self.datagram(payload: 1200), b = Self.datagram(payload: 1200), c = Self.datagram(payload: 700)
        a.withUnsafeBytes { XCTAssertTrue(OffloadWriter.canStart($0)) }
        Self.datagram(payload: 1200, fragment: 0x20).withUnsafeBytes { XCTAssertFalse(OffloadWriter.canStart($0)) }
        a.withUnsafeBytes { w.hold(0, $0) }
        XCTAssertTrue(w.isUDP)
        a.withUnsafeBytes { first in
            // Another flow, a CE mark, a longer datagram, a TCP segment: not merged.
            for other in [
                Self.datagram(payload: 1200, sourcePort: 188), Self.datagram(payload: 1200, tos: 0x03),
                Self.datagram(payload: 1201), OffloadTests.segment(sequence: 1, payload: 1176),
            ] {
                other.withUnsafeBytes { XCTAssertFalse(w.continues($0, first: first)) }
            }
            b.withUnsafeBytes { XCTAssertTrue(w.continues($0, first: first)) }
        }
        b.withUnsafeBytes { w.hold(1, $0) }
        a.withUnsafeBytes { first in c.withUnsafeBytes { XCTAssertTrue(w.continues($0, first: first)) } }
        c.withUnsafeBytes { w.hold(2, $0) }
        // A short datagram ends the merge.
        a.withUnsafeBytes { first in
            Self.datagram(payload: 100).withUnsafeBytes { XCTAssertFalse(w.continues($0, first: first)) }
        }
        a.withUnsafeBytes { p0 in
            b.withUnsafeBytes { p1 in
                c.withUnsafeBytes { p2 in
                    let ps = [p0, p1, p2]
                    w.assemble(first: p0, last: p2) { UnsafeRawBufferPointer(rebasing: ps[$0][28...]) }
                }
            }
        }
        XCTAssertEqual(w.gather.count, 4)
        XCTAssertEqual(w.gather.byteCount, VirtioNetHeader.size + 28 + 1200 * 2 + 700)
        let v = VirtioNetHeader(UnsafeRawBufferPointer(w.gsoHeader))
        XCTAssertEqual(v.gsoType, VirtioNetHeader.gsoUDPL4)
        XCTAssertEqual(v.gsoSize, 1200)
        XCTAssertEqual(v.flags, VirtioNetHeader.needsChecksum)
        XCTAssertEqual(v.headerLength, 28)
        XCTAssertEqual(v.checksumStart, 20)
        XCTAssertEqual(v.checksumOffset, 6)
        let h = UnsafeRawBufferPointer(rebasing: w.gsoHeader[VirtioNetHeader.size..<(VirtioNetHeader.size + 28)])
        XCTAssertEqual(Int(h[2]) << 8 | Int(h[3]), 28 + 1200 * 2 + 700, "IP total length of the whole")
        XCTAssertEqual(UInt16(h[10]) << 8 | UInt16(h[11]), IPv4Header.headerChecksum(h), "IP header checksum")
        XCTAssertEqual(Int(h[24]) << 8 | Int(h[25]), 8 + 1200 * 2 + 700, "UDP length of the whole")
        w.removeAll()
        XCTAssertFalse(w.isUDP)
    }

    /// Through real namespaces, a 1 Gbit/s link and offload: bursts of GSO sends from the server
    /// leave the link merged (fewer writes than datagrams) and every datagram arrives once, intact
    /// and in order, at a receiver with `UDP_GRO` and at one without. A release window of 100 µs
    /// (about ten 1,200-byte datagrams at 1 Gbit/s) makes the passes, and so the merges, independent
    /// of how punctually the loop wakes: without it, how many datagrams fall due in one pass depends
    /// on the machine's timer (a CI run merged 400 into 135 writes, an idle VM into fewer).
    func testMergedDatagramsArriveIntact() throws {
        try requireEmulationPrivileges()
        var options = EmulatedNetwork.Options()
        options.releaseWindow = 100_000
        let network = try EmulatedNetwork.create(
            paths: [.symmetric(name: "fibre", roundTrip: .milliseconds(10), rate: .constant(bitsPerSecond: 1e9))],
            options: options)
        defer { network.teardown() }
        XCTAssertTrue(network.tunOffload, network.offloadFallback ?? "")
        let address = network.paths[0].address
        let (tx, _) = try network.inServerNamespace {
            try Socket.bindUDP(Endpoint(address: network.serverAddress, port: 0))
        }
        defer { Socket.close(tx) }
        let (plain, plainEnd) = try network.inClientNamespace {
            try Socket.bindUDP(Endpoint(address: address, port: 0))
        }
        defer { Socket.close(plain) }
        let (coalescing, coalescingEnd) = try network.inClientNamespace {
            try Socket.bindUDP(Endpoint(address: address, port: 0))
        }
        defer { Socket.close(coalescing) }
        XCTAssertTrue(Socket.enableReceiveCoalescing(coalescing), "UDP_GRO")
        try network.start()
        let size = 1_200, perSend = 40, sends = 5
        for s in 0..<sends {
            for (i, to) in [plainEnd, coalescingEnd].enumerated() {
                var bytes = [UInt8](repeating: 0, count: size * perSend)
                for d in 0..<perSend {
                    for k in 0..<size { bytes[d * size + k] = Self.byte(datagram: s * perSend + d, k, receiver: i) }
                }
                XCTAssertTrue(try bytes.withUnsafeBytes { try Socket.sendDatagrams(tx, $0, segmentSize: size, to: to) })
            }
            usleep(2_000)
        }
        for (i, fd) in [plain, coalescing].enumerated() {
            let got = try Self.receive(fd, bytes: size * perSend * sends)
            XCTAssertEqual(got.count, perSend * sends, "receiver \(i): every datagram once")
            for (n, d) in got.enumerated() {
                let expected = (0..<size).map { Self.byte(datagram: n, $0, receiver: i) }
                XCTAssertEqual(d, expected, "receiver \(i), datagram \(n)")
                if d != expected { break }
            }
        }
        let report = try network.stop()
        let down = report.paths[0].downlink
        XCTAssertEqual(down.forwarded.packets, Int64(2 * perSend * sends))
        XCTAssertLessThan(
            report.offloadWrites * 3, report.releasedPackets,
            "\(report.offloadWrites) writes for \(report.releasedPackets) packets")
    }

    static func byte(datagram n: Int, _ k: Int, receiver i: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: n &* 31 &+ k &+ i)
    }

    /// The datagrams `fd` receives until `bytes` arrived or 3 s passed, split at their segment size.
    static func receive(_ fd: FileDescriptor, bytes: Int) throws -> [[UInt8]] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
        defer { buffer.deallocate() }
        var out: [[UInt8]] = [], total = 0
        let deadline = Instant.now() + .seconds(3)
        while total < bytes && Instant.now() < deadline {
            guard let got = try Socket.receiveDatagrams(fd, into: buffer) else {
                usleep(1_000)
                continue
            }
            var offset = 0
            while offset < got.count {
                let n = min(got.segmentSize, got.count - offset)
                out.append(Array(buffer[offset..<(offset + n)]))
                offset += n
            }
            total += got.count
        }
        return out
    }
}
