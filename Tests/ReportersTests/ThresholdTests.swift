import XCTest
import BenchCore
import BenchModel
@testable import Reporters

final class ThresholdTests: XCTestCase {
    func testParsesK6StyleExpressions() throws {
        let t = try Threshold(parsing: "pltMs.p95 < 3000")
        XCTAssertEqual(t.metric.name, "pltMs"); XCTAssertEqual(t.statistic, "p95"); XCTAssertEqual(t.op, .less)
        XCTAssertEqual(t.target, .value(3000))
        XCTAssertEqual(try Threshold(parsing: "ttfbMs.med<=500").op, .lessOrEqual)
        XCTAssertEqual(try Threshold(parsing: "goodputMbps.avg >= 50").statistic, "mean")
        XCTAssertEqual(try Threshold(parsing: "pltMs.p(99) == 1").statistic, "p99")
        XCTAssertEqual(try Threshold(parsing: "pltMs.median <= 1.5 * ideal").target, .ideal(factor: 1.5))
        XCTAssertEqual(try Threshold(parsing: "pltMs.median >= ideal").target, .ideal(factor: 1))
    }

    func testParseErrorsNameTheExpression() {
        for (expr, why) in [
            ("pltMs.p97 < 3", "unknown statistic 'p97'"), ("foo.p95 < 3", "unknown metric 'foo'"),
            ("pltMs.p95 3000", "no comparison operator"), ("pltMs < 3", "is not metric.stat"),
            ("handshakeMs.median <= ideal", "has no ideal"), ("pltMs.p95 < abc", "'abc' is not a number"),
        ] {
            XCTAssertThrowsError(try Threshold(parsing: expr), expr) {
                let e = $0 as? BenchError
                XCTAssertEqual(e?.exitCode, .usage)
                XCTAssertTrue(e?.message.contains("'\(expr)'") == true, e?.message ?? "")
                XCTAssertTrue(e?.message.contains(why) == true, e?.message ?? "")
            }
        }
    }

    func testFileErrorsAreDataErrorsNamingFileEntryAndExpression() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("thresholds-\(getpid()).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(#"{"thresholds": ["pltMs.p95 < 3000", {"expr": "ttfbMs.p95 < 1", "transport": "h4"}]}"#.utf8).write(
            to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try ThresholdFile.load(from: path)) {
            let e = $0 as? BenchError
            XCTAssertEqual(e?.exitCode, .dataError)
            XCTAssertTrue(
                e?.message.hasPrefix("\(path): thresholds[1]: threshold 'ttfbMs.p95 < 1': transport 'h4'") == true,
                e?.message ?? "")
        }
        try Data(
            #"{"thresholds": [{"expr": "ttfbMs.p95 < 1000", "transport": "h3"}, "pltMs.max < 1e9"], "name": "suite"}"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: path))
        let ts = try ThresholdFile.load(from: path)
        XCTAssertEqual(ts.map(\.transport), [.h3, nil])
        try Data(#"{"name": "x"}"#.utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try ThresholdFile.load(from: path)) {
            XCTAssertEqual(($0 as? BenchError)?.exitCode, .dataError)
        }
    }

    func testEvaluation() throws {
        let results = CheckTests.results(seed: 1, plt: 1000)
        func outcomes(_ expr: String, transport: TransportKind? = nil, scenario: String? = nil) throws -> [CheckOutcome
            .Status]
        {
            CheckRun.thresholds(
                [try Threshold(parsing: expr, scenario: scenario, transport: transport)], results: results,
                resamples: 10
            ).map(\.status)
        }
        XCTAssertEqual(try outcomes("pltMs.p95 < 3000"), [.passed, .passed])
        XCTAssertEqual(try outcomes("pltMs.median < 900"), [.failed, .failed])
        XCTAssertEqual(try outcomes("pltMs.median < 900", transport: .h3), [.failed])
        XCTAssertEqual(try outcomes("pltMs.median >= ideal"), [.passed, .passed])  // ideal 700
        XCTAssertEqual(try outcomes("pltMs.median <= 1.2 * ideal"), [.failed, .failed])  // 840
        XCTAssertEqual(try outcomes("ttfbMs.max > 0", scenario: "typo"), [.failed])  // matches nothing
        XCTAssertEqual(try outcomes("goodputMbps.median > 1"), [.failed])  // no values anywhere
    }
}
