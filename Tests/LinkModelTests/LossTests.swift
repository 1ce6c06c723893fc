import XCTest
import BenchCore
@testable import LinkModel

final class LossTests: XCTestCase {
    func testBernoulliLossRateWithinBinomialBounds() {
        let n = 100_000
        for p in [0.001, 0.01, 0.1, 0.5] {
            for seed: UInt64 in [1, 2, 3] {
                var loss = LossProcess(model: .bernoulli(p), seed: seed)
                var lost = 0
                for _ in 0..<n where loss.dropsNextPacket() { lost += 1 }
                // Two-sided 99.9%: z = 3.29.
                let mean = Double(n) * p, sd = (Double(n) * p * (1 - p)).squareRoot()
                XCTAssertEqual(Double(lost), mean, accuracy: 3.29 * sd, "p=\(p) seed=\(seed)")
            }
        }
    }

    func testZeroAndFullLoss() {
        var none = LossProcess(model: .bernoulli(0), seed: 1)
        var all = LossProcess(model: .bernoulli(1), seed: 1)
        for _ in 0..<1000 {
            XCTAssertFalse(none.dropsNextPacket())
            XCTAssertTrue(all.dropsNextPacket())
        }
    }

    func testSameSeedSamePattern() {
        var a = LossProcess(model: .gilbertElliott(.burst(rate: 0.05, meanBurstLength: 4)), seed: 42)
        var b = LossProcess(model: .gilbertElliott(.burst(rate: 0.05, meanBurstLength: 4)), seed: 42)
        for _ in 0..<10_000 { XCTAssertEqual(a.dropsNextPacket(), b.dropsNextPacket()) }
    }

    func testGilbertElliottBurstLengthAndRate() {
        for (rate, burst) in [(0.3, 3.0), (0.02, 2.0), (0.05, 8.0)] {
            let ge = GilbertElliott.burst(rate: rate, meanBurstLength: burst)
            XCTAssertEqual(ge.meanLossRate, rate, accuracy: 1e-12)
            var loss = LossProcess(model: .gilbertElliott(ge), seed: 7)
            var lost = 0, bursts = 0, inBurst = false
            let n = 400_000
            for _ in 0..<n {
                let l = loss.dropsNextPacket()
                if l { lost += 1; if !inBurst { bursts += 1 } }
                inBurst = l
            }
            let meanBurst = Double(lost) / Double(bursts)
            // Burst lengths are geometric (sd ≈ mean); over thousands of bursts the mean is within a few %.
            XCTAssertEqual(meanBurst, burst, accuracy: burst * 0.06, "burst \(burst)")
            XCTAssertEqual(Double(lost) / Double(n), rate, accuracy: rate * 0.1, "rate \(rate)")
            // Bursty, unlike Bernoulli at the same rate, whose mean run is 1 / (1 - rate).
            XCTAssertGreaterThan(meanBurst, 1 / (1 - rate) + 0.5)
        }
    }

    func testGilbertElliottEdges() {
        XCTAssertEqual(GilbertElliott.burst(rate: 1, meanBurstLength: 3).meanLossRate, 1)
        XCTAssertEqual(GilbertElliott.burst(rate: 0, meanBurstLength: 3).meanLossRate, 0)
        var always = LossProcess(model: .gilbertElliott(.burst(rate: 1, meanBurstLength: 3)), seed: 1)
        for _ in 0..<1000 { XCTAssertTrue(always.dropsNextPacket()) }
    }

    func testLossHappensBeforeTheQueue() {
        let link = Link(
            configuration: LinkConfiguration(
                rate: .constant(bitsPerSecond: 1e6), loss: .bernoulli(1),
                queueLimit: .packets(1)),
            start: origin, seed: 1)
        for i in 0..<10 { XCTAssertEqual(link.enqueue(packet(i, arrival: origin), now: origin), .droppedByLoss) }
        XCTAssertEqual(link.counters.droppedByLoss.packets, 10)
        XCTAssertEqual(link.counters.droppedByQueue.packets, 0)
        XCTAssertNil(link.nextWakeup(now: origin))
    }
}
