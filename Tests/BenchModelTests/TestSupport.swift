import Foundation
import XCTest
import BenchCore
@testable import BenchModel

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

/// The message of the `BenchError` that `body` throws (fails the test if it throws nothing).
func errorMessage(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> String {
    do {
        try body()
        XCTFail("expected an error", file: file, line: line)
        return ""
    } catch let e as BenchError {
        return e.message
    } catch {
        XCTFail("expected a BenchError, got \(error)", file: file, line: line)
        return ""
    }
}

func assertContains(_ text: String, _ parts: String..., file: StaticString = #filePath, line: UInt = #line) {
    for p in parts where !text.contains(p) {
        XCTFail("'\(text)' does not contain '\(p)'", file: file, line: line)
    }
}

/// Decodes a scenario from JSON text and validates it as file `name`.
func loadScenario(_ json: String, file name: String = "t.json") throws -> Scenario {
    let s = try JSONFile.decode(Scenario.self, from: Data(json.utf8), file: name)
    try s.validate(file: name)
    return s
}

func median<T: Comparable>(_ values: [T]) -> T { values.sorted()[values.count / 2] }
func percentile(_ values: [Double], _ p: Double) -> Double {
    let s = values.sorted()
    return s[min(s.count - 1, Int(Double(s.count - 1) * p + 0.5))]
}
