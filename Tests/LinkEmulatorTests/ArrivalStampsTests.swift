import XCTest
import BenchCore
import LinkModel
import SystemIO

@testable import LinkEmulator

/// Arrivals stamped by the kernel (`Options.kernelArrivalStamps`): the pairing of reads with tapped
/// copies on its own, then through real namespaces.
final class ArrivalStampsTests: XCTestCase {
    private func t(_ us: UInt64) -> Instant { Instant(nanoseconds: 1_000_000_000 + us * 1000) }

    private func packet(_ id: UInt8, length: Int = 84) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: length)
        p[0] = 0x45
        p[4] = id
        return p
    }

    private func fingerprint(_ p: [UInt8]) -> UInt64 {
        p.withUnsafeBytes { ArrivalStamps.fingerprint($0, limit: PacketTap.snapLength) }
    }

    private func add(_ s: inout ArrivalStamps, _ p: [UInt8], at us: UInt64) {
        s.add(length: min(p.count, PacketTap.snapLength), fingerprint: fingerprint(p), sent: t(us))
    }

    private func match(_ s: inout ArrivalStamps, _ p: [UInt8]) -> Instant? {
        s.match(length: min(p.count, PacketTap.snapLength), fingerprint: fingerprint(p))
    }

    func testReadsTakeTheirCopiesTimesInOrder() {
        var s = ArrivalStamps()
        for i in 0..<3 { add(&s, packet(UInt8(i)), at: UInt64(10 * i)) }
        XCTAssertEqual(match(&s, packet(0)), t(0))
        XCTAssertEqual(match(&s, packet(1)), t(10))
        XCTAssertEqual(match(&s, packet(2)), t(20))
        XCTAssertEqual(s.matched, 3)
        XCTAssertEqual(s.waiting, 0)
        XCTAssertNil(match(&s, packet(3)), "no copy: the read keeps its own time")
        XCTAssertEqual(s.unmatched, 1)
    }

    /// A packet the TUN dropped after the tap saw it leaves a copy that no read takes: it is passed
    /// over (and counted) when the next read matches a later copy.
    func testCopiesOfDroppedPacketsArePassedOver() {
        var s = ArrivalStamps()
        for i in 0..<4 { add(&s, packet(UInt8(i)), at: UInt64(10 * i)) }
        XCTAssertEqual(match(&s, packet(0)), t(0))
        XCTAssertEqual(match(&s, packet(3)), t(30), "1 and 2 were dropped by the TUN")
        XCTAssertEqual(s.discarded, 2)
        XCTAssertEqual(s.waiting, 0)
    }

    /// A read without a copy (the tap's socket was full) does not consume the copies of the reads
    /// that follow it.
    func testAReadWithoutCopyLeavesTheOthers() {
        var s = ArrivalStamps()
        add(&s, packet(1), at: 5)
        add(&s, packet(2), at: 6)
        XCTAssertNil(match(&s, packet(0)))
        XCTAssertEqual(match(&s, packet(1)), t(5))
        XCTAssertEqual(match(&s, packet(2)), t(6))
        XCTAssertEqual(s.unmatched, 1)
        XCTAssertEqual(s.discarded, 0)
    }

    /// Packets differing only past the bytes the tap keeps are told apart by length (short ones) or
    /// not at all (then the earlier copy goes first, which is the order they were sent in).
    func testShortPacketsDifferByLength() {
        var s = ArrivalStamps()
        let short = packet(7, length: 40), long = packet(7, length: 84)
        add(&s, short, at: 1)
        add(&s, long, at: 2)
        XCTAssertEqual(match(&s, long), t(2))
        XCTAssertEqual(s.discarded, 1)
    }

    func testTheOldestCopiesGoPastCapacity() {
        var s = ArrivalStamps(capacity: 4)
        for i in 0..<6 { add(&s, packet(UInt8(i)), at: UInt64(i)) }
        XCTAssertEqual(s.waiting, 4)
        XCTAssertEqual(s.discarded, 2)
        XCTAssertNil(match(&s, packet(0)))
        XCTAssertEqual(match(&s, packet(2)), t(2))
        // Long runs compact the store without losing what waits.
        var long = ArrivalStamps(capacity: 8)
        for i in 0..<5000 {
            add(&long, packet(UInt8(i % 200)), at: UInt64(i))
            XCTAssertEqual(match(&long, packet(UInt8(i % 200))), t(UInt64(i)))
        }
        XCTAssertEqual(long.matched, 5000)
    }

    /// Through real namespaces: every probe's arrival comes from the kernel's stamp, the loop read
    /// each one after it (read latency ≥ 0, recorded), and no probe left its link earlier than the
    /// link's delay after the sender's own clock reading before sendto (a stamp converted wrongly
    /// between the kernel's and the loop's clocks would release probes early, or hold them long).
    func testProbesAreStampedByTheKernelAndNeverEarly() throws {
        try requireEmulationPrivileges()
        let network = try EmulatedNetwork.create(paths: [
            .symmetric(name: "wifi", roundTrip: .milliseconds(20), rate: .constant(bitsPerSecond: 10e6))
        ])
        defer { network.teardown() }
        try network.start()
        let probes = try Calibration.measureOneWay(on: network, samples: 100, interval: .milliseconds(10))
        let report = try network.stop()
        XCTAssertTrue(report.kernelArrivalStamps, report.arrivalStampsFallback ?? "")
        XCTAssertNil(report.arrivalStampsFallback)
        XCTAssertGreaterThanOrEqual(report.arrivalsStamped, 200, "both directions' probes")
        XCTAssertLessThanOrEqual(report.arrivalsUnstamped, 2)
        XCTAssertGreaterThan(report.readLatencyMax, 0)
        XCTAssertLessThan(report.readLatencyP50, 5_000_000, "read latency is µs, not a clock offset")
        for (direction, p) in [("up", probes.up), ("down", probes.down)] {
            XCTAssertGreaterThanOrEqual(p.arrivals.count, 98, direction)
            let serialization: Nanoseconds = 92 * 8 * 1_000_000_000 / 10_000_000
            XCTAssertGreaterThanOrEqual(
                p.delays.min() ?? 0, 10_000_000 + serialization, "\(direction): a probe left before its time")
            XCTAssertLessThan(median(p.delays), 12_000_000, "\(direction): median one-way delay")
        }
    }

    /// Off, or on a gigabit link whose TUNs carry no super-packets: arrivals are stamped when read,
    /// and the report says why when they were asked for.
    func testReadStampsWhenOffOrAtGigabitRatesWithoutOffload() throws {
        try requireEmulationPrivileges()
        var off = EmulatedNetwork.Options()
        off.kernelArrivalStamps = false
        var noOffload = EmulatedNetwork.Options()
        noOffload.tunOffload = false
        for (options, rate, why) in [
            (off, 10e6, nil),
            (
                noOffload, 1e9,
                "not used: a link reaches 500 Mbit/s or has no rate limit and the TUNs carry no super-packets"
            ),
        ] {
            let network = try EmulatedNetwork.create(
                paths: [.symmetric(name: "wifi", roundTrip: .milliseconds(10), rate: .constant(bitsPerSecond: rate))],
                options: options)
            defer { network.teardown() }
            try network.start()
            let rtts = try Calibration.measureRoundTrip(on: network, samples: 10, interval: .milliseconds(5))
            let report = try network.stop()
            XCTAssertEqual(rtts.count, 10)
            XCTAssertFalse(report.kernelArrivalStamps)
            XCTAssertEqual(report.arrivalsStamped, 0)
            if let why {
                XCTAssertEqual(report.arrivalStampsFallback, why)
            } else {
                XCTAssertNil(report.arrivalStampsFallback)
            }
        }
    }

    /// A gigabit link with offload (the default): the taps stamp lone probes and TCP super-packets
    /// alike, one tapped copy per super-packet read.
    func testKernelStampsAtGigabitRatesWithOffload() throws {
        try requireEmulationPrivileges()
        let network = try EmulatedNetwork.create(paths: [
            .symmetric(name: "fibre", roundTrip: .milliseconds(4), rate: .constant(bitsPerSecond: 1e9))
        ])
        defer { network.teardown() }
        XCTAssertTrue(network.tunOffload, network.offloadFallback ?? "")
        try network.start()
        let rtts = try Calibration.measureRoundTrip(on: network, samples: 20, interval: .milliseconds(5))
        _ = try Calibration.measureGoodput(
            on: network, duration: 1_500_000_000, warmup: 500_000_000, congestionControl: "reno")
        let report = try network.stop()
        XCTAssertEqual(rtts.count, 20)
        XCTAssertTrue(report.kernelArrivalStamps, report.arrivalStampsFallback ?? "")
        XCTAssertNil(report.arrivalStampsFallback)
        XCTAssertGreaterThan(report.offloadReads, 0)
        // Every read is matched to its tapped copy or counted unmatched; nearly all match.
        XCTAssertEqual(report.arrivalsStamped + report.arrivalsUnstamped, report.offloadReads)
        XCTAssertLessThanOrEqual(report.arrivalsUnstamped * 100, report.offloadReads, "≤ 1% unmatched")
    }
}
