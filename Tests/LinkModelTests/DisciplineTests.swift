import XCTest
import BenchCore
@testable import LinkModel

/// The queue disciplines on the virtual clock: each against its correctness target and, where
/// one is published, against the RFC's stated behaviour.
final class DisciplineTests: XCTestCase {
    /// 10 Mbit/s, 40 ms base round trip unless a test says otherwise.
    private let rate = 10e6
    private let rtt: Nanoseconds = .milliseconds(40)

    private func link(_ d: DisciplineConfiguration, limit: QueueLimit? = nil, rate: Double? = nil) -> Link {
        Link(
            configuration: LinkConfiguration(
                rate: .constant(bitsPerSecond: rate ?? self.rate), queueLimit: limit, discipline: d),
            start: origin, seed: 7)
    }

    /// Four bulk window senders (distinct flows) through `link`, 20 s, the first 3 s not measured.
    private func saturate(_ link: Link, ecn: UInt8 = 0, flows: Int = 4, rtt: Nanoseconds? = nil) -> Simulation {
        let sim = Simulation(link: link, start: origin, returnDelay: rtt ?? self.rtt, warmUp: .seconds(3))
        for k in 0..<flows { sim.addBulk(hash: UInt32(k + 1) << 22, ecn: ecn) }
        sim.run(until: at(ms: 20_000))
        return sim
    }

    private func allSojourns(_ sim: Simulation) -> [Nanoseconds] { sim.flows.flatMap(\.sojourns) }

    // MARK: CoDel

    /// CoDel's case: 20 Mbit/s, a 100 ms round trip (its interval is sized for such paths).
    /// (At 10 Mbit/s and 40 ms with four flows the same senders see p50 11.6 ms, p99 17.6 ms:
    /// the square-root control law is slow for many flows with small windows.)
    private let codelRate = 20e6
    private let codelRTT: Nanoseconds = .milliseconds(100)

    func testCoDelKeepsSojournNearTargetWhereDropTailKeepsOneSecond() {
        let target: Nanoseconds = .milliseconds(5)
        let rate = codelRate
        let serialization1500 = Nanoseconds(1500 * 8 * 1e9 / rate)
        let codel = saturate(link(.codel(CoDelParameters()), rate: rate), rtt: codelRTT)
        let s = allSojourns(codel)
        let p50 = quantile(s, 0.5), p99 = quantile(s, 0.99)
        print("CoDel sojourn p50 \(ms(p50)) ms, p99 \(ms(p99)) ms over \(s.count) packets")
        XCTAssertGreaterThan(s.count, 17 * Int(rate / 8 / 1500) * 9 / 10)
        XCTAssertLessThanOrEqual(p50, 2 * target)
        XCTAssertLessThanOrEqual(p99, 4 * target + serialization1500)
        // Saturated: the link stays busy (≥ 95% of 10 Mbit/s over the measured 17 s).
        let bytes = codel.flows.reduce(0) { $0 + $1.deliveredBytes }
        XCTAssertGreaterThan(Double(bytes) * 8 / 20, 0.9 * rate)

        // The same senders behind drop-tail with one second of queue: about one second.
        let oneSecond = QueueLimit.bytes(Int(rate / 8))
        let dropTail = allSojourns(saturate(link(.dropTail, limit: oneSecond, rate: rate), rtt: codelRTT))
        let d50 = quantile(dropTail, 0.5), d99 = quantile(dropTail, 0.99)
        print("drop-tail (1 s) sojourn p50 \(ms(d50)) ms, p99 \(ms(d99)) ms")
        XCTAssertGreaterThan(d50, .milliseconds(500))
        XCTAssertGreaterThan(d99, .milliseconds(900))
        XCTAssertLessThanOrEqual(d99, .seconds(1) + serialization1500)
    }

