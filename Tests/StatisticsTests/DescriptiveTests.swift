import XCTest
import Statistics

final class DescriptiveTests: XCTestCase {
    func testPercentilesMeanAndSDMatchNumpy() throws {
        for s in try Reference.load().samples {
            for pair in s.percentiles {
                let got = try XCTUnwrap(Descriptive.percentile(s.values, pair[0]))
                XCTAssertEqual(got, pair[1], accuracy: 1e-9 * max(1, abs(pair[1])), "\(s.name) p\(pair[0])")
            }
            XCTAssertEqual(
                try XCTUnwrap(Descriptive.mean(s.values)), s.mean, accuracy: 1e-9 * max(1, abs(s.mean)), s.name)
            if let sd = s.sd {
                XCTAssertEqual(
                    try XCTUnwrap(Descriptive.sampleStandardDeviation(s.values)), sd, accuracy: 1e-9 * max(1, sd),
                    s.name)
            } else {
                XCTAssertNil(Descriptive.sampleStandardDeviation(s.values), s.name)
            }
            XCTAssertEqual(
                try XCTUnwrap(Descriptive.medianAbsoluteDeviation(s.values)), s.mad, accuracy: 1e-9 * max(1, s.mad),
                s.name)
        }
    }

    func testMedianOfEvenAndOddSamples() {
        XCTAssertEqual(Descriptive.median([3, 1, 2]), 2)
        XCTAssertEqual(Descriptive.median([4, 1, 3, 2]), 2.5)
        XCTAssertEqual(Descriptive.p95([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]), 10.5)
    }

    func testEmptySampleHasNoStatistics() {
        XCTAssertNil(Descriptive.median([]))
        XCTAssertNil(Descriptive.mean([]))
        XCTAssertNil(Descriptive.sampleStandardDeviation([1]))
        XCTAssertNil(Summary([], seed: 1))
    }

    func testOutlierFlagsMatchReference() throws {
        for s in try Reference.load().samples {
            XCTAssertEqual(Outliers.flags(s.values), s.outliers, s.name)
        }
    }

    func testSummaryCarriesTheSameFigures() throws {
        let s = try Reference.load().sample("even100")
        let summary = try XCTUnwrap(Summary(s.values, seed: 7))
        XCTAssertEqual(summary.n, 100)
        XCTAssertEqual(summary.median, Descriptive.median(s.values))
        XCTAssertEqual(summary.p95, Descriptive.p95(s.values))
        XCTAssertEqual(summary.statistic(named: "p50"), summary.median)
        XCTAssertEqual(summary.statistic(named: "max"), s.values.max())
        XCTAssertLessThanOrEqual(summary.ci95Low, summary.median)
        XCTAssertGreaterThanOrEqual(summary.ci95High, summary.median)
        XCTAssertNil(summary.statistic(named: "p42"))
    }
}
