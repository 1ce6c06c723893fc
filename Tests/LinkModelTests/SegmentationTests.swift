import BenchCore
import XCTest
import TestSupport

@testable import LinkModel

/// TCP super-packets cut into segments (`TCPSegmentation`), checked against packets built here the
/// way a sender without TSO builds them, and fed through the link model.
final class SegmentationTests: XCTestCase {
    static let mss = 1448
    /// Timestamps option (NOP, NOP, TS): 32-byte TCP header as Linux sends it.
    static let options: [UInt8] = [1, 1, 8, 10, 0, 0, 0x12, 0x34, 0, 0, 0x56, 0x78]

    /// One TCP/IPv4 packet as a sender without offload would write it: complete checksums.
    static func tcpPacket(
        payload: ArraySlice<UInt8>, sequence: UInt32, id: UInt16, flags: UInt8, tos: UInt8 = 0x02
    ) -> [UInt8] {
        let thl = 20 + options.count
        var p = [UInt8](repeating: 0, count: 20 + thl)
        p[0] = 0x45
        p[1] = tos
        put16(&p, 2, UInt16(20 + thl + payload.count))
        put16(&p, 4, id)
        p[6] = 0x40  // DF
        p[8] = 64
        p[9] = 6
        p.replaceSubrange(12..<20, with: [198, 18, 0, 1, 198, 18, 1, 2])
        put16(&p, 20, 443)
        put16(&p, 22, 50_000)
        put16(&p, 24, UInt16(sequence >> 16))
        put16(&p, 26, UInt16(sequence & 0xFFFF))
        put16(&p, 28, 0)
        put16(&p, 30, 777)
        p[32] = UInt8(thl / 4) << 4
        p[33] = flags
        put16(&p, 34, 502)
        p.replaceSubrange(40..<(40 + options.count), with: options)
        p += payload
        put16(&p, 10, ~referenceSum(Array(p[0..<20])))
        var pseudo = Array(p[12..<20]) + [0, 6]
        pseudo += [UInt8((p.count - 20) >> 8), UInt8((p.count - 20) & 0xFF)]
        put16(&p, 36, ~referenceSum(pseudo + Array(p[20...])))
        return p
    }

    static func put16(_ p: inout [UInt8], _ o: Int, _ v: UInt16) {
        p[o] = UInt8(v >> 8)
        p[o + 1] = UInt8(v & 0xFF)
    }

    /// RFC 1071 done the slow, obvious way: big-endian 16-bit words, end-around carry.
    static func referenceSum(_ bytes: [UInt8]) -> UInt16 { ReferenceChecksum.sum(bytes) }

    static let payload: [UInt8] = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    /// What the kernel hands over with TSO: one header, the whole payload, the IP total length of the
    /// whole, a checksum the segmenter does not use.
    static func superPacket(flags: UInt8 = 0x18 | 0x80) -> [UInt8] {
        var p = tcpPacket(payload: payload[...], sequence: 1_000, id: 0x1234, flags: flags)
        put16(&p, 2, UInt16(truncatingIfNeeded: p.count))
        return p
    }

    static func segments(of p: [UInt8], mss: Int = mss) -> [[UInt8]] {
        p.withUnsafeBytes { src in
            let n = TCPSegmentation.segmentCount(src, segmentSize: mss)
            return (0..<n).map { i in
                var out = [UInt8](repeating: 0, count: 2048)
                let len = out.withUnsafeMutableBytes {
                    TCPSegmentation.writeSegment(i, of: src, segmentSize: mss, into: $0)
                }
                return Array(out[0..<(len ?? 0)])
            }
        }
    }

