import BenchCore
import HTTPCodec
import XCTest

/// A server's `HTTP2Limits` in memory, in virtual time: rapid reset and SETTINGS floods get
/// GOAWAY ENHANCE_YOUR_CALM, a header list past the limit resets its stream and is never stored.
final class HTTP2LimitsTests: XCTestCase {
    private func server(_ limits: HTTP2Limits) throws -> (HTTP2Connection, HTTP2Connection) {
        (try HTTP2Connection(role: .client), try HTTP2Connection(role: .server, limits: limits))
    }

    /// The client opens and resets `count` streams; the bytes reach the server at one instant.
    private func resets(_ count: Int, client: HTTP2Connection) throws -> [UInt8] {
        var bytes = try client.takeOutbound()
        for _ in 0..<count {
            let id = try client.submitRequest(authority: "a.test", path: "/")
            bytes += try client.takeOutbound()
            try client.submitReset(stream: id)
            bytes += try client.takeOutbound()
        }
        return bytes
    }

    func testRapidResetGetsEnhanceYourCalm() throws {
        let (client, server) = try server(HTTP2Limits(maxResetsPerSecond: 10))
        var events = try server.receive(resets(30, client: client), now: Instant(nanoseconds: 5_000_000_000))
        _ = try server.takeOutbound()
        events += server.takeEvents()
        let calm = events.contains {
            if case .connectionError(.enhanceYourCalm, let reason) = $0 { reason.contains("RST_STREAM") } else { false }
        }
        XCTAssertTrue(calm, "\(events)")
        XCTAssertFalse(server.wantsRead)
        let requests = events.filter { if case .request = $0 { true } else { false } }.count
        XCTAssertLessThanOrEqual(requests, 11, "requests after the 11th RST_STREAM were not read")
    }

    func testResetsSpreadOverSecondsAreAllowed() throws {
        let (client, server) = try server(HTTP2Limits(maxResetsPerSecond: 10))
        _ = try server.receive(try client.takeOutbound(), now: Instant(nanoseconds: 1))
        for second in 1...5 {
            let events = try server.receive(
                resets(10, client: client), now: Instant(nanoseconds: UInt64(second) * 1_000_000_000))
            _ = try server.takeOutbound()
            XCTAssertFalse(
                (events + server.takeEvents()).contains { if case .connectionError = $0 { true } else { false } })
        }
        XCTAssertTrue(server.wantsRead)
    }

    func testSettingsFloodGetsEnhanceYourCalm() throws {
        let (client, server) = try server(HTTP2Limits(maxControlFramesPerSecond: 50))
        var bytes = try client.takeOutbound()
        let settings: [UInt8] = [0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 100]  // MAX_CONCURRENT_STREAMS 100
        for _ in 0..<100 { bytes += settings }
        var events = try server.receive(bytes, now: Instant(nanoseconds: 1))
        _ = try server.takeOutbound()
        events += server.takeEvents()
        XCTAssertTrue(
            events.contains { if case .connectionError(.enhanceYourCalm, _) = $0 { true } else { false } }, "\(events)")
    }

    func testHeaderListOverTheLimitResetsTheStream() throws {
        let (client, server) = try server(HTTP2Limits(maxHeaderListSize: 4096))
        var headers = HTTPHeaders()
        headers.add(name: "x-big", value: String(repeating: "v", count: 5000))
        _ = try client.submitRequest(authority: "a.test", path: "/big", headers: headers)
        let small = try client.submitRequest(authority: "a.test", path: "/small")
        var events = try server.receive(try client.takeOutbound(), now: Instant(nanoseconds: 1))
        _ = try server.takeOutbound()
        events += server.takeEvents()
        let paths = events.compactMap { if case .request(_, let head, _) = $0 { head.target } else { nil } }
        XCTAssertEqual(paths, ["/small"])
        XCTAssertTrue(
            events.contains { if case .streamClosed(1, let code) = $0 { code != .noError } else { false } }, "\(events)"
        )
        XCTAssertTrue(server.wantsRead, "one stream is reset, the connection carries on (stream \(small) answered)")
    }
}