    func testCoDelDropSpacingFollowsTheControlLaw() {
        // RFC 8289 section 3.3 / 5.5: in the dropping state the k-th next drop comes
        // interval/sqrt(k) after the previous one. An unresponsive 12 Mbit/s stream into 10 Mbit/s.
        let l = link(.codel(CoDelParameters()))
        final class Drops: LinkObserver {
            var times: [Instant] = []
            func arrived(_ packet: Packet, at: Instant) {}
            func departed(_ packet: Packet) {}
            func dropped(_ packet: Packet, cause: LinkVerdict, at: Instant) { times.append(at) }
        }
        let drops = Drops()
        l.observer = drops
        var now = origin
        var handle = 0
        while now < at(ms: 1500) {
            _ = l.enqueue(packet(handle, arrival: now), now: now)
            handle += 1
            now = now + 1_000_000  // 1,500 B per ms = 12 Mbit/s
            while l.dequeue(now: now) != nil {}
            while l.takeDiscarded() != nil {}
        }
        XCTAssertGreaterThan(drops.times.count, 8)
        // First drop: the sojourn crosses 5 ms at ~30 ms (the queue grows by 1/6 packet per ms),
        // then an interval of 100 ms must pass.
        XCTAssertEqual(ms(drops.times[0].since(origin)), 130, accuracy: 8)
        for k in 1..<8 {
            let gap = ms(drops.times[k].since(drops.times[k - 1]))
            let expected = 100 / Double(k).squareRoot()
            // Drops happen at dequeue instants: within one serialization (1.2 ms).
            XCTAssertEqual(gap, expected, accuracy: 1.3, "gap before drop \(k + 1)")
        }
    }

    func testCoDelMarksECTPacketsInsteadOfDropping() {
        var withECN = CoDelParameters()
        withECN.ecn = true
        let ecn = saturate(link(.codel(withECN), rate: codelRate), ecn: 0b10, rtt: codelRTT)
        let marked = ecn.flows.reduce(0) { $0 + $1.marked }
        let dropped = ecn.flows.reduce(0) { $0 + $1.dropped }
        print("CoDel ECN: \(marked) marked, \(dropped) dropped")
        XCTAssertGreaterThan(marked, 20)
        XCTAssertEqual(dropped, 0)
        XCTAssertEqual(ecn.link.counters.markedCE.packets, Int64(marked))
        XCTAssertEqual(ecn.link.counters.droppedByQueue.packets, 0)
        XCTAssertLessThanOrEqual(quantile(allSojourns(ecn), 0.5), .milliseconds(10))

        // Not-ECT packets through the same ECN-enabled CoDel are dropped, never marked.
        let plain = saturate(link(.codel(withECN), rate: codelRate), ecn: 0, rtt: codelRTT)
        let plainDrops = plain.flows.reduce(0) { $0 + $1.dropped }
        print("CoDel ECN, Not-ECT senders: \(plainDrops) dropped")
        XCTAssertGreaterThan(plainDrops, 20)
        XCTAssertEqual(plain.link.counters.markedCE.packets, 0)
    }

    // MARK: FQ-CoDel

    func testFQCoDelIsolatesASparseFlowFromBulkFlows() {
        // A 100 Mbit/s access link (the performance case).
        let rate = 100e6
        let quantumSerialization = Nanoseconds(1514 * 8 * 1e9 / rate)
        func probeDelays(_ l: Link) -> (probe: [Nanoseconds], sim: Simulation) {
            let sim = Simulation(link: l, start: origin, returnDelay: rtt, warmUp: .seconds(3))
            for k in 0..<4 { sim.addBulk(hash: UInt32(k + 1) << 22) }
            let probe = sim.addProbe(hash: UInt32(100) << 22, size: 100, period: .milliseconds(50))
            sim.run(until: at(ms: 20_000))
            // Queueing delay: the sojourn without the probe's own serialization.
            let own = Nanoseconds(100 * 8 * 1e9 / rate)
            return (sim.flows[probe].sojourns.map { $0 - own }, sim)
        }
        var params = FQCoDelParameters()
        params.limit = 1000
        let (fq, sim) = probeDelays(link(.fqCodel(params), rate: rate))
        let fq99 = quantile(fq, 0.99)
        print("FQ-CoDel probe queueing delay p50 \(ms(quantile(fq, 0.5))) ms, p99 \(ms(fq99)) ms, \(fq.count) probes")
        XCTAssertGreaterThan(fq.count, 300)
        XCTAssertLessThanOrEqual(fq99, quantumSerialization + .milliseconds(1))
        XCTAssertEqual(sim.flows[4].dropped, 0)
        // RFC 8290 section 4 (DRR): the four bulk flows share the link about equally.
        let shares = sim.flows[0..<4].map { Double($0.deliveredBytes) }
        XCTAssertLessThan(shares.max()! / shares.min()!, 1.25, "\(shares)")

        // Drop-tail with the same buffer (1,000 full-size packets): the probe waits behind the bulk queue.
        let (dt, _) = probeDelays(link(.dropTail, limit: .packets(1000), rate: rate))
        let dt50 = quantile(dt, 0.5)
        print("drop-tail probe queueing delay p50 \(ms(dt50)) ms, p99 \(ms(quantile(dt, 0.99))) ms")
        XCTAssertGreaterThan(dt50, 10 * (quantumSerialization + .milliseconds(1)))
    }

