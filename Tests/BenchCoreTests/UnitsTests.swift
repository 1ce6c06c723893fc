import XCTest
@testable import BenchCore

/// The units of the command-line and file contract: sizes in powers of 1000 and 1024, durations,
/// rates; endpoints; the seeded generator every random choice draws from.
final class UnitsTests: XCTestCase {
    func testSizes() {
        XCTAssertEqual(Units.parseBytes("1500"), 1500)
        XCTAssertEqual(Units.parseBytes("64KB"), 64_000)
        XCTAssertEqual(Units.parseBytes("64 KiB"), 65_536)
        XCTAssertEqual(Units.parseBytes("2.3MB"), 2_300_000)
        XCTAssertEqual(Units.parseBytes("1GiB"), 1 << 30)
        XCTAssertEqual(Units.parseBytes("1e3B"), 1000)
        XCTAssertNil(Units.parseBytes("ten KB"))
        XCTAssertNil(Units.parseBytes("-5KB"))
        XCTAssertNil(Units.parseBytes("5 parsecs"))
    }

    func testDurations() {
        XCTAssertEqual(Units.parseDuration("40ms"), 40_000_000)
        XCTAssertEqual(Units.parseDuration("40"), 40_000_000, "a bare number is milliseconds")
        XCTAssertEqual(Units.parseDuration("1.5s"), 1_500_000_000)
        XCTAssertEqual(Units.parseDuration("250us"), 250_000)
        XCTAssertNil(Units.parseDuration("soon"))
    }

    func testRates() {
        XCTAssertEqual(Units.parseBitrate("10Mbit"), 10_000_000)
        XCTAssertEqual(Units.parseBitrate("384kbit"), 384_000)
        XCTAssertEqual(Units.parseBitrate("1.6 Mbit/s"), 1_600_000)
        XCTAssertEqual(Units.parseBitrate("1Gbit"), 1e9)
        XCTAssertEqual(Units.parseBitrate("12Mbps"), 12_000_000)
        XCTAssertNil(Units.parseBitrate("fast"))
    }

    func testFormatting() {
        XCTAssertEqual(Units.format(1.2345, 2), "1.23")
        XCTAssertEqual(Units.format(2.0, 3), "2")
        XCTAssertEqual(Units.format(-0.5, 1), "-0.5")
        XCTAssertEqual(Units.format(0.05, 3), "0.05")
        XCTAssertEqual(Units.formatBytes(2_311_000), "2.31 MB")
        XCTAssertEqual(Units.formatBitrate(1_600_000), "1.6 Mbit/s")
    }

    func testEndpoints() {
        let e = Endpoint("127.0.0.1:4433")
        XCTAssertEqual(e?.address, 0x7F00_0001)
        XCTAssertEqual(e?.port, 4433)
        XCTAssertEqual(e?.description, "127.0.0.1:4433")
        XCTAssertEqual(Endpoint("localhost:80")?.address, 0x7F00_0001)
        XCTAssertNil(Endpoint("127.0.0.1"))
        XCTAssertNil(Endpoint("300.1.1.1:80"))
        XCTAssertNil(Endpoint("1.2.3:80"))
    }

    func testSeededRandomIsReproducibleAndUniform() {
        var a = SeededRandom(seed: 42), b = SeededRandom(seed: 42), c = SeededRandom(seed: 43)
        let xs = (0..<5).map { _ in a.next() }
        XCTAssertEqual(xs, (0..<5).map { _ in b.next() })
        XCTAssertNotEqual(xs, (0..<5).map { _ in c.next() })
        var r = SeededRandom(seed: 7)
        let n = 100_000
        let mean = (0..<n).reduce(0.0) { s, _ in s + r.nextUnit() } / Double(n)
        XCTAssertEqual(mean, 0.5, accuracy: 0.01)
    }

    func testInstantArithmetic() {
        let t = Instant(nanoseconds: 1_000_000_000)
        XCTAssertEqual((t + .milliseconds(5)).since(t), 5_000_000)
        XCTAssertEqual(t.since(t + .milliseconds(5)), -5_000_000)
        XCTAssertEqual((t + .milliseconds(2.5)).milliseconds(since: t), 2.5, accuracy: 1e-9)
    }
}
