import Foundation
import XCTest
@testable import BenchModel

/// A run's link series in results files: each column one string of numbers, read back exactly.
final class LinkSeriesRecordTests: XCTestCase {
    let series = LinkSeriesRecord(
        binMs: 10, offeredBytes: [3_000, 0, 1_500], departedBytes: [1_500, 1_500, 0], capacityBytes: [1_500, 3_000, 0],
        drops: [1, 0, 0], delayP50Ms: [0.083, 12.5, 0], delayMaxMs: [0.12, 1_234.567, 0])

    func testColumnsAreStringsOfNumbersAndReadBackExactly() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(series), as: UTF8.self)
        XCTAssertTrue(text.contains(#""drops":"1 0 0""#), text)
        XCTAssertTrue(text.contains(#""delayMaxMs":"0.12 1234.567 0.0""#), text)
        XCTAssertEqual(try JSONDecoder().decode(LinkSeriesRecord.self, from: Data(text.utf8)), series)
        var unlimited = series
        unlimited.capacityBytes = nil
        let without = try encoder.encode(unlimited)
        XCTAssertFalse(String(decoding: without, as: UTF8.self).contains("capacityBytes"))
        XCTAssertEqual(try JSONDecoder().decode(LinkSeriesRecord.self, from: without), unlimited)
    }

    func testABadNumberIsAnErrorNamingTheKeyAndTheValue() {
        let json = #"{"binMs":10,"offeredBytes":"1 2","departedBytes":"1 x","drops":"0 0","delayP50Ms":"0 0","#
            + #""delayMaxMs":"0 0"}"#
        XCTAssertThrowsError(try JSONDecoder().decode(LinkSeriesRecord.self, from: Data(json.utf8))) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("departedBytes") && text.contains("'x' is not a number"), text)
        }
    }
}