    func testSegmentsAreThePacketsASenderWithoutOffloadWouldWrite() {
        let segs = Self.segments(of: Self.superPacket())
        XCTAssertEqual(segs.count, 7)  // 6 × 1448 + 1312
        for (i, s) in segs.enumerated() {
            let first = i * Self.mss
            let chunk = Self.payload[first..<min(first + Self.mss, Self.payload.count)]
            let last = i == segs.count - 1
            // CWR stays on the first segment only, PSH moves to the last.
            let flags: UInt8 = 0x10 | (last ? 0x08 : 0) | (i == 0 ? 0x80 : 0)
            let expected = Self.tcpPacket(
                payload: chunk, sequence: 1_000 + UInt32(first), id: 0x1234 + UInt16(i), flags: flags)
            XCTAssertEqual(s, expected, "segment \(i)")
            XCTAssertLessThanOrEqual(s.count, 1500)
        }
    }

    /// With `partialChecksum` a segment is the same packet but for its TCP checksum field, which holds
    /// the pseudo-header's sum a device finishing it (`NEEDS_CSUM`, start 20, offset 16) expects: once
    /// finished, the segment is byte for byte the one with the full checksum.
    func testPartialChecksumSegmentsFinishToTheFullOnes() {
        let p = Self.superPacket()
        let full = Self.segments(of: p)
        let partial: [[UInt8]] = p.withUnsafeBytes { src in
            (0..<full.count).map { i in
                var out = [UInt8](repeating: 0, count: 2048)
                let len = out.withUnsafeMutableBytes {
                    TCPSegmentation.writeSegment(i, of: src, segmentSize: Self.mss, into: $0, partialChecksum: true)
                }
                return Array(out[0..<(len ?? 0)])
            }
        }
        for (i, (f, var s)) in zip(full, partial).enumerated() {
            XCTAssertEqual(Array(s[0..<36]) + Array(s[38...]), Array(f[0..<36]) + Array(f[38...]), "segment \(i)")
            var pseudo = Array(s[12..<20]) + [0, 6]
            pseudo += [UInt8((s.count - 20) >> 8), UInt8((s.count - 20) & 0xFF)]
            XCTAssertEqual(
                UInt16(s[36]) << 8 | UInt16(s[37]), Self.referenceSum(pseudo), "segment \(i): the pseudo-header's sum")
            XCTAssertTrue(s.withUnsafeMutableBytes { TCPSegmentation.completeChecksum($0, start: 20, offset: 16) })
            XCTAssertEqual(s, f, "segment \(i) finished")
        }
    }

    func testFinOnlyOnTheLastSegmentAndShortPacketsStayWhole() {
        let segs = Self.segments(of: Self.superPacket(flags: 0x11))
        XCTAssertEqual(segs.map { $0[33] }, Array(repeating: 0x10, count: 6) + [0x11])
        let small = Self.tcpPacket(payload: Self.payload[0..<100], sequence: 5, id: 9, flags: 0x18)
        XCTAssertEqual(Self.segments(of: small), [small])
        let bare = Self.tcpPacket(payload: [], sequence: 5, id: 9, flags: 0x10)
        XCTAssertEqual(Self.segments(of: bare), [bare], "a pure ACK is one segment")
        let udp: [UInt8] = [0x45] + [UInt8](repeating: 0, count: 8) + [17] + [UInt8](repeating: 0, count: 40)
        udp.withUnsafeBytes { XCTAssertNil(TCPSegmentation.headerLength($0)) }
    }

