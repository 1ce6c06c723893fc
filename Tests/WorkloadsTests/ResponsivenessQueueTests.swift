import XCTest
import BenchCore
import BenchModel
import LinkModel
@testable import Runner
@testable import Testbed
@testable import Workloads

/// Queue sizes of `netbench responsiveness`, relative to the profile's link.
final class ResponsivenessQueueTests: XCTestCase {
    func testParsing() {
        XCTAssertEqual(ResponsivenessQueue("bdp"), .bdp(multiple: 1))
        XCTAssertEqual(ResponsivenessQueue("4BDP"), .bdp(multiple: 4))
        XCTAssertEqual(ResponsivenessQueue("1s"), .drainTime(.seconds(1)))
        XCTAssertEqual(ResponsivenessQueue("250ms"), .drainTime(.milliseconds(250)))
        XCTAssertNil(ResponsivenessQueue("xbdp"))
        XCTAssertNil(ResponsivenessQueue("0bdp"))
        XCTAssertNil(ResponsivenessQueue("big"))
        XCTAssertEqual(ResponsivenessQueue("droptail:4bdp"), .bdp(multiple: 4))
        XCTAssertEqual(ResponsivenessQueue("drophead:1s"), .dropHead(.drainTime(.seconds(1))))
        XCTAssertEqual(ResponsivenessQueue("fq_codel"), .aqm(.fq_codel))
        XCTAssertEqual(ResponsivenessQueue("PIE"), .aqm(.pie))
        XCTAssertNil(ResponsivenessQueue("codel:bdp"))
        XCTAssertNil(ResponsivenessQueue("red"))
    }

    func testDisciplinesAppliedToAProfile() throws {
        let cable = Profile(
            name: "cable", rtt: .ms(40), down: BitrateValue(bitsPerSecond: 50e6), up: BitrateValue(bitsPerSecond: 5e6),
            queue: .packets(25))
        let fq = try XCTUnwrap(ResponsivenessQueue.aqm(.fq_codel).applied(to: cable))
        XCTAssertEqual(fq.queue, .discipline(QueueDisciplineSpec(discipline: "fq_codel").withDefaults()))
        XCTAssertEqual(fq.name, "cable-fq_codel")
        let head = try XCTUnwrap(ResponsivenessQueue("drophead:bdp")?.applied(to: cable))
        var spec = QueueDisciplineSpec(discipline: "drophead")
        spec.limit = .bytes(250_000)
        XCTAssertEqual(head.queue, .discipline(spec))
        // The link model gets what the profile says.
        let path = try ProfileLink.path(named: "wifi", from: fq)
        XCTAssertEqual(path.downlink.discipline, .fqCodel(.init()))
    }

    func testSizesFollowTheLink() {
        // 50 Mbit/s × 40 ms = 250,000 bytes; 4 BDP = 1,000,000; 1 s at 50 Mbit/s = 6,250,000.
        XCTAssertEqual(
            ResponsivenessQueue.bdp(multiple: 1).bytes(bitsPerSecond: 50e6, roundTrip: .milliseconds(40)), 250_000)
        XCTAssertEqual(
            ResponsivenessQueue.bdp(multiple: 4).bytes(bitsPerSecond: 50e6, roundTrip: .milliseconds(40)), 1_000_000)
        XCTAssertEqual(
            ResponsivenessQueue.drainTime(.seconds(1)).bytes(bitsPerSecond: 50e6, roundTrip: .milliseconds(40)),
            6_250_000)
        // A small BDP gets the emulator's floor of 30 packets, as its default queue does.
        XCTAssertEqual(
            ResponsivenessQueue.bdp(multiple: 1).bytes(bitsPerSecond: 10e6, roundTrip: .milliseconds(30)), 45_000)
    }

    func testAppliedToAProfile() throws {
        let interop = Profile(
            name: "interop", rtt: .ms(30), down: BitrateValue(bitsPerSecond: 10e6),
            up: BitrateValue(bitsPerSecond: 10e6),
            queue: .packets(25))
        let p = try XCTUnwrap(ResponsivenessQueue.drainTime(.seconds(1)).applied(to: interop))
        XCTAssertEqual(p.queue, .bytes(1_250_000))
        XCTAssertEqual(p.name, "interop-1000ms")
        XCTAssertNil(ResponsivenessQueue.bdp(multiple: 1).applied(to: Profile(name: "t", rtt: .ms(30), downTrace: "x")))
    }
}