    func testFQCoDelSharesFairlyAmong64FlowsHashedFromTheirHeaders() {
        // 64 bulk flows differing in their client port, hashed as the emulator hashes them; a few
        // share a bucket (and then a share), as in Linux.
        let rate = 50e6
        let sim = Simulation(
            link: link(.fqCodel(FQCoDelParameters()), rate: rate), start: origin, returnDelay: rtt, warmUp: .seconds(3))
        for port in 0..<64 {
            var h: [UInt8] = [0x45, 0, 0, 40, 0, 0, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 1, 0, 2, 0x01, 0xBB, 0, 0]
            h[22] = UInt8((40_000 + port) >> 8)
            h[23] = UInt8((40_000 + port) & 0xFF)
            sim.addBulk(hash: h.withUnsafeBytes { IPv4Header.flowHash($0) })
        }
        sim.run(until: at(ms: 12_000))
        let x = sim.flows.map { Double($0.deliveredBytes) }
        let jain = x.reduce(0, +) * x.reduce(0, +) / (Double(x.count) * x.reduce(0) { $0 + $1 * $1 })
        let total = x.reduce(0, +) * 8 / 12
        print("FQ-CoDel 64 flows: Jain's index \(jain), \(total / 1e6) Mbit/s")
        XCTAssertGreaterThan(jain, 0.95)
        XCTAssertGreaterThan(total, 0.9 * rate)
    }

    func testFQCoDelOverLimitDropsFromTheFattestFlow() {
        var params = FQCoDelParameters()
        params.limit = 10
        let l = link(.fqCodel(params))
        // Flow A: 9 packets, flow B: 2 packets, all at once: the 11th is over the limit.
        for _ in 0..<9 { _ = l.enqueue(packet(0, size: 1000, hash: 1 << 22, at: origin), now: origin) }
        for _ in 0..<2 {
            XCTAssertEqual(l.enqueue(packet(1, size: 1000, hash: 2 << 22, at: origin), now: origin), .accepted)
        }
        XCTAssertNil(l.takeDiscarded(), "10 queued (A's first is in serialization): at the limit, not over")
        XCTAssertEqual(l.enqueue(packet(1, size: 1000, hash: 2 << 22, at: origin), now: origin), .accepted)
        var dropped: [Int32] = []
        while let d = l.takeDiscarded() { dropped.append(d.handle) }
        // 11 queued: A (8 packets, 8,000 B) is the fattest; half its bytes go from its head:
        // 4 packets, none of B's.
        XCTAssertEqual(dropped, [0, 0, 0, 0])
        XCTAssertEqual(l.counters.droppedByQueue.packets, 4)
    }

    func testFQCoDelServesNewFlowsFirstAndRoundRobinsByQuantum() {
        let l = link(.fqCodel(FQCoDelParameters()))
        // 6 packets of flow A arrive; flow B's single packet arrives later, during A's backlog.
        for _ in 0..<6 { _ = l.enqueue(packet(0, size: 1500, hash: 1 << 22, at: origin), now: origin) }
        _ = l.enqueue(packet(1, size: 1500, hash: 2 << 22, at: at(ms: 0.5)), now: at(ms: 0.5))
        let order = drain(l, until: at(ms: 100)).map(\.handle)
        // A is new with a quantum of 1,514 B: after its first packet 14 B of credit are left, so it
        // sends a second (as Linux: a flow goes while its deficit is positive); then it goes to
        // the old list and B, waiting on the new list, is served before A's third packet.
        XCTAssertEqual(order, [0, 0, 1, 0, 0, 0, 0])
        // Quantum 3,000 B: A sends its first packets in one turn before B.
        var big = FQCoDelParameters()
        big.quantum = 3000
        let l2 = link(.fqCodel(big))
        for _ in 0..<6 { _ = l2.enqueue(packet(0, size: 1500, hash: 1 << 22, at: origin), now: origin) }
        _ = l2.enqueue(packet(1, size: 1500, hash: 2 << 22, at: at(ms: 0.5)), now: at(ms: 0.5))
        XCTAssertEqual(drain(l2, until: at(ms: 100)).map(\.handle), [0, 0, 1, 0, 0, 0, 0])
    }

