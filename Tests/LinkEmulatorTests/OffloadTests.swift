import Foundation
import XCTest
import TestSupport
import BenchCore
import LinkModel

@testable import LinkEmulator

/// TUN devices with TCP segmentation offload: super-packets are cut into segments before the links,
/// and segments of one flow leave merged again (`OffloadWriter`).
final class OffloadTests: XCTestCase {
    /// A TCP/IPv4 packet of `payload` bytes (20-byte IP, 32-byte TCP header with timestamps).
    static func segment(sequence: UInt32, payload: Int, flags: UInt8 = 0x10, tos: UInt8 = 0x02) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: 52 + payload)
        p[0] = 0x45
        p[1] = tos
        p[2] = UInt8((52 + payload) >> 8)
        p[3] = UInt8((52 + payload) & 0xFF)
        p[6] = 0x40
        p[8] = 64
        p[9] = 6
        p.replaceSubrange(12..<20, with: [198, 18, 0, 1, 198, 18, 1, 2])
        p.replaceSubrange(20..<24, with: [1, 187, 195, 80])
        p.replaceSubrange(24..<28, with: withUnsafeBytes(of: sequence.bigEndian) { Array($0) })
        p[32] = 0x80
        p[33] = flags
        p[35] = 100
        p.replaceSubrange(40..<52, with: [1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2])
        for i in 52..<p.count { p[i] = UInt8(truncatingIfNeeded: i &* 7) }
        return p
    }

    func testWriterMergesOnlyWhatGROWould() {
        let w = OffloadWriter()
        let a = Self.segment(sequence: 100, payload: 1448)
        let b = Self.segment(sequence: 1548, payload: 1448)
        let c = Self.segment(sequence: 2996, payload: 500, flags: 0x18)
        a.withUnsafeBytes { XCTAssertTrue(OffloadWriter.canStart($0)) }
        a.withUnsafeBytes { w.hold(0, $0) }
        a.withUnsafeBytes { first in
            // A gap in the sequence, a CE mark (other TOS), another flag: not merged.
            Self.segment(sequence: 1549, payload: 1448).withUnsafeBytes {
                XCTAssertFalse(w.continues($0, first: first))
            }
            Self.segment(sequence: 1548, payload: 1448, tos: 0x03).withUnsafeBytes {
                XCTAssertFalse(w.continues($0, first: first))
            }
            Self.segment(sequence: 1548, payload: 1448, flags: 0x11).withUnsafeBytes {
                XCTAssertFalse(w.continues($0, first: first))
            }
            Self.segment(sequence: 1548, payload: 1449).withUnsafeBytes {
                XCTAssertFalse(w.continues($0, first: first))
            }
            b.withUnsafeBytes { XCTAssertTrue(w.continues($0, first: first)) }
        }
        b.withUnsafeBytes { w.hold(1, $0) }
        a.withUnsafeBytes { first in c.withUnsafeBytes { XCTAssertTrue(w.continues($0, first: first)) } }
        c.withUnsafeBytes { w.hold(2, $0) }
        // A short or PSH segment ends the merge.
        a.withUnsafeBytes { first in
            Self.segment(sequence: 3496, payload: 100).withUnsafeBytes { XCTAssertFalse(w.continues($0, first: first)) }
        }
        let parts = [a, b, c]
        a.withUnsafeBytes { first in
            c.withUnsafeBytes { last in
                parts[0].withUnsafeBytes { p0 in
                    parts[1].withUnsafeBytes { p1 in
                        parts[2].withUnsafeBytes { p2 in
                            let ps = [p0, p1, p2]
                            w.assemble(first: first, last: last) { UnsafeRawBufferPointer(rebasing: ps[$0][52...]) }
                        }
                    }
                }
            }
        }
        XCTAssertEqual(w.gather.count, 4)
        XCTAssertEqual(w.gather.byteCount, VirtioNetHeader.size + 52 + 1448 * 2 + 500)
        let v = VirtioNetHeader(UnsafeRawBufferPointer(w.gsoHeader))
        XCTAssertEqual(v.gsoType, VirtioNetHeader.gsoTCPv4)
        XCTAssertEqual(v.gsoSize, 1448)
        XCTAssertEqual(v.flags, VirtioNetHeader.needsChecksum)
        XCTAssertEqual(v.headerLength, 52)
        XCTAssertEqual(v.checksumStart, 20)
        XCTAssertEqual(v.checksumOffset, 16)
        let h = UnsafeRawBufferPointer(rebasing: w.gsoHeader[VirtioNetHeader.size..<(VirtioNetHeader.size + 52)])
        XCTAssertEqual(Int(h[2]) << 8 | Int(h[3]), 52 + 1448 * 2 + 500, "IP total length of the whole")
        XCTAssertEqual(UInt16(h[10]) << 8 | UInt16(h[11]), IPv4Header.headerChecksum(h), "IP header checksum")
        XCTAssertEqual(h[33], 0x18, "PSH of the last segment")
        XCTAssertEqual(Array(h[24..<28]), [0, 0, 0, 100], "the first segment's sequence number")
    }

    /// Through real namespaces, offload on: TCP flows, every segment that enters or leaves a link is
    /// at most the MTU (pcap), each segment lost on the link is lost alone and TCP recovers, and every
    /// segment is counted once however the writes merged them.
    func testOffloadedTCPThroughLossyLink() throws {
        try requireEmulationPrivileges()
        let rate = 200e6
        let network = try EmulatedNetwork.create(paths: [
            .symmetric(
                name: "wifi", roundTrip: .milliseconds(10), rate: .constant(bitsPerSecond: rate),
                loss: .bernoulli(0.002))
        ])
        defer { network.teardown() }
        XCTAssertTrue(network.tunOffload, network.offloadFallback ?? "")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nb-offload-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try network.start(capture: CaptureRequest(directory: dir, label: "offload"))
        let g = try Calibration.measureGoodput(on: network, duration: .seconds(3), warmup: .seconds(1))
        let report = try network.stop()
        XCTAssertTrue(report.tunOffload)
        XCTAssertEqual(report.flagReasons, [])
        XCTAssertEqual(report.unsegmentablePackets, 0)
        // Loss, not the rate, bounds cubic here: Mathis et al., MSS / RTT × 1.22 / √p ≈ 32 Mbit/s.
        XCTAssertGreaterThan(g.bitsPerSecond, 10e6, "goodput \(g.bitsPerSecond) bit/s")
        let down = report.paths[0].downlink, up = report.paths[0].uplink
        XCTAssertGreaterThan(down.droppedByLoss.packets, 0, "segments were lost and the transfer went on")
        XCTAssertEqual(report.releasedPackets, down.forwarded.packets + up.forwarded.packets)
        XCTAssertGreaterThan(down.forwarded.packets, down.forwarded.bytes / 1500 - 1)
        var records = 0, badChecksums = 0
        for file in report.pcapFiles {
            for record in try Self.records(file) {
                XCTAssertLessThanOrEqual(record.count, 1500, file)
                records += 1
                // With a capture every segment carries its full TCP checksum, as a wire would.
                if record.count >= 40, record[0] == 0x45, record[9] == 6, !Self.tcpChecksumVerifies(record) {
                    badChecksums += 1
                }
            }
        }
        XCTAssertGreaterThan(records, Int(down.forwarded.packets))
        XCTAssertEqual(badChecksums, 0, "captured TCP segments whose checksum does not verify")
    }

    /// A segment written alone whose TCP checksum was left partial (`PacketPool.partialChecksum`)
    /// leaves as a sender's stack hands one to its device: `NEEDS_CSUM` from the TCP header, field at
    /// 16, no GSO; any other packet alone is `DATA_VALID`.
    func testAloneHeadersSayWhetherTheChecksumIsLeftToTheDevice() {
        let w = OffloadWriter()
        let partial = VirtioNetHeader(UnsafeRawBufferPointer(w.partialHeader))
        XCTAssertEqual(partial.flags, VirtioNetHeader.needsChecksum)
        XCTAssertEqual(partial.gsoType, VirtioNetHeader.gsoNone)
        XCTAssertEqual(partial.checksumStart, 20)
        XCTAssertEqual(partial.checksumOffset, 16)
        let plain = VirtioNetHeader(UnsafeRawBufferPointer(w.plainHeader))
        XCTAssertEqual(plain.flags, VirtioNetHeader.dataValid)
        XCTAssertEqual(plain.gsoType, VirtioNetHeader.gsoNone)
        let pool = PacketPool(capacity: 2)
        let slot = pool.take()!
        XCTAssertFalse(pool.partialChecksum(slot))
        pool.setPartialChecksum(slot)
        XCTAssertTrue(pool.partialChecksum(slot))
        pool.put(slot)
        XCTAssertEqual(pool.take(), slot)
        XCTAssertFalse(pool.partialChecksum(slot), "a slot taken again starts with a full checksum")
    }

    /// Without a capture the segments keep partial checksums (`segmentChecksumsMayWait`) and leave
    /// merged or with `NEEDS_CSUM`: through real namespaces and a lossy link (segments then leave
    /// alone around each hole) TCP goes on, no write is refused and no segment is lost outside the link.
    func testOffloadedTCPWithPartialChecksums() throws {
        try requireEmulationPrivileges()
        let network = try EmulatedNetwork.create(paths: [
            .symmetric(
                name: "wifi", roundTrip: .milliseconds(10), rate: .constant(bitsPerSecond: 200e6),
                loss: .bernoulli(0.002))
        ])
        defer { network.teardown() }
        XCTAssertTrue(network.tunOffload, network.offloadFallback ?? "")
        try network.start()
        let g = try Calibration.measureGoodput(on: network, duration: .seconds(2), warmup: .seconds(1))
        let report = try network.stop()
        XCTAssertEqual(report.flagReasons, [])
        XCTAssertEqual(report.writeErrors, 0)
        XCTAssertGreaterThan(g.bitsPerSecond, 10e6, "goodput \(g.bitsPerSecond) bit/s")
        XCTAssertGreaterThan(report.paths[0].downlink.droppedByLoss.packets, 0)
    }

    /// Offload off (`calibrate --no-tun-offload`): plain TUNs, one packet per read and write.
    func testPlainTUNsWhenOffloadIsOff() throws {
        try requireEmulationPrivileges()
        var options = EmulatedNetwork.Options()
        options.tunOffload = false
        let network = try EmulatedNetwork.create(
            paths: [.symmetric(name: "wifi", roundTrip: .milliseconds(10), rate: .constant(bitsPerSecond: 50e6))],
            options: options)
        defer { network.teardown() }
        XCTAssertFalse(network.tunOffload)
        try network.start()
        let g = try Calibration.measureGoodput(on: network, duration: .seconds(2), warmup: .seconds(1))
        let report = try network.stop()
        XCTAssertFalse(report.tunOffload)
        XCTAssertEqual(report.offloadWrites, 0)
        XCTAssertGreaterThan(g.bitsPerSecond, 0.5 * 50e6)
        XCTAssertEqual(report.flagReasons, [])
    }

    /// The captured lengths of a pcap file's records.
    /// The packets of a pcap file (LINKTYPE_RAW: each record an IP packet).
    static func records(_ path: String) throws -> [[UInt8]] {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var out: [[UInt8]] = []
        var o = 24
        while o + 16 <= data.count {
            let len = data.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: o + 8, as: UInt32.self)) }
            out.append(Array(data[(o + 16)..<min(data.count, o + 16 + len)]))
            o += 16 + len
        }
        return out
    }

    /// Whether the TCP checksum of an IPv4 packet without options verifies (RFC 1071, done plainly).
    static func tcpChecksumVerifies(_ p: [UInt8]) -> Bool {
        let tcpLength = p.count - 20
        let bytes = Array(p[12..<20]) + [0, 6, UInt8(tcpLength >> 8), UInt8(tcpLength & 0xFF)] + Array(p[20...])
        return ReferenceChecksum.sum(bytes) == 0xFFFF
    }
}
