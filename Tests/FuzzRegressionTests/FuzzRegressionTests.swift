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

    private func assertRejected(
        _ target: FuzzTarget, _ name: String, _ message: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let got = try outcome(target, name)
        XCTAssertEqual(got, .rejected(message), file: file, line: line)
    }

    /// A truncated HAR whose cut-off string swallowed a newline: the key path in the error carried it.
    func testNewlineInAKeyPathIsEscaped() throws {
        try assertRejected(
            .har, "newline-in-key-path.har",
            #"fuzz.har: log.entries[0].response.: 30000\n        },\n        : the text ends inside a string "#
                + #"(truncated file?)"#
        )
    }

    /// `Int(1e300)` and `Int64(1e300)` trapped on a HAR status, body sizes and request body size.
    func testHugeHARNumbersAreRejectedOrIgnored() throws {
        try assertRejected(
            .har, "sizes-and-status-1e300.har",
            "fuzz.har: log.entries[1].response.status: 1e+300 is not an HTTP status code")
    }

    /// `Nanoseconds.milliseconds(1e300)` trapped while decoding a profile's duration; a rate of 1e300
    /// trapped when printed.
    func testHugeDurationsAndRatesAreDataErrors() throws {
        try assertRejected(
            .profile, "rtt-1e300.json",
            "fuzz-profile.json: rtt: duration 1e+300 ms is longer than 7 days (604800000 ms)")
        try assertRejected(.profile, "rate-1e300.json", "fuzz-profile.json: down: rate 1e+300 bit/s is above 1 Tbit/s")
    }

    /// Two resources of Int64.max bytes overflowed the page's total; a think time of 1e300 ms
    /// overflowed its conversion to nanoseconds.
    func testHugeSizesAndThinkTimesAreDataErrors() throws {
        try assertRejected(
            .scenario, "bytes-sum-overflow.json",
            "fuzz-scenario.json: resources[0].bytes: 9223372036854775807 is above 1 TB\n"
                + "fuzz-scenario.json: resources[1].bytes: 9223372036854775807 is above 1 TB")
        try assertRejected(
            .scenario, "think-time-1e300.json",
            "fuzz-scenario.json: resources[0].thinkTimeMs: 1e+300 is above one hour (3600000 ms)")
    }

    /// A control character inside a trace line reached the error message as is.
    func testTraceErrorsQuoteControlCharactersEscaped() throws {
        try assertRejected(
            .trace, "control-character-in-a-line",
            #"trace line 3: "3\u{1}\r4": expected a millisecond offset (a non-negative integer below 2^32)"#)
    }
}

/// The HTTP/3 stream entry: its seeds are real requests that reach the server through a real
/// handshake in memory (else the fuzzer would only ever exercise the handshake).
final class HTTP3StreamEntryTests: XCTestCase {
    func testSeedsAreRequestsTheServerAnswers() throws {
        let seeds = HTTP3StreamEntry.seeds()
        XCTAssertEqual(seeds.map(\.name), ["one-get", "page-of-six", "upload"])
        for (name, bytes) in seeds {
            let r = HTTP3StreamEntry.replay(bytes)
            XCTAssertEqual(r.outcome, .accepted, name)
            XCTAssertEqual(r.requests, name == "page-of-six" ? 6 : 1, name)
        }
    }

    /// A header block past the limit (a literal field of 70 KB) ends the connection before any
    /// request is reported; the entry accepts that (the limit held) and no connection is left.
    /// The same block with a 30 KB field is a request.
    func testAnOversizedHeaderBlockIsRefused() throws {
        XCTAssertEqual(HTTP3StreamEntry.replay(Self.requestWithField(bytes: 30_000)).requests, 1)
        let r = HTTP3StreamEntry.replay(Self.requestWithField(bytes: 70_000))
        XCTAssertEqual(r.outcome, .accepted)
        XCTAssertEqual(r.requests, 0)
    }

    /// Records for one request stream: a HEADERS frame for `GET https://www.shop.test/` with one
    /// literal field `x` of `bytes` bytes, then FIN.
    static func requestWithField(bytes: Int) -> [UInt8] {
        // QPACK: prefix (no dynamic table), static :method GET, :scheme https, :path /, :authority
        // with a literal value, then literal name "x" with a 7-bit-prefix length.
        var section: [UInt8] = [
            0x00, 0x00, 0xD1, 0xD7, 0xC1, 0x50, 0x01, UInt8(ascii: "a"), 0x21, UInt8(ascii: "x"), 0x7F,
        ]
        var rest = bytes - 127
        while rest >= 128 { section.append(UInt8(rest & 0x7F) | 0x80); rest >>= 7 }
        section += [UInt8(rest)] + [UInt8](repeating: UInt8(ascii: "v"), count: bytes)
        let frame: [UInt8] =
            [
                0x01, 0x80 | UInt8(section.count >> 24), UInt8(section.count >> 16 & 0xFF),
                UInt8(section.count >> 8 & 0xFF), UInt8(section.count & 0xFF),
            ] + section
        var input: [UInt8] = []
        var offset = 0
        while offset < frame.count {
            let n = min(0xFFFF, frame.count - offset)
            input +=
                [offset + n == frame.count ? 0x0C : 0x04, UInt8(n >> 8), UInt8(n & 0xFF)] + frame[offset..<(offset + n)]
            offset += n
        }
        return input
    }
}
