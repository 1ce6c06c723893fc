import FuzzEntries
import Foundation
import XCTest

/// Every input a fuzzer found breaking an entry's contract (a trap, or a violation such as an
/// error that does not name the file) is kept under Fixtures/<target>/ and replayed here through
/// the same entry `netbench-fuzz` runs: each must now end as accepted or as a clean rejection.
final class FuzzRegressionTests: XCTestCase {
    private var fixtures: URL { Bundle.module.resourceURL!.appendingPathComponent("Fixtures") }

    func testEverySavedInputEndsCleanly() throws {
        var replayed = 0
        for target in FuzzTarget.allCases {
            let dir = fixtures.appendingPathComponent(target.rawValue)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            for name in names.sorted() {
                let bytes = try [UInt8](Data(contentsOf: dir.appendingPathComponent(name)))
                let outcome = target.run(bytes)
                XCTAssertFalse(outcome.isViolation, "\(target.rawValue)/\(name): \(outcome)")
                replayed += 1
            }
        }
        XCTAssertGreaterThan(replayed, 0, "no saved fuzz inputs found under \(fixtures.path)")
    }
}

/// The findings one by one, with the clean error each now ends in.
final class FuzzFindingTests: XCTestCase {
    private func outcome(_ target: FuzzTarget, _ name: String) throws -> FuzzOutcome {
        let url = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/\(target.rawValue)/\(name)")
        return target.run(try [UInt8](Data(contentsOf: url)))
    }

    private func assertRejected(_ target: FuzzTarget, _ name: String, _ message: String,
                                file: StaticString = #filePath, line: UInt = #line) throws {
        let got = try outcome(target, name)
        XCTAssertEqual(got, .rejected(message), file: file, line: line)
    }

    /// A truncated HAR whose cut-off string swallowed a newline: the key path in the error carried it.
    func testNewlineInAKeyPathIsEscaped() throws {
        try assertRejected(.har, "newline-in-key-path.har",
                           #"fuzz.har: log.entries[0].response.: 30000\n        },\n        : the text ends inside a string (truncated file?)"#)
    }

    /// `Int(1e300)` and `Int64(1e300)` trapped on a HAR status, body sizes and request body size.
    func testHugeHARNumbersAreRejectedOrIgnored() throws {
        try assertRejected(.har, "sizes-and-status-1e300.har", "fuzz.har: log.entries[1].response.status: 1e+300 is not an HTTP status code")
    }

    /// `Nanoseconds.milliseconds(1e300)` trapped while decoding a profile's duration; a rate of 1e300
    /// trapped when printed.
    func testHugeDurationsAndRatesAreDataErrors() throws {
        try assertRejected(.profile, "rtt-1e300.json", "fuzz-profile.json: rtt: duration 1e+300 ms is longer than 7 days (604800000 ms)")
        try assertRejected(.profile, "rate-1e300.json", "fuzz-profile.json: down: rate 1e+300 bit/s is above 1 Tbit/s")
    }

    /// Two resources of Int64.max bytes overflowed the page's total; a think time of 1e300 ms
    /// overflowed its conversion to nanoseconds.
    func testHugeSizesAndThinkTimesAreDataErrors() throws {
        try assertRejected(.scenario, "bytes-sum-overflow.json",
                           "fuzz-scenario.json: resources[0].bytes: 9223372036854775807 is above 1 TB\n"
                           + "fuzz-scenario.json: resources[1].bytes: 9223372036854775807 is above 1 TB")
        try assertRejected(.scenario, "think-time-1e300.json", "fuzz-scenario.json: resources[0].thinkTimeMs: 1e+300 is above one hour (3600000 ms)")
    }

    /// A control character inside a trace line reached the error message as is.
    func testTraceErrorsQuoteControlCharactersEscaped() throws {
        try assertRejected(.trace, "control-character-in-a-line",
                           #"trace line 3: "3\u{1}\r4": expected a millisecond offset (a non-negative integer below 2^32)"#)
    }
}
