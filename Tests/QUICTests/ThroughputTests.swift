import BenchCore
import Foundation
import QUIC
import XCTest

/// Measures (prints, does not assert) how fast one thread moves a large response through an
/// HTTP3Client and an HTTP3Server: the in-memory wire costs nothing in virtual time, so the
/// wall-clock time is the engines' CPU cost (encryption, framing, ACK processing).
final class ThroughputTests: XCTestCase {
    func testInMemoryThroughput100MB() throws {
        let size = Int(ProcessInfo.processInfo.environment["NETBENCH_QUIC_THROUGHPUT_BYTES"] ?? "") ?? 100_000_000
        let net = VirtualNetwork(server: try makeServer(now: Instant(nanoseconds: 1_000_000_000)),
                                 at: serverAddress, oneWayDelay: .microseconds(500))
        let probe = net.add(try makeClient(now: net.now), at: clientAddress)
        XCTAssertTrue(net.run(for: .seconds(5)) { probe.handshakeDone })
        let stream = try probe.client.submitRequest(authority: "localhost", path: "/bytes/\(size)")
        let wallStart = Instant.now()
        let virtualStart = net.now
        XCTAssertTrue(net.run(for: .seconds(600)) { probe.finished.contains(stream) || probe.closedWith != nil })
        let wall = Instant.now().since(wallStart)
        XCTAssertEqual(probe.bytes[stream], size)
        let mbps = Double(size) / 1e6 / (Double(wall) / 1e9)
        let stats = probe.client.statistics
        print("QUIC in-memory throughput: \(size / 1_000_000) MB in \(Units.format(Double(wall) / 1e6, 1)) ms wall "
              + "= \(Units.format(mbps, 1)) MB/s (one thread, client+server; virtual transfer time "
              + "\(Units.format(net.now.since(virtualStart).inMilliseconds, 1)) ms; "
              + "\(stats.datagramsReceived) datagrams received by the client)")
    }
}
