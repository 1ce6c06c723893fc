import BenchCore
import QUIC
import XCTest

/// The QUIC engines take a datagram's kernel arrival time for their RTT and ACK-delay clock
/// (`receive(…, arrival:)`): when a busy client reads some datagrams 5 ms after they arrived,
/// the server's RTT estimate still measures the 20 ms path, because the client's wait becomes ACK
/// delay the server takes out; told only when it read them, the estimate grows by the waits.
final class ArrivalTimeTests: XCTestCase {
    func testTheRTTEstimateMeasuresThePathNotTheReadersBacklog() throws {
        let told = try download(reportArrival: true)
        let untold = try download(reportArrival: false)
        XCTAssertEqual(told.bytes, 2_000_000)
        XCTAssertEqual(untold.bytes, 2_000_000)
        // Path RTT 20 ms; a third of the datagrams to the client are read 5 ms late.
        XCTAssertLessThan(ms(told.smoothed), 21, "arrival times given: the RTT is the path's")
        XCTAssertGreaterThan(ms(untold.smoothed), ms(told.smoothed) + 1, "read times only: the waits count")
    }

    /// An arrival earlier than anything the engines saw (a clock read before the connections
    /// existed) is clamped, never handed to ngtcp2 as a step back: handshake and transfer complete.
    func testAnArrivalBeforeTheEnginesClockIsClamped() throws {
        let net = VirtualNetwork(server: try makeServer(now: Instant(nanoseconds: 1_000_000_000)), at: serverAddress)
        net.arrivalOverride = Instant(nanoseconds: 1)
        let probe = net.add(try makeClient(now: net.now), at: clientAddress)
        XCTAssertTrue(net.run(for: .seconds(5)) { probe.handshakeDone })
        let stream = try probe.client.submitRequest(authority: "localhost", path: "/bytes/300000")
        XCTAssertTrue(net.run(for: .seconds(10)) { probe.finished.contains(stream) })
        XCTAssertEqual(probe.bytes[stream], 300_000)
        XCTAssertNil(probe.closedWith)
    }

    private func ms(_ n: Nanoseconds) -> Double { Double(n) / 1_000_000 }

    private func download(reportArrival: Bool) throws -> (bytes: Int, smoothed: Nanoseconds) {
        let net = VirtualNetwork(server: try makeServer(now: Instant(nanoseconds: 1_000_000_000)), at: serverAddress)
        net.readLag = .milliseconds(5)
        net.lagEvery = 3
        net.reportArrival = reportArrival
        let probe = net.add(try makeClient(now: net.now), at: clientAddress)
        XCTAssertTrue(net.run(for: .seconds(5)) { probe.handshakeDone })
        let stream = try probe.client.submitRequest(authority: "localhost", path: "/bytes/2000000")
        XCTAssertTrue(net.run(for: .seconds(60)) { probe.finished.contains(stream) }, "the download completes")
        var connection: HTTP3ConnectionHandle?
        for case .connectionOpened(let c, _) in net.serverEvents { connection = c }
        let stats = try XCTUnwrap(connection.flatMap { net.server.statistics(for: $0) })
        print(
            "reportArrival \(reportArrival): server smoothed RTT \(ms(stats.smoothedRTT ?? 0)) ms, min "
                + "\(ms(stats.minRTT ?? 0)) ms"
        )
        return (probe.bytes[stream] ?? 0, stats.smoothedRTT ?? 0)
    }
}

/// Slow start paces at `slowStartPacingGain` × cwnd/srtt (2 by default, as Chromium's and Linux's
/// senders) instead of ngtcp2's 1.25: the same download leaves slow start sooner, every byte
/// arriving exactly once either way.
final class SlowStartPacingTests: XCTestCase {
    func testPacingSlowStartAtTwiceTheRateFinishesSooner() throws {
        let fast = try download(gain: 2)
        let ngtcp2s = try download(gain: 1.25)
        XCTAssertEqual(fast.bytes, 3_000_000)
        XCTAssertEqual(ngtcp2s.bytes, 3_000_000)
        XCTAssertLessThan(fast.time, ngtcp2s.time, "pacing slow start at 2× finishes sooner than at 1.25×")
    }

    private func download(gain: Double) throws -> (bytes: Int, time: Nanoseconds) {
        var config = QUICConfiguration()
        config.slowStartPacingGain = gain
        let net = VirtualNetwork(
            server: try makeServer(config, now: Instant(nanoseconds: 1_000_000_000)), at: serverAddress)
        let probe = net.add(try makeClient(config, now: net.now), at: clientAddress)
        XCTAssertTrue(net.run(for: .seconds(5)) { probe.handshakeDone })
        let start = net.now
        let stream = try probe.client.submitRequest(authority: "localhost", path: "/bytes/3000000")
        XCTAssertTrue(net.run(for: .seconds(60)) { probe.finished.contains(stream) })
        print("slow-start pacing gain \(gain): 3 MB in \(Double(net.now.nanoseconds - start.nanoseconds) / 1e6) ms")
        return (probe.bytes[stream] ?? 0, Nanoseconds(net.now.nanoseconds - start.nanoseconds))
    }
}
