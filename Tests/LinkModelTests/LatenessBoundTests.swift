import XCTest
import BenchCore
@testable import LinkModel

final class LatenessBoundTests: XCTestCase {
    private let ms: Nanoseconds = 1_000_000

    func testTypicalLatenessOnEveryCrossingAndTheTailOnOne() {
        // 3 round trips (TLS 1.3 TTFB) = 6 crossings; 10 packets: the tail strikes one crossing.
        let b = LatenessBound(latenessP50: 50_000, latenessP99: 2 * ms, roundTrips: 3, packets: 10)
        XCTAssertEqual(b.crossings, 6)
        XCTAssertEqual(b.tailCrossings, 1)
        XCTAssertEqual(b.bound, 6 * 50_000 + 1_950_000)
    }

    func testManyPacketsSpreadTheTailOverMoreCrossingsButNotMoreThanExist() {
        let some = LatenessBound(latenessP50: 0, latenessP99: ms, roundTrips: 10, packets: 450)
        XCTAssertEqual(some.tailCrossings, 5)
        XCTAssertEqual(some.bound, 5 * ms)
        let all = LatenessBound(latenessP50: 0, latenessP99: ms, roundTrips: 2, packets: 1_600)
        XCTAssertEqual(all.tailCrossings, 4)
        XCTAssertEqual(all.bound, 4 * ms)
    }

    func testOnlyTheLastPacketsOfASerializedCrossingAreAtRisk() {
        // 5 Mbit/s: a full packet every 2.4 ms; p99 4 ms outlasts 2 packets behind it, so 3 per
        // crossing are at risk: 16 crossings × 3 = 48 packets, 1% of which strikes 1 crossing.
        let spacing = try! XCTUnwrap(LatenessBound.packetSpacing(bitsPerSecond: 5e6))
        XCTAssertEqual(spacing, 2_400_000)
        let b = LatenessBound(
            latenessP50: 50_000, latenessP99: 4 * ms, roundTrips: 8, packets: 1_600, packetSpacing: spacing)
        XCTAssertEqual(b.tailCrossings, 1)
        XCTAssertEqual(b.bound, 16 * 50_000 + (4 * ms - 50_000))
        // Unknown spacing: every packet is at risk, the tail strikes all 16 crossings.
        XCTAssertEqual(
            LatenessBound(latenessP50: 50_000, latenessP99: 4 * ms, roundTrips: 8, packets: 1_600).tailCrossings, 16)
        XCTAssertNil(LatenessBound.packetSpacing(bitsPerSecond: nil))
    }

    func testFlagsOnlyAboveOnePercentOfTheFigure() {
        let b = LatenessBound(latenessP50: 0, latenessP99: ms, roundTrips: 3, packets: 10)  // 1 ms
        XCTAssertTrue(b.couldMove(99 * ms))
        XCTAssertFalse(b.couldMove(100 * ms), "exactly 1% is not more than 1%")
        XCTAssertFalse(b.couldMove(3_500 * ms))
        XCTAssertEqual(b.share(of: 200 * ms)!, 0.005, accuracy: 1e-12)
        XCTAssertNil(b.share(of: 0))
        XCTAssertFalse(b.couldMove(0), "an unknown figure is not judged")
    }

    func testPunctualEmulatorBoundsNothing() {
        let b = LatenessBound(latenessP50: 0, latenessP99: 0, roundTrips: 8, packets: 2_000)
        XCTAssertEqual(b.bound, 0)
        XCTAssertFalse(b.couldMove(1))
    }

    func testNonsenseInputsDoNotGoNegative() {
        let b = LatenessBound(latenessP50: 2 * ms, latenessP99: ms, roundTrips: -1, packets: -5)
        XCTAssertEqual(b.crossings, 0)
        XCTAssertEqual(b.bound, 0)
    }

    func testPacketsForBytes() {
        XCTAssertEqual(LatenessBound.packets(forBytes: 0), 0)
        XCTAssertEqual(LatenessBound.packets(forBytes: 1), 1)
        XCTAssertEqual(LatenessBound.packets(forBytes: 1_448), 1)
        XCTAssertEqual(LatenessBound.packets(forBytes: 1_449, overhead: 10), 12)
    }
}

final class PredictedRoundTripTests: XCTestCase {
    func testDelaysPlusSerializationEachWay() {
        let cable = PathConfiguration(
            name: "wifi",
            uplink: LinkConfiguration(delay: 14_000_000, rate: .constant(bitsPerSecond: 1e6)),
            downlink: LinkConfiguration(delay: 14_000_000, rate: .constant(bitsPerSecond: 5e6)))
        // 92 bytes: 736 µs at 1 Mbit/s, 147.2 µs at 5 Mbit/s.
        XCTAssertEqual(cable.predictedRoundTrip(packetBytes: 92), 28_000_000 + 736_000 + 147_200)
        let free = PathConfiguration.symmetric(name: "wifi", roundTrip: 40_000_000, rate: .unlimited)
        XCTAssertEqual(free.predictedRoundTrip(packetBytes: 1500), 40_000_000)
    }

    func testUnknownOnATraceLink() throws {
        let trace = try MahimahiTrace(offsetsMs: [1, 2])
        let p = PathConfiguration.symmetric(name: "cell", roundTrip: 40_000_000, rate: .trace(trace))
        XCTAssertNil(p.predictedRoundTrip(packetBytes: 92))
    }
}
