import XCTest
@testable import Statistics

/// Speed Index and visually complete from synthetic frames whose progress is known by construction.
final class VisualProgressTests: XCTestCase {
    /// A frame of `pixels` pixels: `red` of them pure red, `blue` pure blue, the rest white.
    func frame(_ ms: Double, pixels: Int = 10_000, red: Int = 0, blue: Int = 0) -> VisualMetrics.Frame {
        var bytes: [UInt8] = []
        for i in 0..<pixels {
            if i < red {
                bytes += [255, 0, 0]
            } else if i < red + blue {
                bytes += [0, 0, 255]
            } else {
                bytes += [255, 255, 255]
            }
        }
        return VisualMetrics.Frame(ms: ms, histogram: FrameHistogram(pixels: bytes, bytesPerPixel: 3))
    }

    func testHalfAtT1AndTheRestAtT2GivesT1PlusHalfTheGap() throws {
        let frames = [
            frame(0), frame(200), frame(500, red: 5000), frame(700, red: 5000), frame(1500, red: 5000, blue: 5000),
            frame(1800, red: 5000, blue: 5000),
        ]
        let m = try XCTUnwrap(VisualMetrics.compute(frames))
        XCTAssertEqual(m.progress.map(\.percent), [0, 0, 50, 50, 100, 100])
        XCTAssertEqual(m.speedIndexMs, 500 + (1500 - 500) / 2)
        XCTAssertEqual(m.firstVisualChangeMs, 500)
        XCTAssertEqual(m.visuallyComplete85Ms, 1500)
        XCTAssertEqual(m.visuallyComplete99Ms, 1500)
        XCTAssertEqual(m.visuallyCompleteMs, 1500)
    }

    func testFramesAreTakenInTimeOrder() throws {
        let m = try XCTUnwrap(VisualMetrics.compute([frame(1000, red: 10_000), frame(0), frame(400, red: 2500)]))
        XCTAssertEqual(m.progress.map(\.ms), [0, 400, 1000])
        XCTAssertEqual(m.progress.map(\.percent), [0, 25, 100])
        XCTAssertEqual(m.speedIndexMs, 400 + 600 * 0.75)
    }

    func testThresholdsTakeTheFirstFrameReachingThem() throws {
        let m = try XCTUnwrap(
            VisualMetrics.compute([
                frame(0), frame(100, red: 8000), frame(200, red: 9000), frame(300, red: 9600), frame(400, red: 9950),
                frame(500, red: 10_000),
            ]))
        XCTAssertEqual(m.progress.map(\.percent), [0, 80, 90, 96, 99, 100])
        XCTAssertEqual(m.visuallyComplete85Ms, 200)
        XCTAssertEqual(m.visuallyComplete95Ms, 300)
        XCTAssertEqual(m.visuallyComplete99Ms, 400)
        XCTAssertEqual(m.visuallyCompleteMs, 500)
        XCTAssertEqual(m.speedIndexMs, 100 + 100 * 0.2 + 100 * 0.1 + 100 * 0.04 + 100 * 0.01, accuracy: 1e-9)
    }

    /// White (all channels ≥ 250) is background: near-white noise is no progress.
    func testNearWhitePixelsAreLeftOut() {
        var h = FrameHistogram(pixels: [250, 251, 255, 249, 255, 255], bytesPerPixel: 3)
        XCTAssertEqual(h.counts.reduce(0, +), 3, "only the second pixel counts (one per channel)")
        XCTAssertEqual(h.counts[249], 1)
        h.add(red: 255, green: 255, blue: 255, count: 100)
        XCTAssertEqual(h.counts.reduce(0, +), 3)
        let rgba = FrameHistogram(pixels: [10, 20, 30, 0, 10, 20, 30, 255], bytesPerPixel: 4)
        XCTAssertEqual(rgba.counts[10], 2, "alpha ignored")
        XCTAssertEqual(rgba.counts[256 + 20], 2)
        XCTAssertEqual(rgba.counts[512 + 30], 2)
    }

    /// A colour a few intensities off the final one (compression) still matches; far off does not.
    func testSlopMatchesNearbyIntensities() {
        var first = FrameHistogram(), last = FrameHistogram(), near = FrameHistogram(), far = FrameHistogram()
        first.add(red: 255, green: 255, blue: 255)
        last.add(red: 100, green: 100, blue: 100, count: 100)
        near.add(red: 103, green: 97, blue: 100, count: 100)
        far.add(red: 120, green: 80, blue: 100, count: 100)
        XCTAssertEqual(VisualMetrics.percent(near, first: first, last: last), 100)
        XCTAssertEqual(VisualMetrics.percent(far, first: first, last: last), 33, "only blue matches")
        XCTAssertEqual(VisualMetrics.percent(first, first: first, last: last), 0)
    }

    func testNothingPaintedIsCompleteAtOnce() throws {
        let m = try XCTUnwrap(VisualMetrics.compute([frame(0), frame(300), frame(900)]))
        XCTAssertEqual(m.progress.map(\.percent), [100, 100, 100])
        XCTAssertEqual(m.speedIndexMs, 0)
        XCTAssertNil(m.firstVisualChangeMs)
        XCTAssertEqual(m.visuallyCompleteMs, 0)
        XCTAssertNil(VisualMetrics.compute([]))
    }

    /// A page that paints something and takes it away again: progress can go back down.
    func testProgressFollowsContentThatComesAndGoes() throws {
        let m = try XCTUnwrap(
            VisualMetrics.compute([frame(0), frame(100, red: 10_000), frame(300, blue: 10_000)]))
        XCTAssertEqual(m.progress.map(\.percent), [0, 33, 100], "red matches the final blue's zero green only")
        XCTAssertEqual(m.firstVisualChangeMs, 100)
        XCTAssertEqual(m.speedIndexMs, 100 + 200 * 0.67, accuracy: 1e-9)
    }
}
