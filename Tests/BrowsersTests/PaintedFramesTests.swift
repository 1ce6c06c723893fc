import Foundation
import XCTest
@testable import Browsers

/// Frames placed on the page's clock: a frame that arrived before navigation was asked for is the
/// frame at navigation start even when its timestamp (another clock) reads a few ms after it.
final class PaintedFramesTests: XCTestCase {
    static let side = 8

    /// A side×side PNG: white, or with its top `redRows` rows red.
    static func png(redRows: Int) throws -> String {
        var pixels = [UInt8](repeating: 255, count: side * side * 4)
        for i in 0..<(redRows * side) { pixels[i * 4 + 1] = 0; pixels[i * 4 + 2] = 0 }
        return Data(try PNGImage.encodeRGBA(pixels, width: side, height: side)).base64EncodedString()
    }

    /// Blank stamped 2 ms after the origin, half painted at 400 ms, whole at 1000 ms.
    func frames(markingNavigation: Bool) throws -> PaintedFrames {
        let origin = 1_000_000.0
        let f = PaintedFrames()
        f.add(epochMs: origin + 2, base64PNG: try Self.png(redRows: 0))
        if markingNavigation { f.navigationAsked() }
        f.add(epochMs: origin + 400, base64PNG: try Self.png(redRows: Self.side / 2))
        f.add(epochMs: origin + 1000, base64PNG: try Self.png(redRows: Self.side))
        return f
    }

    func testAFrameReceivedBeforeNavigationShowsAtNavigationStart() throws {
        let f = try frames(markingNavigation: true)
        XCTAssertEqual(f.arrivedBeforeNavigation, 1)
        let placed = try f.frames(timeOrigin: 1_000_000)
        XCTAssertEqual(placed.map(\.ms), [0, 400, 1000])
        guard case .success(let (m, n)) = f.metrics(timeOrigin: 1_000_000) else {
            return XCTFail("metrics failed: \(f.metrics(timeOrigin: 1_000_000))")
        }
        XCTAssertEqual(n, 3)
        XCTAssertEqual(m.firstVisualChangeMs, 400)
        XCTAssertEqual(m.visuallyCompleteMs, 1000)
        XCTAssertEqual(m.speedIndexMs, 700, accuracy: 0.001)
    }

    func testWithoutTheMarkTheLateStampedBlankFrameLeavesNavigationStartUnseen() throws {
        let f = try frames(markingNavigation: false)
        guard case .failure(let e) = f.metrics(timeOrigin: 1_000_000) else { return XCTFail("metrics computed") }
        XCTAssertEqual(e.description, "no frame showed what was there at navigation start")
    }

    func testAnEarlierStampIsKeptAndOlderFramesAreDropped() throws {
        let f = PaintedFrames()
        f.add(epochMs: 900, base64PNG: try Self.png(redRows: 0))
        f.add(epochMs: 990, base64PNG: try Self.png(redRows: 0))
        f.navigationAsked()
        f.add(epochMs: 1400, base64PNG: try Self.png(redRows: Self.side))
        XCTAssertEqual(try f.frames(timeOrigin: 1000).map(\.ms), [0, 400])
    }
}