    // MARK: PIE

    func testPIEKeepsMeanQueueingDelayNearTarget() {
        let target: Nanoseconds = .milliseconds(15)
        let sim = saturate(link(.pie(PIEParameters())))
        // Time-weighted over departures: the mean sojourn of packets after the burst allowance.
        let s = sim.departures.map(\.1)
        let mean = Double(s.reduce(0, +)) / Double(s.count)
        print("PIE sojourn mean \(mean / 1e6) ms, p50 \(ms(quantile(s, 0.5))) ms, p99 \(ms(quantile(s, 0.99))) ms")
        XCTAssertEqual(mean, Double(target), accuracy: 0.5 * Double(target))
        let bytes = sim.flows.reduce(0) { $0 + $1.deliveredBytes }
        XCTAssertGreaterThan(Double(bytes) * 8 / 20, 0.9 * rate)
    }

    func testPIEDropsNothingDuringTheBurstAllowance() {
        // RFC 8033 section 5.4 / tc-pie(8): a burst of up to max_burst (150 ms) passes untouched.
        let l = link(.pie(PIEParameters()))
        var handle = 0
        var now = origin
        // 20 Mbit/s into 10 Mbit/s for 120 ms: the queue grows to ~60 ms of delay.
        while now < at(ms: 120) {
            XCTAssertEqual(l.enqueue(packet(handle, arrival: now), now: now), .accepted, "at \(ms(now.since(origin)))")
            handle += 1
            now = now + 600_000
            while l.dequeue(now: now) != nil {}
        }
        XCTAssertEqual(l.counters.droppedByQueue.packets, 0)
        // Kept up for another 400 ms, PIE drops.
        while now < at(ms: 520) {
            _ = l.enqueue(packet(handle, arrival: now), now: now)
            handle += 1
            now = now + 600_000
            while l.dequeue(now: now) != nil {}
            while l.takeDiscarded() != nil {}
        }
        XCTAssertGreaterThan(l.counters.droppedByQueue.packets, 0)
    }

    func testPIEWithTheDequeueRateEstimatorAndWithECN() {
        var estimator = PIEParameters()
        estimator.dequeueRateEstimator = true
        let sim = saturate(link(.pie(estimator)))
        let s = sim.departures.map(\.1)
        let mean = Double(s.reduce(0, +)) / Double(s.count)
        print("PIE (rate estimator) sojourn mean \(mean / 1e6) ms, p99 \(ms(quantile(s, 0.99))) ms")
        XCTAssertEqual(mean, Double(estimator.target), accuracy: 0.5 * Double(estimator.target))

        // With ECN, ECT packets are marked while the drop probability is at most 10%. Slow start
        // overshoots (the probability reaches 100% in the first seconds, so those ECT packets are
        // dropped, as RFC 8033 section 5.1 says); after warm-up the probability stays low and
        // ECT packets are marked, not dropped. On CoDel's 20 Mbit/s, 100 ms path.
        var ecn = PIEParameters()
        ecn.ecn = true
        let marked = saturate(link(.pie(ecn), rate: codelRate), ecn: 0b01, rtt: codelRTT)
        let plain = saturate(link(.pie(PIEParameters()), rate: codelRate), ecn: 0b01, rtt: codelRTT)
        let marks = marked.flows.reduce(0) { $0 + $1.markedLater }
        let drops = marked.flows.reduce(0) { $0 + $1.droppedLater }
        let plainDrops = plain.flows.reduce(0) { $0 + $1.droppedLater }
        print("PIE ECN after warm-up: \(marks) marked, \(drops) dropped; without ECN \(plainDrops) dropped")
        XCTAssertGreaterThan(marks, 10)
        XCTAssertEqual(drops, 0)
        XCTAssertGreaterThan(plainDrops, 10)
        XCTAssertEqual(plain.link.counters.markedCE.packets, 0)
    }

