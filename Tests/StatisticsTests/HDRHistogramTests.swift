import XCTest
@testable import Statistics

/// Expected values worked out by hand from HdrHistogram's layout (see `HDRHistogram`'s doc comment).
final class HDRHistogramTests: XCTestCase {
    func latency() throws -> HDRHistogram { try HDRHistogram(HDRHistogram.latencyMicroseconds) }

    func testLayoutOfThreeDigitsToOneHour() throws {
        let h = try latency()
        // 2 × 10^3 = 2000 → 2^11 = 2048 sub-buckets; 2048 × 2^21 > 3.6e9 is the first cover: 22 buckets.
        XCTAssertEqual(h.subBucketCount, 2048)
        XCTAssertEqual(h.bucketCount, 22)
        XCTAssertEqual(h.counts.count, 23 * 1024)
    }

    func testBucketsOfValues() throws {
        let h = try latency()
        XCTAssertEqual(h.index(of: 1000), 1000)  // exact below 2048
        XCTAssertEqual(h.highestEquivalentValue(1000), 1000)
        XCTAssertEqual(h.index(of: 2048), 2048)  // bucket 1, sub-bucket 1024: width 2
        XCTAssertEqual(h.highestEquivalentValue(2048), 2049)
        XCTAssertEqual(h.index(of: 10_000), 4 * 1024 + 226)  // bucket 3: 10000 >> 3 = 1250
        XCTAssertEqual(h.lowestValue(atIndex: h.index(of: 10_003)), 10_000)
        XCTAssertEqual(h.highestEquivalentValue(10_000), 10_007)
        XCTAssertEqual(h.highestEquivalentValue(1_000_000), 1_000_447)  // 1953 << 9 = 999,936, width 512
    }

    func testPercentilesMeanAndMaxOfOneToHundred() throws {
        var h = try latency()
        for v in 1...100 { h.record(Int64(v)) }
        XCTAssertEqual(h.totalCount, 100)
        XCTAssertEqual(h.value(atPercentile: 0), 1)
        XCTAssertEqual(h.value(atPercentile: 50), 50)
        XCTAssertEqual(h.value(atPercentile: 99), 99)
        XCTAssertEqual(h.value(atPercentile: 99.9), 100)  // ⌈99.9⌉ = 100th value
        XCTAssertEqual(h.mean, 50.5)
        XCTAssertEqual(h.maxValue, 100)
    }

    func testPercentileReportsTheBucketsHighestEquivalentValue() throws {
        var h = try latency()
        h.record(1)
        h.record(10_000, count: 3)
        XCTAssertEqual(h.value(atPercentile: 25), 1)
        XCTAssertEqual(h.value(atPercentile: 50), 10_007)
        // Mean at bucket middles: (1 + 3 × (10000 + 8/2)) / 4.
        XCTAssertEqual(h.mean, 30_013.0 / 4)
        XCTAssertEqual(h.maxValue, 10_007)
        XCTAssertEqual(h.maxRecorded, 10_000)
    }

    func testOverflowIsCountedApart() throws {
        var h = try HDRHistogram(.init(lowestDiscernibleValue: 1, highestTrackableValue: 1000, significantDigits: 2))
        h.record(5000)
        h.record(10)
        XCTAssertEqual(h.totalCount, 1)
        XCTAssertEqual(h.overflowCount, 1)
        XCTAssertEqual(h.maxRecorded, 5000)
    }

    func testAddIsExactAndRefusesOtherParameters() throws {
        var a = try latency(), b = try latency()
        a.record(100); a.record(5_000)
        b.record(100, count: 2); b.record(70_000)
        var sum = a
        try sum.add(b)
        XCTAssertEqual(sum.totalCount, 5)
        XCTAssertEqual(sum.counts[sum.index(of: 100)], 3)
        XCTAssertEqual(sum.maxRecorded, 70_000)
        let other = try HDRHistogram(.init(highestTrackableValue: 3_600_000_000, significantDigits: 2))
        XCTAssertThrowsError(try sum.add(other)) { e in
            XCTAssertTrue("\(e)".contains("different parameters"), "\(e)")
        }
        XCTAssertThrowsError(try HDRHistogram(.init(highestTrackableValue: 1)))
        XCTAssertThrowsError(try HDRHistogram(.init(highestTrackableValue: 100, significantDigits: 6)))
    }

