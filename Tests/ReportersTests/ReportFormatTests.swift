import XCTest
@testable import Reporters

final class ReportFormatTests: XCTestCase {
    func testAllCasesIsEveryFormatAndTheStandardOnesAreASubset() {
        XCTAssertEqual(ReportFormat.allCases, [.json, .csv, .md, .html, .prometheus, .influx, .har])
        XCTAssertTrue(Set(ReportFormat.standard).isSubset(of: Set(ReportFormat.allCases)))
        XCTAssertFalse(ReportFormat.standard.contains(.prometheus), "metrics formats only on request")
        let everyName = ReportFormat.allCases.map(\.rawValue).joined(separator: ",")
        XCTAssertEqual(ReportFormat.parse(everyName).formats, ReportFormat.allCases)
        XCTAssertEqual(ReportFormat.parse("markdown,prom,influxdb,nope").unknown, ["nope"])
    }
}
