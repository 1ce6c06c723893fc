import XCTest
import BenchCore
@testable import BenchModel

/// The cross-traffic scheduler: when each competing flow starts and stops, relative to the page.
final class CrossTrafficPlanTests: XCTestCase {
    func testDefaultFlowStartsTwoSecondsBeforeThePageAndStopsWithIt() {
        let plan = CrossTrafficPlan([CrossFlowSpec(transport: .h2)])
        XCTAssertEqual(plan.timings, [.init(start: -.seconds(2), stop: nil)])
        XCTAssertEqual(plan.lead, .seconds(2))
        XCTAssertEqual(plan.origin, -.seconds(2))
        XCTAssertEqual(plan.stop(of: 0, pageEnd: .milliseconds(850)), .milliseconds(850))
        XCTAssertEqual(plan.lastStop(pageEnd: .milliseconds(850)), .milliseconds(850))
        XCTAssertTrue(plan.isActive(0, at: -.seconds(1), pageEnd: .seconds(1)))
        XCTAssertFalse(plan.isActive(0, at: -.milliseconds(2001), pageEnd: .seconds(1)))
        XCTAssertFalse(plan.isActive(0, at: .seconds(1), pageEnd: .seconds(1)))
    }

    func testExplicitStartsAndStops() {
        let plan = CrossTrafficPlan([
            CrossFlowSpec(transport: .h3, startAfter: .ms(500), duration: .ms(1000)),
            CrossFlowSpec(transport: .h2, startBefore: .ms(3000), stopAfter: .ms(4000)),
            CrossFlowSpec(transport: .h2, startAfter: .ms(5000)),
        ])
        XCTAssertEqual(plan.timings[0], .init(start: .milliseconds(500), stop: .milliseconds(1500)))
        XCTAssertEqual(plan.timings[1], .init(start: -.seconds(3), stop: .seconds(4)))
        XCTAssertEqual(plan.lead, .seconds(3), "the earliest start sets the lead")
        // The page outlives the first flow's duration: it still stops at its own time.
        XCTAssertEqual(plan.stop(of: 0, pageEnd: .seconds(10)), .milliseconds(1500))
        // A flow starting after the page ended never runs: its stop is its start.
        XCTAssertEqual(plan.stop(of: 2, pageEnd: .seconds(2)), .seconds(5))
        XCTAssertEqual(plan.lastStop(pageEnd: .seconds(2)), .seconds(5))
    }

    func testNoFlowStartsBeforeThePageMeansNoLead() {
        XCTAssertEqual(CrossTrafficPlan([CrossFlowSpec(transport: .h2, startAfter: .ms(100))]).lead, 0)
        XCTAssertEqual(CrossTrafficPlan([]).lead, 0)
    }

    func testValidationNamesTheKeyPath() throws {
        var p = Profile(
            name: "x", rtt: .ms(30), down: BitrateValue(bitsPerSecond: 1e7), up: BitrateValue(bitsPerSecond: 1e7))
        p.crossTraffic = [
            CrossFlowSpec(transport: .h3, congestionControl: "vegas"),
            CrossFlowSpec(transport: .h2, startBefore: .ms(1), startAfter: .ms(1)),
            CrossFlowSpec(transport: .h2, startAfter: .ms(2000), stopAfter: .ms(1000)),
            CrossFlowSpec(transport: .h2, direction: .upload, duration: .ms(0)),
        ]
        XCTAssertThrowsError(try p.validate(file: "p.json")) { e in
            let m = "\(e)"
            XCTAssertTrue(m.contains("p.json: crossTraffic[0].congestionControl: 'vegas'"), m)
            XCTAssertTrue(m.contains("crossTraffic[1].startAfter"), m)
            XCTAssertTrue(m.contains("crossTraffic[2].stopAfter"), m)
            XCTAssertTrue(m.contains("crossTraffic[3].duration"), m)
        }
        p.crossTraffic = [
            CrossFlowSpec(transport: .h3, congestionControl: "bbr2"),
            CrossFlowSpec(transport: .h2, congestionControl: "bbr"),
            CrossFlowSpec(transport: .h2, direction: .upload), CrossFlowSpec(transport: .h3, direction: .upload),
        ]
        XCTAssertNoThrow(try p.validate(file: "p.json"))
    }

    func testProfileDecodesCrossTraffic() throws {
        let json =
            #"{"schemaVersion":1,"name":"x","rtt":"30ms","down":"10Mbit","up":"10Mbit","crossTraffic":[{"transport":"h"#
                + #"3","congestionControl":"bbr","startBefore":"1s","duration":"5s"}]}"#
        let p = try JSONDecoder().decode(Profile.self, from: Data(json.utf8))
        XCTAssertEqual(p.crossTraffic?.first?.transport, .h3)
        XCTAssertEqual(CrossTrafficPlan(p.crossTraffic ?? []).timings, [.init(start: -.seconds(1), stop: .seconds(4))])
    }

    func testThroughputBinsCountBytesPerHundredMilliseconds() {
        var b = ThroughputBins()
        b.add(1000, at: .milliseconds(10))
        b.add(500, at: .milliseconds(99.9))
        b.add(200, at: .milliseconds(250))
        b.add(7, at: -.milliseconds(3))  // before the origin: bin 0
        XCTAssertEqual(b.bins, [1507, 0, 200])
        XCTAssertEqual(b.total, 1707)
    }
}
