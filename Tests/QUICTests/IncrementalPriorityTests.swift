import BenchCore
import QUIC
import XCTest

/// RFC 9218's incremental flag through the real server (nghttp3's scheduler): two responses of the
/// same urgency asked for with `i` are interleaved, without it sent one after the other. The
/// built-in client sends `i` where Chromium does (`Scenario.Resource.chromiumIncremental`).
final class IncrementalPriorityTests: XCTestCase {
    /// Whether any of the second response's data arrived before the first response's last data.
    private func interleaved(priority: String) throws -> Bool {
        let net = VirtualNetwork(server: try makeServer(now: Instant(nanoseconds: 1_000_000_000)), at: serverAddress)
        let probe = net.add(try makeClient(now: net.now), at: clientAddress)
        XCTAssertTrue(net.run(for: .seconds(5)) { probe.handshakeDone })
        let size = 400_000
        let a = try probe.client.submitRequest(
            authority: "localhost", path: "/bytes/\(size)", headers: [("priority", priority)])
        let b = try probe.client.submitRequest(
            authority: "localhost", path: "/bytes/\(size)", headers: [("priority", priority)])
        XCTAssertTrue(net.run(for: .seconds(60)) { probe.finished.isSuperset(of: [a, b]) || probe.closedWith != nil })
        XCTAssertEqual(probe.bytes[a], size)
        XCTAssertEqual(probe.bytes[b], size)
        let order = probe.events.compactMap { e -> Int64? in
            if case .data(let s, let n) = e, n > 0 { return s }
            return nil
        }
        let lastOfA = try XCTUnwrap(order.lastIndex(of: a))
        let firstOfB = try XCTUnwrap(order.firstIndex(of: b))
        return firstOfB < lastOfA
    }

    func testIncrementalResponsesOfOneUrgencyAreInterleaved() throws {
        XCTAssertTrue(try interleaved(priority: "u=2, i"))
    }

    func testNonIncrementalResponsesOfOneUrgencyGoOneAfterTheOther() throws {
        XCTAssertFalse(try interleaved(priority: "u=2"))
    }
}
