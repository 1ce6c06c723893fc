import Foundation
import XCTest
import BenchCore
import BenchModel

/// The handshake part of the ideal per TLS version and resumption, and where there is no bound.
final class IdealBoundsTests: XCTestCase {
    private let page = #"""
        { "schemaVersion": 1, "name": "one", "origins": [ {"id": "o", "host": "o.test"} ],
          "resources": [ {"id": "doc", "origin": "o", "path": "/", "bytes": 1000, "type": "document"} ] }
        """#
    private let bulk = #"""
        { "schemaVersion": 1, "name": "bulk", "origins": [ {"id": "b", "host": "b.test"} ], "resources": [],
          "bulk": {"bytes": 100000000, "direction": "download"} }
        """#

    func testTLS12TakesFourRoundTripsAndThreeResumed() throws {
        let s = try loadScenario(page)
        for t in [TransportKind.h1, .h2] {
            let full = IdealPageLoad(rttMs: 50, downlinkBitsPerSecond: nil, transport: t, tls12: true)
            XCTAssertEqual(full.handshakeRoundTrips, 4, "TCP + 2-RTT TLS 1.2 handshake + request")
            XCTAssertEqual(full.ttfbMs(s), 200, accuracy: 1e-9)
            XCTAssertEqual(full.pltMs(s), 200, accuracy: 1e-9)
            let resumed = IdealPageLoad(rttMs: 50, downlinkBitsPerSecond: nil, transport: t, tls12: true, resumed: true)
            XCTAssertEqual(resumed.ttfbMs(s), 150, accuracy: 1e-9, "abbreviated handshake: 1 RTT")
            let tls13 = IdealPageLoad(rttMs: 50, downlinkBitsPerSecond: nil, transport: t)
            XCTAssertEqual(tls13.ttfbMs(s), 150, accuracy: 1e-9)
            let tls13Resumed = IdealPageLoad(rttMs: 50, downlinkBitsPerSecond: nil, transport: t, resumed: true)
            XCTAssertEqual(tls13Resumed.ttfbMs(s), 150, accuracy: 1e-9, "no TLS early data: still 3 RTT")
        }
        XCTAssertEqual(
            IdealPageLoad(rttMs: 50, downlinkBitsPerSecond: nil, transport: .h3, tls12: true).handshakeRoundTrips, 2,
            "QUIC is always TLS 1.3")
    }

    func testBulkTransferOnLoopbackHasNoRateBound() throws {
        let s = try loadScenario(bulk)
        let loopback = IdealPageLoad(rttMs: 0.05, downlinkBitsPerSecond: nil, transport: .h2)
        XCTAssertNotNil(loopback.missingBound(s), "without a bottleneck rate the handshake is all the bound would hold")
        let emulated = IdealPageLoad(rttMs: 40, downlinkBitsPerSecond: 100e6, transport: .h2)
        XCTAssertNil(emulated.missingBound(s))
        XCTAssertEqual(emulated.pltMs(s), 3 * 40 + 8_000, accuracy: 1e-6, "100 MB at 100 Mbit/s after the handshake")
        XCTAssertNil(loopback.missingBound(try loadScenario(page)), "a page's round trips are a bound without a rate")
    }
}
