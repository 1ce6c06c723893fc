import XCTest
import BenchCore
@testable import LinkEmulator

final class OneWayDelayHistogramTests: XCTestCase {
    func testQuantilesWithinABucket() {
        var h = OneWayDelayHistogram()
        XCTAssertEqual(h.quantile(0.5), 0)
        // 1..10,000 × 17 µs: 17 µs to 170 ms.
        for i in 1...10_000 { h.record(Nanoseconds(i) * 17_000) }
        XCTAssertEqual(h.count, 10_000)
        XCTAssertEqual(h.minimum, 17_000)
        XCTAssertEqual(h.maximum, 170_000_000)
        for q in [0.01, 0.1, 0.5, 0.9, 0.99] {
            let exact = Double(Int((q * 10_000).rounded(.up))) * 17_000
            let got = Double(h.quantile(q))
            XCTAssertEqual(got, exact, accuracy: max(1_000, exact * 0.002), "q \(q)")
        }
        XCTAssertEqual(h.quantile(1), 170_000_000)
    }

    func testBucketsTileTheRange() {
        var previousUpper: Int64 = 0
        for i in 0..<(OneWayDelayHistogram.linear + OneWayDelayHistogram.octaves * OneWayDelayHistogram.subBuckets) {
            let (lo, hi) = OneWayDelayHistogram.range(ofBucket: i)
            XCTAssertEqual(lo, previousUpper, "bucket \(i)")
            XCTAssertEqual(OneWayDelayHistogram.bucket(ofMicroseconds: lo), i)
            XCTAssertEqual(OneWayDelayHistogram.bucket(ofMicroseconds: hi - 1), i)
            if i < OneWayDelayHistogram.linear {
                XCTAssertEqual(hi - lo, 1)  // 1 µs below 1,024 µs
            } else {
                XCTAssertLessThanOrEqual(Double(hi - lo) / Double(lo), 1.0 / 512 + 1e-12)  // 0.2% above
            }
            previousUpper = hi
        }
    }
}
