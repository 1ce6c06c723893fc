import XCTest
import Foundation
import BenchCore
@testable import LinkModel

/// Jitter, delay traces and explicit reordering, on a virtual clock.
final class DelayVariationTests: XCTestCase {
    /// Offers `count` packets `spacing` apart and releases everything at exactly each wake-up.
    /// Fails if a packet is released later than the wake-up the link asked for (a late `nextWakeup`).
    private func run(_ link: Link, count: Int, spacing: Nanoseconds, size: Int = 100) -> [Packet] {
        var out: [Packet] = []
        var now = origin
        var nextArrival = 0
        while true {
            let arrival = nextArrival < count ? at(ns: Nanoseconds(nextArrival) * spacing) : nil
            let wake = link.nextWakeup(now: now)
            guard arrival != nil || wake != nil else { break }
            if let a = arrival, wake.map({ a <= $0 }) ?? true {
                now = max(now, a)
                XCTAssertEqual(link.enqueue(packet(nextArrival + 1, size: size, arrival: a), now: a), .accepted)
                nextArrival += 1
            } else if let w = wake {
                now = max(now, w)
            }
            while let p = link.dequeue(now: now) {
                XCTAssertEqual(p.release, now, "packet \(p.handle) released late")
                out.append(p)
            }
        }
        return out
    }

    private func link(delay: Nanoseconds, _ v: DelayVariation, rate: LinkRate = .unlimited, seed: UInt64 = 7) -> Link {
        Link(
            configuration: LinkConfiguration(
                delay: delay, rate: rate, queueLimit: .packets(100_000), delayVariation: v),
            start: origin, seed: seed)
    }

    /// RFC 4737: released after a packet with a higher arrival sequence.
    private func reorderedCount(_ out: [Packet]) -> Int {
        var highest: Int64 = 0, n = 0
        for p in out { if p.sequence < highest { n += 1 } else { highest = p.sequence } }
        return n
    }

    /// Kolmogorov–Smirnov distance between samples and a CDF.
    private func ksDistance(_ samples: [Double], _ cdf: (Double) -> Double) -> Double {
        let xs = samples.sorted(), n = Double(xs.count)
        var d = 0.0
        for (i, x) in xs.enumerated() {
            let f = cdf(x)
            d = max(d, abs(f - Double(i) / n), abs(Double(i + 1) / n - f))
        }
        return d
    }

    func testOrderKeepingJitterNeverReorders() {
        for distribution in JitterDistribution.allCases {
            let jitter = Jitter(distribution: distribution, deviation: .milliseconds(5))
            let l = link(
                delay: .milliseconds(20), DelayVariation(jitter: jitter), rate: .constant(bitsPerSecond: 20e6))
            let out = run(l, count: 5_000, spacing: 100_000, size: 200)
            XCTAssertEqual(out.map(\.sequence), (1...5_000).map(Int64.init), "\(distribution)")
            XCTAssertEqual(l.counters.reordered.packets, 0)
            // Release = max(departure + max(0, delay + jitter), release before): never earlier than
            // the packet ahead, never before its departure, and spread by the jitter.
            for (a, b) in zip(out, out.dropFirst()) { XCTAssertLessThanOrEqual(a.release, b.release) }
            for p in out { XCTAssertGreaterThanOrEqual(p.release, p.departure) }
            XCTAssertGreaterThan(Set(out.map { $0.release.since($0.departure) }).count, 1_000, "\(distribution)")
        }
    }

    func testJitterDistributionMatchesItsCDF() {
        // Reordering jitter: release − departure − delay is each packet's own draw, unclamped here
        // (delay 100 ms ≫ deviation). Critical KS distance at α = 0.001 for n = 10,000: 1.95/√n.
        let n = 10_000, critical = 1.95 / Double(n).squareRoot()
        for distribution in JitterDistribution.allCases {
            let jitter = Jitter(distribution: distribution, deviation: .milliseconds(5), mayReorder: true)
            let out = run(link(delay: .milliseconds(100), DelayVariation(jitter: jitter)), count: n, spacing: 1_000_000)
            XCTAssertEqual(out.count, n)
            let offsets = out.map { Double($0.release.since($0.departure) - 100_000_000) }
            let d = ksDistance(offsets, jitter.cdf)
            XCTAssertLessThan(d, critical, "\(distribution): KS distance \(d)")
            // The same test rejects a distribution 20% too wide: it can fail.
            let wider = Jitter(distribution: distribution, deviation: .milliseconds(6))
            XCTAssertGreaterThan(ksDistance(offsets, wider.cdf), critical, "\(distribution) vs 6 ms")
        }
    }

