import Foundation
import XCTest
import BenchCore
@testable import BenchModel

/// The delay keys of a profile: jitter, delay traces, explicit reordering.
final class ProfileDelayTests: XCTestCase {
    func profile(_ keys: String) throws -> Profile {
        let json = #"{"schemaVersion": 1, "name": "x", "rtt": "50ms", "down": "10Mbit", "up": "10Mbit", "# + keys + "}"
        let p = try JSONFile.decode(Profile.self, from: Data(json.utf8), file: "p.json")
        try p.validate(file: "p.json")
        return p
    }

    func testJitterAndReorderKeys() throws {
        let p = try profile(
            #""jitter": {"distribution": "normal", "deviation": "5ms"}, "#
                + #""upJitter": {"deviation": 2, "reorder": true}, "downReorder": {"swap": "1%"}"#)
        XCTAssertEqual(p.jitter(down: true), Profile.JitterSpec(distribution: .normal, deviation: .ms(5)))
        XCTAssertEqual(p.jitter(down: false), Profile.JitterSpec(deviation: .ms(2), reorder: true))
        XCTAssertEqual(p.reorder(down: true)?.swap?.value ?? 0, 0.01, accuracy: 1e-12)
        XCTAssertThrowsError(
            try profile(#""jitter": {"deviation": "5ms", "reorder": true}, "reorder": {"swap": 0.01}"#))
        let jump = try profile(#""downReorder": {"jump": 3, "every": 100}"#)
        XCTAssertEqual(jump.reorder(down: true), Profile.ReorderSpec(jump: 3, every: 100))
        XCTAssertNil(jump.reorder(down: false))
        XCTAssertTrue(jump.summary.hasSuffix("; down reorder jump 3 ahead, every 100th"), jump.summary)
        let summary = try profile(#""jitter": {"deviation": "5ms"}"#).summary
        XCTAssertTrue(summary.hasSuffix("; jitter ±\(DurationValue.ms(5)) uniform"), summary)
    }

    func testBadDelayKeysNameKeyAndValue() {
        let cases: [(String, String)] = [
            (#""jitter": {"distribution": "gamma", "deviation": "5ms"}"#, "'gamma' is not one of uniform, normal"),
            (#""jitter": {"deviation": "-5ms"}"#, "jitter.deviation"),
            (#""reorder": {"swap": 0.1, "jump": 2, "every": 3}"#, "p.json: reorder.jump: give swap or jump, not both"),
            (#""reorder": {"jump": 2}"#, "p.json: reorder.probability: a jump needs probability or every"),
            (#""reorder": {"jump": 0, "every": 5}"#, "p.json: reorder.jump: 0 must be at least 1 packet"),
            (#""reorder": {"swap": 1.5}"#, "probability 1.5 is outside [0, 1]"),
            (#""reorder": {}"#, "p.json: reorder.swap: missing"),
            (
                #""downJitter": {"deviation": "1ms", "reorder": true}, "downReorder": {"swap": 0.1}"#,
                "p.json: downReorder: explicit reordering needs order-keeping jitter"
            ),
        ]
        for (keys, expected) in cases {
            let m = errorMessage { _ = try profile(keys) }
            XCTAssertTrue(m.contains(expected), "\(keys): \(m)")
        }
    }

    func testDelayTracesReplaceRTTAndAreResolved() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nb-delay-profile-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("0 20\n".utf8).write(to: dir.appendingPathComponent("d.txt"))
        let path = dir.appendingPathComponent("t.json").path
        let json = #"{"schemaVersion": 1, "name": "t", "down": "1Mbit", "up": "1Mbit", "#
            + #""downDelayTrace": "d.txt", "upDelayTrace": "missing.txt"}"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        assertContains(errorMessage { _ = try Profile.load(from: path) }, path, "upDelayTrace", "missing.txt")
        try Data(json.replacingOccurrences(of: "missing.txt", with: "d.txt").utf8).write(to: URL(fileURLWithPath: path))
        let p = try Profile.load(from: path)  // no rtt needed: both directions have a delay trace
        XCTAssertEqual(p.downDelayTrace, dir.appendingPathComponent("d.txt").standardizedFileURL.path)
        XCTAssertTrue(p.summary.hasSuffix("; delay trace d.txt"), p.summary)
    }
}