    func testV2EncodingByHand() throws {
        // 1 digit: 2 × 10 = 20 → 32 sub-buckets; values below 32 are exact, so index = value.
        var h = try HDRHistogram(.init(lowestDiscernibleValue: 1, highestTrackableValue: 1000, significantDigits: 1))
        h.record(3, count: 2)
        h.record(5)
        let bytes = HDRHistogramEncoding.encode(h)
        let header: [UInt8] = [
            0x1c, 0x84, 0x93, 0x13, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 1,
            0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x03, 0xe8, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0,
        ]
        XCTAssertEqual(Array(bytes.prefix(40)), header)
        // Three zeros as −3 (ZigZag 5), 2 (ZigZag 4), one zero as 0, 1 (ZigZag 2).
        XCTAssertEqual(Array(bytes.dropFirst(40)), [5, 4, 0, 2])
        XCTAssertEqual(try HDRHistogramEncoding.decode(bytes).counts, h.counts)
    }

    func testZigZagLEB128() throws {
        var out: [UInt8] = []
        HDRHistogramEncoding.putZigZag(300, into: &out)  // 600 = 0b100_1011000
        HDRHistogramEncoding.putZigZag(-1, into: &out)
        XCTAssertEqual(out, [0xd8, 0x04, 0x01])
        var at = 0
        XCTAssertEqual(try HDRHistogramEncoding.getZigZag(out, &at), 300)
        XCTAssertEqual(try HDRHistogramEncoding.getZigZag(out, &at), -1)
        XCTAssertThrowsError(try HDRHistogramEncoding.getZigZag([0x80], &at))
    }

    func testCompressedRoundTripAndCookie() throws {
        var h = try latency()
        for v in stride(from: 50, to: 2_000_000, by: 997) { h.record(Int64(v)) }
        let text = try HDRHistogramEncoding.compressedBase64(h)
        XCTAssertTrue(text.hasPrefix("HISTF"), text)  // 0x1c849314 in base64
        let back = try HDRHistogramEncoding.decode(compressedBase64: text)
        XCTAssertEqual(back.counts, h.counts)
        XCTAssertEqual(back.value(atPercentile: 99), h.value(atPercentile: 99))
        XCTAssertThrowsError(try HDRHistogramEncoding.decode(compressedBase64: "SElTVA=="))
    }

    func testIntervalLogRendersAndParses() throws {
        var a = try latency(), b = try latency()
        a.record(1500); b.record(250_000)
        var log = HistogramLog(startTime: 1_700_000_000.25, maxValueUnitRatio: 1000)
        log.intervals = [
            try .init(startSeconds: 0, lengthSeconds: 1, histogram: a),
            try .init(startSeconds: 1, lengthSeconds: 1, tag: "h2", histogram: b),
        ]
        let text = log.render()
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines[0], "#[Histogram log format version 1.3]")
        XCTAssertTrue(lines[1].hasPrefix("#[StartTime: 1700000000.250 (seconds since epoch), "))
        XCTAssertEqual(String(lines[3]), HistogramLog.legend)
        XCTAssertTrue(lines[4].hasPrefix("0.000,1.000,1.500,HISTF"), String(lines[4]))
        XCTAssertTrue(lines[5].hasPrefix("Tag=h2,1.000,1.000,250.111,HISTF"), String(lines[5]))  // 250000 + 111
        let back = try HistogramLog.parse(text)
        XCTAssertEqual(back.startTime, 1_700_000_000.25)
        XCTAssertEqual(back.intervals.map(\.tag), [nil, "h2"])
        XCTAssertEqual(try back.intervals[1].histogram().counts, b.counts)
    }
}