    func testChecksumMatchesTheReferenceAtEveryLengthAndAlignment() {
        var rng = SeededRandom(seed: 7)
        let bytes = (0..<3_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        for start in 0..<9 {
            for length in [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 1499, 1500, 2991] where start + length <= bytes.count {
                let slice = Array(bytes[start..<(start + length)])
                let fast = bytes.withUnsafeBytes {
                    Checksum.fold(Checksum.sum(UnsafeRawBufferPointer(rebasing: $0[start..<(start + length)])))
                }
                XCTAssertEqual(fast, Self.referenceSum(slice), "start \(start), length \(length)")
            }
        }
    }

    func testCompletesAChecksumLeftToTheDevice() {
        // A UDP datagram whose checksum field holds only the pseudo-header sum (NEEDS_CSUM).
        let data: [UInt8] = Array("hello, offload".utf8)
        var p: [UInt8] = [0x45, 0, 0, UInt8(28 + data.count), 0, 1, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]
        p += [0x1F, 0x90, 0x01, 0xBB, 0, UInt8(8 + data.count), 0, 0] + data
        let pseudo = Self.referenceSum(Array(p[12..<20]) + [0, 17, 0, UInt8(8 + data.count)])
        Self.put16(&p, 26, pseudo)
        XCTAssertTrue(p.withUnsafeMutableBytes { TCPSegmentation.completeChecksum($0, start: 20, offset: 6) })
        let full = Array(p[12..<20]) + [0, 17, 0, UInt8(8 + data.count)] + Array(p[20...])
        XCTAssertEqual(Self.referenceSum(full), 0xFFFF, "the datagram's checksum verifies")
        XCTAssertFalse(p.withUnsafeMutableBytes { TCPSegmentation.completeChecksum($0, start: 40, offset: 6) })
    }

    func testVirtioHeaderRoundTrip() {
        var h = VirtioNetHeader(flags: VirtioNetHeader.needsChecksum, gsoType: 0x81, gsoSize: 1448)
        h.headerLength = 52
        h.checksumStart = 20
        h.checksumOffset = 16
        var raw = [UInt8](repeating: 0, count: VirtioNetHeader.size)
        raw.withUnsafeMutableBytes { h.write(to: $0) }
        XCTAssertEqual(raw.withUnsafeBytes { VirtioNetHeader($0) }, h)
        XCTAssertTrue(h.isTCPv4Segmentation)
        XCTAssertFalse(VirtioNetHeader(gsoType: VirtioNetHeader.gsoUDPL4).isTCPv4Segmentation)
    }

    // MARK: through the link model

    static func link(loss: LossModel = .none, queue: QueueLimit = .bytes(1 << 20), seed: UInt64 = 1) -> Link {
        Link(
            configuration: LinkConfiguration(
                delay: .milliseconds(5), rate: .constant(bitsPerSecond: 100e6), loss: loss, queueLimit: queue),
            start: origin, seed: seed)
    }

    /// Segments of a super-packet read at `t` against the same packets read one by one as a sender
    /// without TSO writes them (10 µs apart, faster than the 100 Mbit/s link drains them): the same
    /// bytes leave, each within one packet's serialization time of its twin.
    func testSegmentsLeaveWhenTheUnsegmentedPacketsWould() {
        let segs = Self.segments(of: Self.superPacket())
        let a = Self.link(), b = Self.link()
        for (i, s) in segs.enumerated() {
            XCTAssertEqual(a.enqueue(Packet(handle: Int32(i), size: s.count, arrival: origin), now: origin), .accepted)
            let t = origin + Nanoseconds(i) * 10_000
            XCTAssertEqual(b.enqueue(Packet(handle: Int32(i), size: s.count, arrival: t), now: t), .accepted)
        }
        let outA = drain(a, until: at(ms: 100)), outB = drain(b, until: at(ms: 100))
        XCTAssertEqual(outA.map(\.handle), outB.map(\.handle))
        XCTAssertEqual(outA.map(\.size), outB.map(\.size))
        let serialization = Nanoseconds(Double(1500 * 8) / 100e6 * 1e9)
        for (x, y) in zip(outA, outB) { XCTAssertLessThanOrEqual(abs(x.release.since(y.release)), serialization) }
        XCTAssertEqual(a.counters, b.counters)
    }

    /// One segment of a super-packet lost on the link: only that one; the others leave, in order,
    /// at the times they would have anyway, and the counters charge the one segment.
    func testLossOfOneSegmentLosesThatSegmentAlone() throws {
        let segs = Self.segments(of: Self.superPacket())
        var chosen: (seed: UInt64, lost: Int)?
        for seed in UInt64(1)...500 {
            var process = LossProcess(model: .bernoulli(0.1), seed: seed)
            let drops = segs.indices.filter { _ in process.dropsNextPacket() }
            if drops.count == 1 {
                chosen = (seed, drops[0])
                break
            }
        }
        let (seed, lost) = try XCTUnwrap(chosen, "a seed that loses exactly one of 7 segments")
        let lossy = Self.link(loss: .bernoulli(0.1), seed: seed), clean = Self.link()
        for (i, s) in segs.enumerated() {
            let v = lossy.enqueue(Packet(handle: Int32(i), size: s.count, arrival: origin), now: origin)
            XCTAssertEqual(v, i == lost ? .droppedByLoss : .accepted, "segment \(i)")
            if i != lost { _ = clean.enqueue(Packet(handle: Int32(i), size: s.count, arrival: origin), now: origin) }
        }
        let out = drain(lossy, until: at(ms: 100))
        XCTAssertEqual(out.map(\.handle), segs.indices.filter { $0 != lost }.map { Int32($0) })
        XCTAssertEqual(out.map(\.release), drain(clean, until: at(ms: 100)).map(\.release))
        XCTAssertEqual(lossy.counters.droppedByLoss, PacketCount(packets: 1, bytes: Int64(segs[lost].count)))
        XCTAssertEqual(lossy.counters.forwarded.bytes, Int64(segs.reduce(0) { $0 + $1.count } - segs[lost].count))
        // The hole is exactly the lost segment's sequence range: what SACK reports and TCP resends.
        let sequences = out.map { s -> UInt32 in
            let b = segs[Int(s.handle)]
            return UInt32(b[24]) << 24 | UInt32(b[25]) << 16 | UInt32(b[26]) << 8 | UInt32(b[27])
        }
        XCTAssertFalse(sequences.contains(1_000 + UInt32(lost * Self.mss)))
    }

    /// Packets, bytes and drops (loss and a full queue) are the same whether a sender's bytes came
    /// as super-packets cut here or as single packets.
    func testCountersUnchangedBySegmentation() {
        var segmented: [[UInt8]] = [], single: [[UInt8]] = []
        for k in 0..<20 {
            let base = UInt32(1_000 + k * Self.payload.count)
            var sp = Self.tcpPacket(payload: Self.payload[...], sequence: base, id: UInt16(k * 7), flags: 0x10)
            Self.put16(&sp, 2, UInt16(truncatingIfNeeded: sp.count))
            segmented += Self.segments(of: sp)
            for i in 0..<7 {
                let first = i * Self.mss
                single.append(
                    Self.tcpPacket(
                        payload: Self.payload[first..<min(first + Self.mss, Self.payload.count)],
                        sequence: base + UInt32(first), id: UInt16(k * 7 + i), flags: 0x10))
            }
        }
        XCTAssertEqual(segmented, single)
        let a = Self.link(loss: .bernoulli(0.05), queue: .bytes(40_000), seed: 3)
        let b = Self.link(loss: .bernoulli(0.05), queue: .bytes(40_000), seed: 3)
        for (i, (x, y)) in zip(segmented, single).enumerated() {
            let t = origin + Nanoseconds(i / 7) * 200_000
            XCTAssertEqual(
                a.enqueue(Packet(handle: Int32(i), size: x.count, arrival: t), now: t),
                b.enqueue(Packet(handle: Int32(i), size: y.count, arrival: t), now: t))
        }
        _ = drain(a, until: at(ms: 200))
        _ = drain(b, until: at(ms: 200))
        XCTAssertEqual(a.counters, b.counters)
        XCTAssertGreaterThan(a.counters.droppedByLoss.packets, 0)
        XCTAssertGreaterThan(a.counters.droppedByQueue.packets, 0)
    }
}
