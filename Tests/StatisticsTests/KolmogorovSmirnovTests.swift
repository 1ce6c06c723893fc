import XCTest
@testable import Statistics

final class KolmogorovSmirnovTests: XCTestCase {
    func testDistance() {
        XCTAssertEqual(KolmogorovSmirnov.distance([1, 2, 3], [1, 2, 3]), 0)
        XCTAssertEqual(KolmogorovSmirnov.distance([1, 2], [3, 4]), 1)
        // SciPy: ks_2samp([1, 2, 3, 4], [3, 4, 5, 6]).statistic == 0.5
        XCTAssertEqual(KolmogorovSmirnov.distance([1, 2, 3, 4], [3, 4, 5, 6]), 0.5)
        // Ties across the samples step together: ks_2samp([1, 1, 2], [1, 2, 2]).statistic == 1/3
        XCTAssertEqual(KolmogorovSmirnov.distance([1, 1, 2], [1, 2, 2])!, 1.0 / 3, accuracy: 1e-12)
        XCTAssertNil(KolmogorovSmirnov.distance([], [1]))
    }

    func testCriticalDistance() {
        // c(0.001) = √(−ln(0.0005)/2) ≈ 1.9495; n = m = 1000: 1.9495·√(2/1000) ≈ 0.08718.
        XCTAssertEqual(KolmogorovSmirnov.criticalDistance(n: 1_000, m: 1_000), 0.08718, accuracy: 1e-4)
        XCTAssertEqual(KolmogorovSmirnov.criticalDistance(n: 100, m: 100, alpha: 0.05), 0.19206, accuracy: 1e-4)
    }
}
