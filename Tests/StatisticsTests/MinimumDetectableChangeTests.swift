import XCTest
@testable import Statistics

/// What a "no significant difference" could have detected: nothing at all with 3 against 3 runs,
/// and (z₀.₉₇₅ + z₀.₈) × pooled SD × √(2/n) / √0.955 relative to the baseline median otherwise.
final class MinimumDetectableChangeTests: XCTestCase {
    func testSmallestMannWhitneyP() {
        XCTAssertEqual(MannWhitney.smallestTwoSidedP(3, 3), 0.1, accuracy: 1e-12)  // 2 / C(6,3)
        XCTAssertEqual(MannWhitney.smallestTwoSidedP(4, 4), 2.0 / 70, accuracy: 1e-12)
        XCTAssertEqual(MannWhitney.smallestTwoSidedP(1, 1), 1)
    }

    func testThreeAgainstThreeCanDecideNothing() {
        let c = Comparison(baseline: [100, 101, 102], candidate: [130, 131, 132], seed: 1, resamples: 200)!
        XCTAssertEqual(c.minimumDetectableChange, .infinity)
        XCTAssertEqual(c.verdict(higherIsBetter: false), .noSignificantChange, "30% slower, yet undecidable")
    }

    func testFormulaOnKnownSamples() throws {
        // Both samples: 10 values with SD exactly 2 around medians 100 and 101.
        let base = [97.0, 98, 98, 99, 100, 100, 101, 102, 102, 103]
        let cand = base.map { $0 + 1 }
        let ss = base.reduce(0) { $0 + ($1 - 100) * ($1 - 100) }
        let sd = (2 * ss / 18).squareRoot()
        let expected = (1.959964 + 0.841621) * sd * (0.2).squareRoot() / 0.955.squareRoot() / 100
        let mdd = try XCTUnwrap(Comparison.minimumDetectableChange(baseline: base, candidate: cand))
        XCTAssertEqual(mdd, expected, accuracy: 1e-12)
        XCTAssertEqual(mdd, 0.0256, accuracy: 0.0001)  // SD 2, n 10 + 10, median 100
        XCTAssertNil(Comparison.minimumDetectableChange(baseline: [1], candidate: [2, 3]))
    }
}
