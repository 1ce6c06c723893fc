import XCTest
import BenchCore
@testable import BenchModel

/// The ideal's arithmetic, number by number, on a page small enough to work out by hand:
/// 100 ms RTT, 8 Mbit/s (1,000 bytes = 1 ms of serialization).
///
///     doc  www  10,000 B  think 20 ms                  (root)
///     css  www   5,000 B  revealed after 2,000 B of doc (same connection: 1 RTT)
///     img  cdn  20,000 B  revealed at the end of doc    (new origin: a full handshake)
final class IdealPageLoadTests: XCTestCase {
    let page = Scenario(
        name: "hand", origins: [.init(id: "www", host: "www.hand.test"), .init(id: "cdn", host: "cdn.hand.test")],
        resources: [
            .init(id: "doc", origin: "www", path: "/", bytes: 10_000, type: .document, thinkTimeMs: 20),
            .init(
                id: "css", origin: "www", path: "/a.css", bytes: 5_000, type: .stylesheet, parent: "doc",
                revealAfterBytes: 2_000),
            .init(id: "img", origin: "cdn", path: "/b.gif", bytes: 20_000, type: .image, parent: "doc"),
        ])

    func ideal(_ t: TransportKind, zeroRTT: Bool = false, rate: Double? = 8_000_000, rtt: Double = 100) -> IdealPageLoad
    {
        IdealPageLoad(rttMs: rtt, downlinkBitsPerSecond: rate, transport: t, zeroRTT: zeroRTT)
    }

    func testHandshakeRoundTrips() {
        XCTAssertEqual(TransportKind.h1.handshakeRoundTrips(), 3)  // TCP + TLS 1.3 + request
        XCTAssertEqual(TransportKind.h2.handshakeRoundTrips(), 3)
        XCTAssertEqual(TransportKind.h3.handshakeRoundTrips(), 2)  // QUIC+TLS + request
        XCTAssertEqual(TransportKind.h3.handshakeRoundTrips(zeroRTT: true), 1)
        XCTAssertEqual(TransportKind.h2.handshakeRoundTrips(tls12: true), 4)
    }

    func testTCPPageCriticalPath() {
        // doc: 300 handshake + 20 think = 320 first byte, +10 = 330; css: asked at 322 on the open
        // connection, 422 + 5 = 427; img: asked at 330 on a new origin, 630 + 20 = 650.
        XCTAssertEqual(ideal(.h2).ttfbMs(page), 320, accuracy: 1e-9)
        XCTAssertEqual(ideal(.h2).pltMs(page), 650, accuracy: 1e-9)
        XCTAssertEqual(ideal(.h1).pltMs(page), 650, accuracy: 1e-9)
    }

    func testQUICPageCriticalPath() {
        XCTAssertEqual(ideal(.h3).ttfbMs(page), 220, accuracy: 1e-9)
        XCTAssertEqual(ideal(.h3).pltMs(page), 450, accuracy: 1e-9)  // 230 + 200 + 20
        XCTAssertEqual(ideal(.h3, zeroRTT: true).ttfbMs(page), 120, accuracy: 1e-9)
        XCTAssertEqual(ideal(.h3, zeroRTT: true).pltMs(page), 250, accuracy: 1e-9)  // 130 + 100 + 20
    }

    func testWithoutARateOnlyRoundTripsAndThinkTimeCount() {
        // doc 0.3 + 20 = 20.3 (its body is free); img: a new origin from 20.3, 0.3 more.
        XCTAssertEqual(ideal(.h1, rate: nil, rtt: 0.1).pltMs(page), 20.6, accuracy: 1e-9)
    }

    func testSerializationOfTheWholePageBoundsALongPage() {
        // At 80 kbit/s (1,000 B = 100 ms) the 35,000 bytes take 3,500 ms: more than any one path's
        // own serialization, so the whole-page term (3,500 + the 320 ms TTFB) is the bound.
        let slow = ideal(.h2, rate: 80_000)
        XCTAssertEqual(slow.pltMs(page), 3_500 + 320, accuracy: 1e-9)
    }

    func testBulkTransferIsHandshakePlusSerialization() {
        let bulk = Scenario(
            name: "bulk", origins: [.init(id: "o", host: "o.test")], resources: [],
            bulk: .init(direction: .download, bytes: 1_000_000))
        XCTAssertEqual(ideal(.h1).pltMs(bulk), 300 + 1_000, accuracy: 1e-9)
        XCTAssertEqual(ideal(.h3).pltMs(bulk), 200 + 1_000, accuracy: 1e-9)
    }

    /// 100 MB over 1 Gbit/s (125,000 bytes per ms) and 10 ms from a sender whose window starts at
    /// 24,000 bytes: a window fills the link from 1.25 MB, so cubic (×2) sends 24,000 × (1 + 2 + … +
    /// 32) = 1,512,000 bytes in 6 round trips and BBR (×3) 24,000 × (1 + 3 + 9 + 27) = 960,000 in 4;
    /// the rest goes at the rate.
    func testABulkDownloadFromAKnownSenderCountsItsSlowStart() {
        let scenario = { (direction: Scenario.Bulk.Direction, bytes: Int64) in
            Scenario(
                name: "bulk", origins: [.init(id: "o", host: "o.test")], resources: [],
                bulk: .init(direction: direction, bytes: bytes))
        }
        let big = scenario(.download, 100_000_000)
        var h1 = IdealPageLoad(rttMs: 10, downlinkBitsPerSecond: 1e9, transport: .h1)
        XCTAssertEqual(h1.pltMs(big), 30 + 800, accuracy: 1e-9, "no sender known: serialization alone")
        XCTAssertEqual(h1.modelDescription(for: big).contains("not counted"), true)
        h1.slowStart = .sender(congestionControl: "cubic")
        XCTAssertEqual(h1.slowStart?.initialWindowBytes, 24_000)
        XCTAssertEqual(h1.pltMs(big), 30 + 6 * 10 + 98_488_000 / 125_000, accuracy: 1e-9)
        XCTAssertEqual(
            h1.modelDescription(for: big),
            "handshake, the sender's slow start (from 24 KB in flight, at most ×2 per round trip) and the rest "
                + "of the body's serialization")
        var h3 = IdealPageLoad(rttMs: 10, downlinkBitsPerSecond: 1e9, transport: .h3)
        h3.slowStart = .sender(congestionControl: "bbr")
        XCTAssertEqual(h3.pltMs(big), 20 + 4 * 10 + 99_040_000 / 125_000, accuracy: 1e-9)
        XCTAssertEqual(IdealPageLoad.SlowStart.sender(congestionControl: nil).growthPerRound, 3, "unknown: BBR's")
        XCTAssertEqual(IdealPageLoad.SlowStart.sender(congestionControl: "reno").growthPerRound, 2)
        // A body the ramp carries whole: 24,000 bytes, then the last 26,000 one round trip later.
        XCTAssertEqual(h1.pltMs(scenario(.download, 50_000)), 30 + 10 + 26_000.0 / 125_000, accuracy: 1e-9)
        // An upload's sender is the client: its serialization alone; a page keeps its model.
        XCTAssertEqual(h1.pltMs(scenario(.upload, 100_000_000)), 30 + 800, accuracy: 1e-9)
        XCTAssertEqual(h1.modelDescription(for: page), h1.modelDescription)
    }
}
