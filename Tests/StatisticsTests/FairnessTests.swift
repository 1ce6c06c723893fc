import XCTest
@testable import Statistics

final class FairnessTests: XCTestCase {
    func testJainIndexBounds() {
        XCTAssertEqual(Fairness.jainIndex([5, 5])!, 1, accuracy: 1e-12)
        XCTAssertEqual(Fairness.jainIndex([10, 0])!, 0.5, accuracy: 1e-12, "one flow takes all: 1/n")
        XCTAssertEqual(Fairness.jainIndex([1, 0, 0, 0])!, 0.25, accuracy: 1e-12)
        // (1+2+3)² / (3·(1+4+9)) = 36/42
        XCTAssertEqual(Fairness.jainIndex([1, 2, 3])!, 36.0 / 42.0, accuracy: 1e-12)
        // Scale-free.
        XCTAssertEqual(Fairness.jainIndex([2, 4, 6])!, Fairness.jainIndex([1, 2, 3])!, accuracy: 1e-12)
        XCTAssertNil(Fairness.jainIndex([]))
        XCTAssertNil(Fairness.jainIndex([0, 0]))
        XCTAssertNil(Fairness.jainIndex([1, -1]))
    }

    func testShares() {
        XCTAssertEqual(Fairness.shares([3, 1])!, [0.75, 0.25])
        XCTAssertNil(Fairness.shares([0, 0]))
    }

    func testStudentTIntervalMatchesTheTable() {
        XCTAssertEqual(MeanConfidence.tQuantile975(degreesOfFreedom: 2), 4.303)
        XCTAssertEqual(MeanConfidence.tQuantile975(degreesOfFreedom: 60), 2.000, accuracy: 0.002)
        XCTAssertEqual(MeanConfidence.tQuantile975(degreesOfFreedom: 120), 1.980, accuracy: 0.002)
        // 0.4, 0.5, 0.6: mean 0.5, s 0.1, half-width 4.303 · 0.1 / √3.
        let c = MeanConfidence([0.4, 0.5, 0.6])!
        XCTAssertEqual(c.mean, 0.5, accuracy: 1e-12)
        XCTAssertEqual(c.high - c.mean, 4.303 * 0.1 / 3.0.squareRoot(), accuracy: 1e-9)
        XCTAssertNil(MeanConfidence([0.5]))
    }

    func testTrimmedMeanDropsTheSlowestFivePercent() {
        let xs = (1...19).map(Double.init) + [1000]
        XCTAssertEqual(Responsiveness.trimmedMean(xs)!, 10, accuracy: 1e-12, "20 samples: the worst one dropped")
        XCTAssertEqual(Responsiveness.trimmedMean([7])!, 7)
        XCTAssertNil(Responsiveness.trimmedMean([]))
    }

    func testRPMFollowsTheDraft() {
        // TCP: tcp 30, tls 30, http 60 → foreign 60000/40 = 1500; self 120 → 500; RPM 1000.
        let r = Responsiveness.compute(.init(handshakes: [[30], [30]], foreignHTTP: [60], selfHTTP: [120]))!
        XCTAssertEqual(r.foreignRPM, 1500, accuracy: 1e-9)
        XCTAssertEqual(r.selfRPM, 500, accuracy: 1e-9)
        XCTAssertEqual(r.rpm, 1000, accuracy: 1e-9)
        // QUIC: one handshake term → foreign 60000 / ((30 + 30)/2) = 2000.
        let q = Responsiveness.compute(.init(handshakes: [[30]], foreignHTTP: [30], selfHTTP: [60]))!
        XCTAssertEqual(q.foreignRPM, 2000, accuracy: 1e-9)
        XCTAssertEqual(q.rpm, 1500, accuracy: 1e-9)
        XCTAssertNil(Responsiveness.compute(.init(handshakes: [[30], []], foreignHTTP: [30], selfHTTP: [60])))
    }
}