    func testOrderKeepingJitterWithWideSpacingKeepsTheDistribution() {
        // Packets 20 ms apart with ±5 ms uniform jitter never catch up: release = departure + delay + jitter.
        let n = 10_000, critical = 1.95 / Double(n).squareRoot()
        let jitter = Jitter(distribution: .uniform, deviation: .milliseconds(5))
        let out = run(link(delay: .milliseconds(30), DelayVariation(jitter: jitter)), count: n, spacing: 20_000_000)
        let offsets = out.map { Double($0.release.since($0.departure) - 30_000_000) }
        XCTAssertLessThan(ksDistance(offsets, jitter.cdf), critical)
    }

    func testReorderingJitterReordersAndCountsIt() {
        let jitter = Jitter(distribution: .normal, deviation: .milliseconds(5), mayReorder: true)
        let l = link(delay: .milliseconds(50), DelayVariation(jitter: jitter))
        let out = run(l, count: 5_000, spacing: 1_000_000)
        let reordered = reorderedCount(out)
        XCTAssertGreaterThan(reordered, 500)
        XCTAssertEqual(l.counters.reordered.packets, Int64(reordered))
        for (a, b) in zip(out, out.dropFirst()) { XCTAssertLessThanOrEqual(a.release, b.release) }
    }

    func testSameSeedSameDelays() {
        let jitter = Jitter(distribution: .paretoNormal, deviation: .milliseconds(3), mayReorder: true)
        let a = run(link(delay: .milliseconds(20), DelayVariation(jitter: jitter), seed: 3), count: 500, spacing: 1_000)
        let b = run(link(delay: .milliseconds(20), DelayVariation(jitter: jitter), seed: 3), count: 500, spacing: 1_000)
        let c = run(link(delay: .milliseconds(20), DelayVariation(jitter: jitter), seed: 4), count: 500, spacing: 1_000)
        XCTAssertEqual(a.map(\.release), b.map(\.release))
        XCTAssertNotEqual(a.map(\.release), c.map(\.release))
    }

    func testSwapRateWithinBinomialTolerance() {
        // A packet that passes a held one is never held itself, so the rate is p / (1 + p).
        let n = 20_000, p = 0.05
        let v = DelayVariation(reordering: .swap(probability: p, maxHold: .milliseconds(10)))
        let l = link(delay: .milliseconds(10), v)
        let out = run(l, count: n, spacing: 1_000_000)
        XCTAssertEqual(out.count, n)
        let expected = p / (1 + p)
        let rate = Double(l.counters.reordered.packets) / Double(n)
        XCTAssertEqual(rate, expected, accuracy: 4 * (expected * (1 - expected) / Double(n)).squareRoot())
        XCTAssertEqual(Int64(reorderedCount(out)), l.counters.reordered.packets)
        // Each reordered packet leaves right after the one that passed it, at the same instant or later.
        for (i, q) in out.enumerated() where i > 0 && q.sequence < out[i - 1].sequence {
            XCTAssertEqual(q.sequence + 1, out[i - 1].sequence)
            XCTAssertGreaterThanOrEqual(q.release, out[i - 1].release)
            XCTAssertLessThanOrEqual(q.release.since(q.departure), .milliseconds(10) + .milliseconds(10))
        }
    }

    func testSwapWithNoFollowerLeavesAfterMaxHold() {
        let v = DelayVariation(reordering: .swap(probability: 1, maxHold: .milliseconds(7)))
        let l = link(delay: .milliseconds(10), v)
        // One packet alone: held 7 ms beyond its 10 ms, then released in order.
        let out = run(l, count: 1, spacing: 1)
        XCTAssertEqual(out.map { $0.release.since($0.departure) }, [.milliseconds(17)])
    }

