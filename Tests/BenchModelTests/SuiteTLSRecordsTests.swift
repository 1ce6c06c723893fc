import Foundation
import XCTest
import BenchCore
import BenchModel

/// `"tlsRecords"` in suites: read as `TLSRecordPolicy` would, refused with file and key otherwise.
final class SuiteTLSRecordsTests: XCTestCase {
    private func suite(tlsRecords: String) throws -> Suite {
        let json =
            #"{"schemaVersion": 1, "name": "s", "scenarios": ["a.json"], "profiles": ["LTE"], "transports": ["h2"], "#
                + #""runs": 3, "tlsRecords": "\#(tlsRecords)"}"#
        let s = try JSONFile.decode(Suite.self, from: Data(json.utf8), file: "s.json")
        try s.validate(file: "s.json")
        return s
    }

    func testAcceptedValues() throws {
        XCTAssertEqual(try suite(tlsRecords: "dynamic").tlsRecords.flatMap(TLSRecordPolicy.init), .dynamic)
        XCTAssertEqual(try suite(tlsRecords: "16k").tlsRecords.flatMap(TLSRecordPolicy.init), .fixed(16_384))
        XCTAssertEqual(try suite(tlsRecords: "4KiB").tlsRecords.flatMap(TLSRecordPolicy.init), .fixed(4_096))
    }

    func testRefusedValueNamesFileKeyAndValue() {
        let m = errorMessage { _ = try suite(tlsRecords: "64KiB") }
        XCTAssertEqual(
            m, "s.json: tlsRecords: '64KiB' is not 'dynamic', '16k' or a record size from 512 B to 16 KiB (e.g. '4KiB')"
        )
        do { _ = try suite(tlsRecords: "x"); XCTFail("accepted 'x'") } catch let e as BenchError {
            XCTAssertEqual(e.exitCode, .dataError, "bad input data exits 65")
        } catch { XCTFail("\(error)") }
    }

    func testRunRecordKeepsServerSettings() throws {
        var run = RunRecord(scenario: "s", profile: "p", transport: .h2, index: 0, status: .ok)
        run.server = ServerRecord(tlsRecords: "dynamic")
        let data = try JSONEncoder().encode(run)
        XCTAssertTrue(String(decoding: data, as: UTF8.self).contains(#""server":{"tlsRecords":"dynamic"}"#))
        XCTAssertEqual(try JSONDecoder().decode(RunRecord.self, from: data).server, run.server)
    }
}
