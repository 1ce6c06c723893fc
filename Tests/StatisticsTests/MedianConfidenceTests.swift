import XCTest
@testable import Statistics

/// The order-statistic (sign-test) interval of the median, on synthetic samples.
final class MedianConfidenceTests: XCTestCase {
    func testNoNinetyFivePercentIntervalExistsBelowSixSamples() {
        for n in 1...5 {
            XCTAssertNil(MedianConfidence.interval((1...n).map(Double.init)), "n = \(n)")
        }
        // At n = 5 the widest interval covers 1 − 2/32 = 93.75%, which a 90% level accepts.
        let ci = MedianConfidence.interval([5, 1, 4, 2, 3], level: 0.90)
        XCTAssertEqual(ci?.coverage ?? 0, 0.9375, accuracy: 1e-12)
        XCTAssertEqual(ci?.low, 1)
        XCTAssertEqual(ci?.high, 5)
    }

    func testSixSamplesGiveMinToMaxAtExactCoverage() throws {
        let ci = try XCTUnwrap(MedianConfidence.interval([6, 2, 3, 1, 5, 4]))
        XCTAssertEqual(ci.low, 1)
        XCTAssertEqual(ci.high, 6)
        XCTAssertEqual(ci.coverage, 1 - 2.0 / 64, accuracy: 1e-12)
        XCTAssertEqual(ci.median, 3.5)
    }

    func testTwentySamplesUseTheSixthAndFifteenthOrderStatistics() throws {
        // Binomial(20, ½): P(B ≤ 5) = 0.020695 → coverage 0.958611; P(B ≤ 6) = 0.057659 is too much.
        let ci = try XCTUnwrap(MedianConfidence.interval((1...20).map { Double($0) * 10 }.shuffled()))
        XCTAssertEqual(ci.low, 60)
        XCTAssertEqual(ci.high, 150)
        XCTAssertEqual(ci.coverage, 0.958611, accuracy: 1e-6)
    }

    func testRelativeHalfWidthIsTheWiderSide() throws {
        let ci = try XCTUnwrap(MedianConfidence.interval([98, 99, 100, 100, 101, 104]))
        XCTAssertEqual(ci.median, 100)
        XCTAssertEqual(ci.relativeHalfWidth, 0.04, accuracy: 1e-12)
    }

    func testLargeSamplesDoNotUnderflow() throws {
        let ci = try XCTUnwrap(MedianConfidence.interval((0..<2000).map(Double.init)))
        XCTAssertGreaterThanOrEqual(ci.coverage, 0.95)
        XCTAssertLessThan(ci.coverage, 0.96)
        XCTAssertEqual(ci.low, 2000 - 1 - ci.high)
    }
}
