import BenchCore
import QUIC
import XCTest

let serverAddress = Endpoint(address: 0x0A00_0001, port: 443)
let clientAddress = Endpoint(address: 0x0A00_0102, port: 50_000)

func makeServer(_ config: QUICConfiguration = QUICConfiguration(), now: Instant) throws -> HTTP3Server {
    try HTTP3Server(config: config, credentials: [TestPKI.shared.credentials], now: now)
}

func makeClient(
    _ config: QUICConfiguration = QUICConfiguration(), local: Endpoint = clientAddress,
    serverName: String = "localhost", resumption: QUICResumptionState? = nil,
    now: Instant
) throws -> HTTP3Client {
    try HTTP3Client(
        config: config, trustedRootsPEM: TestPKI.shared.caPEM, serverName: serverName,
        local: local, remote: serverAddress, resumption: resumption, now: now)
}

final class InMemoryTransferTests: XCTestCase {
    func testHandshakeCompletes() throws {
        let net = VirtualNetwork(server: try makeServer(now: Instant(nanoseconds: 1_000_000_000)), at: serverAddress)
        let probe = net.add(try makeClient(now: net.now), at: clientAddress)
        let start = net.now
        XCTAssertTrue(net.run(for: .seconds(5)) { probe.handshakeDone })
        XCTAssertTrue(probe.client.isHandshakeComplete)
        XCTAssertNil(probe.closedWith)
        let elapsed = probe.client.handshakeCompletedAt!.since(start)
        // 1 RTT (20 ms) for the client to complete; allow pacing slack.
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(20))
        XCTAssertLessThan(elapsed, .milliseconds(60))
        // The server completes half an RTT later, when the client's Finished arrives.
        XCTAssertTrue(
            net.run(for: .seconds(1)) {
                net.serverEvents.contains { if case .handshakeCompleted = $0 { return true } else { return false } }
            })
        let stats = probe.client.statistics
        XCTAssertNotNil(stats.smoothedRTT)
        XCTAssertGreaterThan(stats.datagramsSent, 0)
    }

    func testConcurrentRequestsOfMixedSizesArriveExactly() throws {
        try runMixedTransfer(lossRate: 0)
    }

    func testMixedTransferSurvivesFivePercentLoss() throws {
        try runMixedTransfer(lossRate: 0.05)
    }

    func testBatchedWritesFollowGSORulesAndSurviveLoss() throws {
        let net = try runMixedTransfer(lossRate: 0.05, batched: true)
        XCTAssertEqual(net.batchViolations, [])
        XCTAssertGreaterThan(net.largestBatch, 1, "some batches carry several datagrams")
        XCTAssertLessThanOrEqual(net.largestBatch, 40)
    }

    @discardableResult
    private func runMixedTransfer(lossRate: Double, batched: Bool = false) throws -> VirtualNetwork {
        let net = VirtualNetwork(server: try makeServer(now: Instant(nanoseconds: 1_000_000_000)), at: serverAddress)
        net.lossRate = lossRate
        net.batched = batched
        let probe = net.add(try makeClient(now: net.now), at: clientAddress)
        let sizes = [0, 1, 100_000, 5_000_000]
        var expected: [Int64: Int] = [:]
        for i in 0..<30 {
            let size = sizes[i % sizes.count]
            let stream = try probe.client.submitRequest(authority: "localhost", path: "/bytes/\(size)")
            expected[stream] = size
        }
        XCTAssertEqual(Set(expected.keys).count, 30)
        let ok = net.run(for: .seconds(120)) { probe.finished.count == 30 || probe.closedWith != nil }
        XCTAssertTrue(ok, "finished \(probe.finished.count) of 30")
        XCTAssertNil(probe.closedWith)
        for (stream, size) in expected {
            XCTAssertEqual(probe.status[stream], 200, "stream \(stream)")
            XCTAssertEqual(probe.bytes[stream] ?? 0, size, "stream \(stream)")
            XCTAssertTrue(probe.finished.contains(stream))
            XCTAssertEqual(probe.headers[stream]?.first { $0.0 == "content-length" }?.1, String(size))
        }
        let handle = net.serverEvents.compactMap { e -> HTTP3ConnectionHandle? in
            if case .connectionOpened(let c, _) = e { return c } else { return nil }
        }.first
        let serverStats = try XCTUnwrap(net.server.statistics(for: XCTUnwrap(handle)))
        XCTAssertGreaterThan(serverStats.bytesSent, 35_000_000)
        XCTAssertGreaterThan(serverStats.congestionWindow, 0)
        if lossRate > 0 {
            XCTAssertGreaterThan(net.dropped, 100, "the loss process should have dropped datagrams")
            XCTAssertGreaterThan(serverStats.streamFramesLost, 0, "the server should have seen losses")
        } else {
            XCTAssertEqual(serverStats.streamFramesLost, 0)
        }
        return net
    }
}
