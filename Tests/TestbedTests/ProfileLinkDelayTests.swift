import Foundation
import XCTest
import BenchCore
import BenchModel
import LinkModel
import Runner
@testable import Testbed

/// A profile's delay keys as the link model gets them, per direction.
final class ProfileLinkDelayTests: XCTestCase {
    func testJitterReorderAndDelayTracePerDirection() throws {
        let dir = NSTemporaryDirectory() + "nb-profile-link-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "0 10\n1000 30\n".write(toFile: dir + "/up.txt", atomically: true, encoding: .utf8)
        let json = #"{"schemaVersion": 1, "name": "j", "rtt": "40ms", "down": "10Mbit", "up": "10Mbit", "#
            + #""jitter": {"distribution": "paretonormal", "deviation": "4ms"}, "#
            + #""downJitter": {"distribution": "normal", "deviation": "3ms", "reorder": true}, "#
            + #""upReorder": {"jump": 2, "probability": "1%"}, "upDelayTrace": "up.txt"}"#
        try json.write(toFile: dir + "/j.json", atomically: true, encoding: .utf8)
        let p = try Library(root: dir).profile(dir + "/j.json")
        let path = try ProfileLink.path(named: "wifi", from: p)
        XCTAssertEqual(
            path.downlink.delayVariation,
            DelayVariation(jitter: Jitter(distribution: .normal, deviation: .milliseconds(3), mayReorder: true)))
        XCTAssertEqual(path.downlink.delay, .milliseconds(20))
        let trace = try DelayTrace(points: [
            .init(time: 0, delay: .milliseconds(10)), .init(time: .seconds(1), delay: .milliseconds(30)),
        ])
        XCTAssertEqual(
            path.uplink.delayVariation,
            DelayVariation(
                trace: trace, jitter: Jitter(distribution: .paretoNormal, deviation: .milliseconds(4)),
                reordering: .jump(distance: 2, trigger: .probability(0.01))))
        XCTAssertEqual(path.uplink.delay, .milliseconds(20), "the trace's mean")
        // A swap without maxHold holds at most the documented default.
        let swap = try JSONFile.decode(
            Profile.self, from: Data(#"{"schemaVersion":1,"name":"s","reorder":{"swap":0.5}}"#.utf8), file: "s")
        XCTAssertEqual(
            ProfileLink.delayVariation(swap, down: true, trace: nil).reordering,
            .swap(probability: 0.5, maxHold: Profile.ReorderSpec.defaultMaxHold.nanoseconds))
    }

    func testBadDelayTraceIsADataErrorNamingFileLineAndValue() throws {
        let dir = NSTemporaryDirectory() + "nb-profile-link-bad-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "0 10\n50 x\n".write(toFile: dir + "/d.txt", atomically: true, encoding: .utf8)
        let json = #"{"schemaVersion": 1, "name": "b", "rtt": "40ms", "down": "1Mbit", "up": "1Mbit", "#
            + #""downDelayTrace": "d.txt"}"#
        try json.write(toFile: dir + "/b.json", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try Library(root: dir).profile(dir + "/b.json")) { error in
            guard let e = error as? BenchError, e.exitCode == .dataError else { return XCTFail("\(error)") }
            let m = e.message
            for part in ["profile 'b'", "downDelayTrace", dir + "/d.txt", "line 2", "\"x\""] {
                XCTAssertTrue(m.contains(part), "\(part) missing from \(m)")
            }
        }
    }
}
