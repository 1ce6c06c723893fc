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
