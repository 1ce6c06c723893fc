import Foundation
import XCTest
import BenchCore
import BenchModel
import LinkModel
@testable import Testbed

/// A profile's `queue` keys as the link model's disciplines.
final class ProfileQueueTests: XCTestCase {
    private func path(_ extra: String) throws -> PathConfiguration {
        let json = #"{"schemaVersion": 1, "name": "x", "rtt": 40, "down": "10Mbit", "up": "2Mbit""# + extra + "}"
        let p = try JSONFile.decode(Profile.self, from: Data(json.utf8), file: "p.json")
        try p.validate(file: "p.json")
        return try ProfileLink.path(named: "wifi", from: p)
    }

    func testDefaultsAgreeWithTheLinkModel() throws {
        // BenchModel fills the profile's defaults (what results.json records); LinkModel has its own.
        // They must be the same figures.
        XCTAssertEqual(try path(#", "queue": {"discipline": "fq_codel"}"#).downlink.discipline, .fqCodel(.init()))
        XCTAssertEqual(try path(#", "queue": {"discipline": "codel"}"#).downlink.discipline, .codel(.init()))
        XCTAssertEqual(try path(#", "queue": {"discipline": "pie"}"#).downlink.discipline, .pie(.init()))
    }

    func testParametersAndDirections() throws {
        let p = try path(
            #", "queue": "25 packets", "downQueue": {"discipline": "codel", "target": "2ms", "interval": "50ms", "#
                + #""ecn": true, "ceThreshold": "1ms", "limit": "64KB"}"#)
        XCTAssertEqual(p.uplink.discipline, .dropTail)
        XCTAssertEqual(p.uplink.queueLimit, .packets(25))
        var c = CoDelParameters()
        c.target = .milliseconds(2)
        c.interval = .milliseconds(50)
        c.ecn = true
        c.ceThreshold = .milliseconds(1)
        c.limit = .bytes(64_000)
        XCTAssertEqual(p.downlink.discipline, .codel(c))
        let head = try path(#", "queue": {"discipline": "drophead", "limit": "30 packets"}"#)
        XCTAssertEqual(head.downlink.discipline, .dropHead)
        XCTAssertEqual(head.uplink.queueLimit, .packets(30))
        let bdp = try path(#", "queue": {"discipline": "droptail"}"#)
        XCTAssertEqual(bdp.downlink.discipline, .dropTail)
        XCTAssertNil(bdp.downlink.queueLimit, "bdp: the emulator's default")
        var pie = PIEParameters()
        pie.alpha = 0.25
        pie.dequeueRateEstimator = true
        pie.maxBurst = 0
        XCTAssertEqual(
            try path(#", "queue": {"discipline": "pie", "alpha": 0.25, "dqRateEstimator": true, "maxBurst": 0}"#)
                .uplink.discipline, .pie(pie))
    }
}
