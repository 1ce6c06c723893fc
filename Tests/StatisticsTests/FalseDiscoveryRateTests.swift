import XCTest
@testable import Statistics

/// Benjamini–Hochberg against values worked by hand (the arithmetic is in each test's comment);
/// they are also what R's `p.adjust(p, method = "BH")` prints for these inputs.
final class FalseDiscoveryRateTests: XCTestCase {
    func assertClose(_ a: [Double], _ b: [Double], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.count, b.count, file: file, line: line)
        for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: 1e-12, "\(a) vs \(b)", file: file, line: line) }
    }

    /// Sorted: 0.005 (rank 1), 0.01 (2), 0.03 (3), 0.04 (4); m·p/rank = 0.02, 0.02, 0.04, 0.04;
    /// running minimum from the top leaves them as they are; back in input order.
    func testFourValuesInInputOrder() {
        assertClose(FalseDiscoveryRate.benjaminiHochberg([0.01, 0.04, 0.03, 0.005]), [0.02, 0.04, 0.04, 0.02])
    }

    /// The textbook ten: m·p/rank = 0.01, 0.04, 0.13, 0.1025, 0.084, 0.1, 0.105714…, 0.25625,
    /// 0.235556…, 0.216; the running minimum from rank 10 down turns ranks 8–9 into 0.216 and
    /// ranks 3–4 into 0.084 (monotonicity), so three values that pass p < 0.05 alone keep only two.
    func testRunningMinimumKeepsOrder() {
        let p = [0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216]
        assertClose(
            FalseDiscoveryRate.benjaminiHochberg(p),
            [0.01, 0.04, 0.084, 0.084, 0.084, 0.1, 0.74 / 7, 0.216, 0.216, 0.216])
        XCTAssertEqual(FalseDiscoveryRate.discoveries(p, q: 0.05), [true, true] + Array(repeating: false, count: 8))
        XCTAssertEqual(p.filter { $0 < 0.05 }.count, 5)
    }

    /// Three tied at 0.02 take ranks 1–3: 4 · 0.02 / 3 = 0.026667 for all three; 0.5 stays 4 · 0.5 / 4.
    func testTiesShareOneValue() {
        assertClose(
            FalseDiscoveryRate.benjaminiHochberg([0.02, 0.02, 0.5, 0.02]), [0.08 / 3, 0.08 / 3, 0.5, 0.08 / 3])
    }

    /// 3 · 0.6 / 1 = 1.8 and 3 · 0.7 / 2 = 1.05 fall to the largest p, 0.99; one value is its own adjustment.
    func testNothingExceedsOneAndSingleValueUnchanged() {
        assertClose(FalseDiscoveryRate.benjaminiHochberg([0.6, 0.7, 0.99]), [0.99, 0.99, 0.99])
        assertClose(FalseDiscoveryRate.benjaminiHochberg([0.8]), [0.8])
        XCTAssertEqual(FalseDiscoveryRate.benjaminiHochberg([]), [])
        assertClose(FalseDiscoveryRate.benjaminiHochberg([.nan, 0.01]), [1, 0.02])
    }

    /// 50 pages where all 5 against 5 runs separate completely (Mann-Whitney asymptotic p 0.0122):
    /// every page stays decided (50 · 0.0122 / 50); one such page among 49 at p 0.5 does not
    /// (50 · 0.0122 / 1 = 0.61).
    func testCorpusScale() {
        let separated = MannWhitney.test([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])!.pValue
        XCTAssertEqual(separated, 0.0122, accuracy: 0.0001)
        XCTAssertTrue(FalseDiscoveryRate.discoveries(Array(repeating: separated, count: 50)).allSatisfy { $0 })
        let lonely = FalseDiscoveryRate.benjaminiHochberg([separated] + Array(repeating: 0.5, count: 49))
        XCTAssertEqual(lonely[0], 0.5, accuracy: 1e-12)  // the running minimum reaches down from the 0.5s
        XCTAssertFalse(FalseDiscoveryRate.discoveries([separated] + Array(repeating: 0.5, count: 49))[0])
    }
}