    func testFQCoDelCEThresholdMarksEverySojournAboveIt() {
        var params = FQCoDelParameters()
        params.ceThreshold = .milliseconds(1)
        let l = link(.fqCodel(params))
        // 20 ECT(0) packets at once at 10 Mbit/s: the k-th starts after (k-1)·1.2 ms; all but the
        // first wait more than 1 ms (far below CoDel's target: no CoDel marking).
        for i in 0..<20 { _ = l.enqueue(packet(i, hash: 1 << 22, ecn: 0b10, at: origin), now: origin) }
        let out = drain(l, until: at(ms: 100))
        XCTAssertEqual(out.filter(\.ceMarked).map(\.handle), (1..<20).map { Int32($0) })
        XCTAssertEqual(l.counters.markedCE.packets, 19)
        // Not-ECT packets are never marked (and a threshold alone drops nothing).
        let plain = link(.fqCodel(params))
        for i in 0..<20 { _ = plain.enqueue(packet(i, hash: 1 << 22, at: origin), now: origin) }
        XCTAssertEqual(drain(plain, until: at(ms: 100)).filter(\.ceMarked).count, 0)
        XCTAssertEqual(plain.counters.droppedByQueue.packets, 0)
    }

    func testFQCoDelMemoryLimit() {
        var params = FQCoDelParameters()
        params.memoryLimit = 10_000
        let l = link(.fqCodel(params))
        // The first is in serialization; the 8th queued makes 10,500 B > 10,000: half of the
        // flow's bytes (5,250) go from its head, 4 packets.
        for i in 0..<7 { XCTAssertEqual(l.enqueue(packet(i, hash: 7, at: origin), now: origin), .accepted) }
        XCTAssertEqual(l.counters.droppedByQueue.packets, 0)
        XCTAssertEqual(l.enqueue(packet(7, hash: 7, at: origin), now: origin), .accepted)
        var dropped: [Int32] = []
        while let d = l.takeDiscarded() { dropped.append(d.handle) }
        XCTAssertEqual(dropped, [1, 2, 3, 4])
        XCTAssertEqual((l.discipline as? FQCoDel)?.droppedOverLimit, 4)
    }

    // MARK: drop-head

    func testDropHeadDropsTheOldestPackets() {
        let l = link(.dropHead, limit: .packets(3))
        for i in 0..<5 { XCTAssertEqual(l.enqueue(packet(i, arrival: origin), now: origin), .accepted) }
        var dropped: [Int32] = []
        while let d = l.takeDiscarded() { dropped.append(d.handle) }
        // 0 is in serialization (not droppable); 1 and 2 made room for 3 and 4.
        XCTAssertEqual(dropped, [1, 2])
        XCTAssertEqual(drain(l, until: at(ms: 100)).map(\.handle), [0, 3, 4])
        let bytes = link(.dropHead, limit: .bytes(3000))
        XCTAssertEqual(bytes.enqueue(packet(0, arrival: origin), now: origin), .accepted)
        XCTAssertEqual(bytes.enqueue(packet(1, arrival: origin), now: origin), .accepted)
        XCTAssertEqual(bytes.enqueue(packet(2, size: 1000, arrival: origin), now: origin), .accepted)
        XCTAssertEqual(bytes.takeDiscarded()?.handle, 1)
        // Bigger than the limit minus the packet in serialization: refused itself.
        XCTAssertEqual(bytes.enqueue(packet(3, size: 2000, arrival: origin), now: origin), .droppedByQueue)
    }

    func testNextWakeupIsTheNextReleaseExactly() {
        let disciplines: [DisciplineConfiguration] = [
            .dropTail, .dropHead, .codel(CoDelParameters()), .fqCodel(FQCoDelParameters()), .pie(PIEParameters()),
        ]
        for d in disciplines {
            // 12 Mbit/s (1 ms per packet) and 10 ms of delay: releases at 11, 12, 13 ms.
            let l = Link(
                configuration: LinkConfiguration(
                    delay: .milliseconds(10), rate: .constant(bitsPerSecond: 12e6), queueLimit: .packets(100),
                    discipline: d),
                start: origin, seed: 1)
            for i in 0..<3 { _ = l.enqueue(packet(i, hash: UInt32(i) << 22, at: origin), now: origin) }
            var now = origin
            for k in 1...3 {
                let next = l.nextWakeup(now: now)
                XCTAssertEqual(next, at(ms: 10 + Double(k)), "\(d) release \(k)")
                XCTAssertNil(l.dequeue(now: at(ns: Int64(10 + k) * 1_000_000 - 1)), "\(d): nothing early")
                now = at(ms: 10 + Double(k))
                XCTAssertEqual(l.dequeue(now: now)?.release, now, "\(d)")
            }
            XCTAssertNil(l.nextWakeup(now: now), "\(d)")
        }
    }

