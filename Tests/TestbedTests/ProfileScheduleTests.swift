import XCTest
import BenchCore
import BenchModel
import LinkModel
import Testbed

final class ProfileScheduleTests: XCTestCase {
    let paths = [
        PathConfiguration.symmetric(name: "wifi", roundTrip: .milliseconds(20)),
        PathConfiguration.symmetric(name: "cell", roundTrip: .milliseconds(60)),
    ]

    func testASwitchActivatesTheNewPathAndTakesTheOldDown() {
        var p = Profile(name: "switch")
        p.events = [.init(at: DurationValue(nanoseconds: .milliseconds(400)), type: .switch, to: "cell")]
        let events = ProfileSchedule.events(of: p, firstPath: "wifi")
        XCTAssertEqual(
            events,
            [
                PathEvent(at: .milliseconds(400), path: "cell", action: .activate),
                PathEvent(at: .milliseconds(400), path: "wifi", action: .down),
            ])
        // One cycle: the last event plus the first one's lead-in.
        XCTAssertEqual(ProfileSchedule.loopPeriod(events: events, paths: paths), .milliseconds(800))
        let second = ProfileSchedule.cycle(2, period: .milliseconds(800), events: events, paths: paths)
        XCTAssertEqual(
            second,
            [
                PathEvent(at: .milliseconds(1600), path: "wifi", action: .up),
                PathEvent(at: .milliseconds(1600), path: "cell", action: .up),
                PathEvent(at: .milliseconds(1600), path: "wifi", action: .activate),
                PathEvent(at: .milliseconds(2000), path: "cell", action: .activate),
                PathEvent(at: .milliseconds(2000), path: "wifi", action: .down),
            ])
    }

    func testOutageWindowsLoopAsDownAndUp() {
        var wifi = PathConfiguration.symmetric(name: "wifi", roundTrip: .milliseconds(20))
        wifi.uplink.outages = [Outage(start: .seconds(1), end: .seconds(3))]
        wifi.downlink.outages = wifi.uplink.outages
        XCTAssertEqual(ProfileSchedule.loopPeriod(events: [], paths: [wifi]), .seconds(4))
        XCTAssertEqual(
            ProfileSchedule.cycle(1, period: .seconds(4), events: [], paths: [wifi]),
            [
                PathEvent(at: .seconds(4), path: "wifi", action: .up),
                PathEvent(at: .seconds(4), path: "wifi", action: .activate),
                PathEvent(at: .seconds(5), path: "wifi", action: .down),
                PathEvent(at: .seconds(7), path: "wifi", action: .up),
            ])
    }

    func testNothingTimedHasNoLoop() {
        XCTAssertNil(ProfileSchedule.loopPeriod(events: [], paths: paths))
        XCTAssertNil(
            ProfileSchedule.loopPeriod(events: [PathEvent(at: 0, path: "wifi", action: .rebindPort)], paths: paths))
    }
}
