@testable import QUIC
import XCTest

/// `--quic-pacing`: the gains' text form, and the timestamp that turns ngtcp2's 1.25 × cwnd/srtt
/// pacing into another gain's (or none).
final class PacingGainTests: XCTestCase {
    func testParsingAndDescriptionRoundTrip() {
        XCTAssertEqual(QUICPacing(parsing: "2,1.25"), .standard)
        XCTAssertEqual(QUICPacing(parsing: "off"), .off)
        XCTAssertEqual(QUICPacing(parsing: "OFF"), .off)
        XCTAssertEqual(QUICPacing(parsing: "2,off"), QUICPacing(slowStart: 2, congestionAvoidance: .infinity))
        XCTAssertEqual(QUICPacing(parsing: "off,off"), .off)
        for text in ["2,1.25", "off", "2,off", "off,1.25", "1.5,1"] {
            XCTAssertEqual(QUICPacing(parsing: text)?.description, text)
        }
        XCTAssertEqual(QUICPacing.standard.description, "2,1.25")
        for bad in ["", "2", "2,", ",1.25", "0.5,1.25", "2,101", "2,1.25,1", "fast,1", "nan,1", "inf,1"] {
            XCTAssertNil(QUICPacing(parsing: bad), "'\(bad)' is refused")
        }
    }

    func testDefaultsAreTwoInSlowStartAndNgtcp2sAfter() {
        let config = QUICConfiguration()
        XCTAssertEqual(config.pacing, .standard)
        XCTAssertEqual(config.congestionAvoidancePacingGain, 1.25)
    }

    /// ngtcp2 waits written / (1.25 × cwnd/srtt) from the time it is given; the adjusted time makes
    /// the wait from `ts` written / (gain × cwnd/srtt).
    func testPacingTimestampScalesNgtcp2sWaitToTheGain() {
        let ts: UInt64 = 10_000_000_000
        let cwnd: UInt64 = 14_520, srtt: UInt64 = 28_000_000, written = 1_452
        let ngtcp2Wait = Double(written) * Double(srtt) / (Double(cwnd) * 1.25)  // 2.24 ms
        func waitFromTs(_ gain: Double) -> Double {
            let given = QUICConnection.pacingTimestamp(
                ts: ts, written: written, cwnd: cwnd, smoothedRTT: srtt, gain: gain)
            return Double(given) + ngtcp2Wait - Double(ts)
        }
        XCTAssertEqual(waitFromTs(1.25), ngtcp2Wait, "1.25 is ngtcp2's own: unchanged")
        XCTAssertEqual(waitFromTs(2), Double(written) * Double(srtt) / (Double(cwnd) * 2), accuracy: 1)
        XCTAssertEqual(waitFromTs(1), Double(written) * Double(srtt) / Double(cwnd), accuracy: 1)
        XCTAssertLessThanOrEqual(waitFromTs(.infinity), 0, "no pacing: the next packet may leave at once")
        XCTAssertGreaterThan(waitFromTs(.infinity), -1)
        // Nothing to scale before cwnd and an RTT are known.
        XCTAssertEqual(QUICConnection.pacingTimestamp(ts: ts, written: written, cwnd: 0, smoothedRTT: srtt,
            gain: 2), ts)
        XCTAssertEqual(QUICConnection.pacingTimestamp(ts: ts, written: written, cwnd: cwnd, smoothedRTT: 0,
            gain: .infinity), ts)
    }
}