    func testJumpAheadByExactlyN() {
        // Every 10th packet jumps ahead of the 3 before it (1 ms apart, 10 ms delay: 10 wait).
        let v = DelayVariation(reordering: .jump(distance: 3, trigger: .every(10)))
        let l = link(delay: .milliseconds(10), v)
        let out = run(l, count: 40, spacing: 1_000_000)
        var expected: [Int64] = []
        for block in 0..<4 {
            let b = Int64(block * 10)
            expected += [b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 10, b + 7, b + 8, b + 9]
        }
        XCTAssertEqual(out.map(\.sequence), expected)
        // The jumper leaves when the first packet it passed was due, just before it.
        for (i, q) in out.enumerated() where q.sequence % 10 == 0 { XCTAssertEqual(q.release, out[i + 1].release) }
        // RFC 4737 counts the 3 packets it passed as reordered.
        XCTAssertEqual(l.counters.reordered.packets, 12)
    }

    func testJumpByProbabilityRate() {
        let n = 20_000, p = 0.02
        let v = DelayVariation(reordering: .jump(distance: 1, trigger: .probability(p)))
        let l = link(delay: .milliseconds(10), v)
        _ = run(l, count: n, spacing: 1_000_000)
        // A jump by 1 reorders exactly one packet (the one passed), unless two jumpers are adjacent.
        let rate = Double(l.counters.reordered.packets) / Double(n)
        XCTAssertEqual(rate, p, accuracy: 4 * (p * (1 - p) / Double(n)).squareRoot() + 2 * p * p)
    }

    func testDelayTraceInterpolatesAndHolds() throws {
        let trace = try DelayTrace.parse(text: "# time delay\n10 10\n100 30\n\n200 20.5\n")
        XCTAssertEqual(trace.delay(at: 0), .milliseconds(10))
        XCTAssertEqual(trace.delay(at: .milliseconds(55)), .milliseconds(20))
        XCTAssertEqual(trace.delay(at: .milliseconds(150)), .milliseconds(25.25))
        XCTAssertEqual(trace.delay(at: .milliseconds(10_000)), .milliseconds(20.5))
        XCTAssertEqual(trace.minimumDelay, .milliseconds(10))
        let l = link(delay: trace.meanDelay, DelayVariation(trace: trace))
        for (i, t) in [55.0, 150, 300].enumerated() {
            _ = l.enqueue(packet(i, arrival: at(ms: t)), now: at(ms: t))
        }
        let out = drain(l, until: at(ms: 1_000))
        XCTAssertEqual(out.map(\.release), [at(ms: 75), at(ms: 175.25), at(ms: 320.5)])
    }

    func testFallingDelayTraceKeepsOrder() throws {
        // The delay drops by 50 ms in 1 ms: later packets wait behind earlier ones, as in a queue.
        let trace = try DelayTrace.parse(text: "0 60\n10 60\n11 10\n")
        let l = link(delay: 0, DelayVariation(trace: trace))
        let out = run(l, count: 20, spacing: 1_000_000)
        XCTAssertEqual(out.map(\.sequence), (1...20).map(Int64.init))
        XCTAssertEqual(out[11].release, out[10].release)  // sent at 11 ms (10 ms delay): waits for 10 ms's 70 ms
    }

    func testBadDelayTracesNameLineAndValue() {
        let cases: [(String, Int, String)] = [
            ("0 10\n-5 10\n", 2, "-5"),
            ("0 10\n20 10\n# note\n20 5\n", 4, "20"),
            ("0 10\n30 10\n10 10\n", 3, "10"),
            ("0 -3\n", 1, "-3"),
            ("0 ten\n", 1, "ten"),
            ("0 1 2\n", 1, "0 1 2"),
        ]
        for (text, line, value) in cases {
            XCTAssertThrowsError(try DelayTrace.parse(text: text), text) { error in
                guard let e = error as? TraceError else { return XCTFail("\(error)") }
                XCTAssertEqual(e.line, line, text)
                XCTAssertEqual(e.value, value, text)
            }
        }
        XCTAssertThrowsError(try DelayTrace.parse(text: "# nothing\n"))
    }