    func testFlushOnOutageEmptiesEveryDiscipline() {
        let disciplines: [DisciplineConfiguration] = [
            .dropHead, .codel(CoDelParameters()), .fqCodel(FQCoDelParameters()), .pie(PIEParameters()),
        ]
        for d in disciplines {
            let l = Link(
                configuration: LinkConfiguration(
                    rate: .constant(bitsPerSecond: 12e6), queueLimit: .packets(100), discipline: d,
                    outages: [Outage(start: .milliseconds(10), end: .milliseconds(20))]),
                start: origin, seed: 1)
            for i in 0..<5 { _ = l.enqueue(packet(i, hash: UInt32(i) << 22, at: at(ms: 8)), now: at(ms: 8)) }
            XCTAssertEqual(drain(l, until: at(ms: 30)).count, 1, "\(d)")
            XCTAssertEqual(l.counters.droppedByOutage.packets, 4, "\(d)")
            XCTAssertEqual(l.inFlight, 0, "\(d)")
        }
    }
}

func packet(_ handle: Int, size: Int = 1500, hash: UInt32, ecn: UInt8 = 0, at arrival: Instant) -> Packet {
    Packet(handle: Int32(handle), size: size, arrival: arrival, flowHash: hash, ecn: ecn)
}

/// Every discipline under random traffic: packets are conserved (received = forwarded + dropped
/// + in flight, each packet handed back exactly once), leave in release order, never before they
/// arrive, and a packet is marked only if it was ECN-capable.
final class DisciplineInvariantTests: XCTestCase {
    func testRandomTrafficKeepsTheInvariants() {
        var small = FQCoDelParameters()
        small.limit = 40
        small.flows = 16
        var ecnCoDel = CoDelParameters()
        ecnCoDel.ecn = true
        ecnCoDel.limit = .packets(60)
        var ecnPIE = PIEParameters()
        ecnPIE.ecn = true
        ecnPIE.limit = .bytes(60_000)
        let disciplines: [DisciplineConfiguration] = [
            .dropTail, .dropHead, .codel(ecnCoDel), .fqCodel(small), .fqCodel(FQCoDelParameters()), .pie(ecnPIE),
        ]
        let trace = try! MahimahiTrace.parse(text: "1\n2\n2\n7\n")
        for d in disciplines {
            for rate in [LinkRate.constant(bitsPerSecond: 4e6), .trace(trace)] {
                var rng = SeededRandom(seed: 99)
                let l = Link(
                    configuration: LinkConfiguration(
                        delay: .milliseconds(3), rate: rate, queueLimit: .bytes(30_000), discipline: d,
                        outages: [Outage(start: .milliseconds(700), end: .milliseconds(760))]),
                    start: origin, seed: 5)
                var seen = Set<Int32>()
                var now = origin
                var lastRelease = origin
                var handle: Int32 = 0
                func take(_ p: Packet) {
                    XCTAssertTrue(seen.insert(p.handle).inserted, "\(d): packet \(p.handle) handed back twice")
                    if p.ceMarked { XCTAssertTrue(p.isECNCapable, "\(d): a Not-ECT packet marked") }
                }
                while now < at(ms: 2000) {
                    now = now + Nanoseconds(rng.next() % 1_500_000)
                    while let p = l.dequeue(now: now) {
                        take(p)
                        XCTAssertGreaterThanOrEqual(p.release, lastRelease, "\(d)")
                        XCTAssertGreaterThanOrEqual(p.departure, p.arrival, "\(d)")
                        lastRelease = p.release
                    }
                    for _ in 0..<Int(rng.next() % 4) {
                        let p = Packet(
                            handle: handle, size: 40 + Int(rng.next() % 1461), arrival: now,
                            flowHash: UInt32(truncatingIfNeeded: rng.next() % 6) &* 0x2F00_0000,
                            ecn: UInt8(rng.next() % 4))
                        handle += 1
                        if l.enqueue(p, now: now) != .accepted { take(p) }
                    }
                    while let p = l.takeDiscarded() { take(p) }
                    let c = l.counters
                    XCTAssertEqual(
                        c.received.packets, c.forwarded.packets + c.dropped.packets + Int64(l.inFlight), "\(d)")
                }
                XCTAssertEqual(Int64(seen.count) + Int64(l.inFlight), Int64(handle), "\(d)")
                XCTAssertGreaterThan(l.counters.dropped.packets, 0, "\(d): the load overflows")
            }
        }
    }
}
