import XCTest
@testable import Statistics

/// The draft's aggregation (draft-ietf-ippm-responsiveness-08, "Aggregating the Measurements") on a
/// worked example computed by hand: each probe kind is trimmed on its own (TMP 95%: of 20 samples
/// the slowest one goes), then Foreign = 60000 / mean of the foreign TMs, Loaded = 60000 / TM(http_l),
/// RPM = (Foreign + Loaded) / 2.
final class ResponsivenessFormulaTests: XCTestCase {
    /// 19 samples around `typical` (typical−9 … typical+9, mean `typical`) and one slow outlier.
    private func samples(_ typical: Double, outlier: Double) -> [Double] {
        (-9...9).map { typical + Double($0) }.shuffled() + [outlier]
    }

    func testTheTLSCaseTrimsEachKindThenAveragesForeignAndSelf() throws {
        let s = Responsiveness.Samples(
            handshakes: [samples(20, outlier: 900), samples(25, outlier: 400)],
            foreignHTTP: samples(45, outlier: 3000), selfHTTP: samples(240, outlier: 9000))
        let r = try XCTUnwrap(Responsiveness.compute(s))
        // TM(tcp_f) = 20, TM(tls_f) = 25, TM(http_f) = 45: foreign = 60000 / 30 = 2000.
        XCTAssertEqual(r.handshakeMs[0], 20, accuracy: 1e-9)
        XCTAssertEqual(r.handshakeMs[1], 25, accuracy: 1e-9)
        XCTAssertEqual(r.foreignHTTPMs, 45, accuracy: 1e-9)
        XCTAssertEqual(r.foreignRPM, 2000, accuracy: 1e-9)
        // TM(http_l) = 240: loaded = 250; RPM = (2000 + 250) / 2 = 1125.
        XCTAssertEqual(r.selfHTTPMs, 240, accuracy: 1e-9)
        XCTAssertEqual(r.selfRPM, 250, accuracy: 1e-9)
        XCTAssertEqual(r.rpm, 1125, accuracy: 1e-9)
    }

    func testTheTwoTermCaseGivesEachForeignTermHalfTheWeight() throws {
        // QUIC (as the draft's TCP-only case): TM(quic_f) = 40, TM(http_f) = 20 → 60000 / 30 = 2000;
        // TM(http_l) = 600 → 100; RPM 1050.
        let s = Responsiveness.Samples(
            handshakes: [samples(40, outlier: 5000)], foreignHTTP: samples(20, outlier: 700),
            selfHTTP: samples(600, outlier: 20000))
        let r = try XCTUnwrap(Responsiveness.compute(s))
        XCTAssertEqual(r.foreignRPM, 2000, accuracy: 1e-9)
        XCTAssertEqual(r.selfRPM, 100, accuracy: 1e-9)
        XCTAssertEqual(r.rpm, 1050, accuracy: 1e-9)
    }

    func testWithoutSelfProbesThereIsNoRPM() {
        XCTAssertNil(Responsiveness.compute(.init(handshakes: [[10], [10]], foreignHTTP: [10], selfHTTP: [])))
    }
}