    func testBusyOrderKeepingStageDoesNotWakeAtEveryDeparture() {
        // Normal jitter has no minimum delay, but a packet cannot pass the head of the stage: while
        // the stage holds packets, the next wake-up is a release, not a departure from the bottleneck.
        let jitter = Jitter(distribution: .normal, deviation: .milliseconds(20))
        let l = link(delay: .milliseconds(50), DelayVariation(jitter: jitter), rate: .constant(bitsPerSecond: 12e6))
        for i in 0..<20 { _ = l.enqueue(packet(i, arrival: origin), now: origin) }  // departures 1 ms apart
        XCTAssertEqual(l.nextWakeup(now: origin), at(ms: 1), "empty stage: the first departure bounds it")
        XCTAssertNil(l.dequeue(now: at(ms: 5)))
        let wake = try! XCTUnwrap(l.nextWakeup(now: at(ms: 5)))
        XCTAssertGreaterThan(wake, at(ms: 6), "the head's release, not the departure at 6 ms")
        let reordering = Jitter(distribution: .normal, deviation: .milliseconds(20), mayReorder: true)
        let r = link(delay: .milliseconds(50), DelayVariation(jitter: reordering), rate: .constant(bitsPerSecond: 12e6))
        for i in 0..<20 { _ = r.enqueue(packet(i, arrival: origin), now: origin) }
        XCTAssertNil(r.dequeue(now: at(ms: 5)))
        XCTAssertEqual(r.nextWakeup(now: at(ms: 5)), at(ms: 6), "a reordering stage can release any packet next")
    }

    func testMinimumDelayBoundsTheWakeup() {
        // The lowest draw: −1 (uniform), −4 (normal, clipped as netem's table), −2/3 (pareto),
        // (−4 + 3 · −2/3) / 4 = −1.5 (paretonormal), × deviation.
        let expected: [(JitterDistribution, Nanoseconds)] = [
            (.uniform, .milliseconds(7)), (.normal, 0), (.pareto, .milliseconds(8)),
            (.paretoNormal, .milliseconds(5.5)),
        ]
        for (distribution, minimum) in expected {
            let jitter = Jitter(distribution: distribution, deviation: .milliseconds(3))
            let stage = DelayStage(
                delay: .milliseconds(10), variation: DelayVariation(jitter: jitter), start: origin, seed: 1)
            XCTAssertEqual(stage.minimumDelay, minimum, "\(distribution)")
        }
        let jump = DelayVariation(reordering: .jump(distance: 1, trigger: .every(2)))
        XCTAssertEqual(DelayStage(delay: .milliseconds(10), variation: jump, start: origin, seed: 1).minimumDelay, 0)
    }

    func testQuantilesMatchNetemTables() {
        // iproute2 netem/paretonormal.c: (normal + 3·pareto)/4 at one index; pareto.c: (x − 1.5)·4/3.
        XCTAssertEqual(JitterDistribution.normal.quantile(0.975), 1.959964, accuracy: 1e-6)
        XCTAssertEqual(JitterDistribution.pareto.quantile(0.5), (pow(0.5, -1.0 / 3) - 1.5) * 4 / 3, accuracy: 1e-12)
        let u = 0.9, pareto = (pow(0.1, -1.0 / 3) - 1.5) * 4 / 3
        XCTAssertEqual(JitterDistribution.paretoNormal.quantile(u), (1.2815516 + 3 * pareto) / 4, accuracy: 1e-6)
        for d in JitterDistribution.allCases {
            XCTAssertLessThanOrEqual(d.quantile(1), 4)
            XCTAssertGreaterThanOrEqual(d.quantile(0), -4)
        }
    }
}

final class LinkSimulationTests: XCTestCase {
    func testSimulationReleasesWhatTheLinkReleases() {
        let v = DelayVariation(reordering: .jump(distance: 2, trigger: .every(5)))
        let c = LinkConfiguration(delay: .milliseconds(10), rate: .constant(bitsPerSecond: 12e6), delayVariation: v)
        let sim = LinkSimulation.run(c, arrivals: (0..<10).map { Nanoseconds($0) * 1_000_000 }, size: 1500, seed: 1)
        XCTAssertEqual(sim.releases.map(\.sequence), [1, 2, 5, 3, 4, 6, 7, 10, 8, 9])
        XCTAssertEqual(sim.reordered, 4)
        // 1 ms of serialization at 12 Mbit/s, then 10 ms; the jumper leaves with the first it passed.
        XCTAssertEqual(sim.releases[0].delay, .milliseconds(11))
        XCTAssertEqual(sim.releases[2].delay, .milliseconds(11 - 2))
    }
}
