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
}
