import XCTest
import BenchCore
import SystemIO

/// `Socket.receiveDatagrams` reports when the kernel received a datagram (SO_TIMESTAMPNS, on the
/// monotonic clock), not when the process read it: the QUIC engines' RTT clock.
final class DatagramArrivalTests: XCTestCase {
    func testTheArrivalIsTheKernelsNotTheReadersTime() throws {
        let (fd, local) = try Socket.bindUDP(Endpoint(address: Endpoint.loopbackAddress, port: 0))
        defer { Socket.close(fd) }
        XCTAssertTrue(Socket.enableReceiveCoalescing(fd))
        try Socket.enableReceiveTimestamps(fd)
        // The kernel turns receive stamping on a moment later (a deferred static key): until then
        // it stamps a datagram when it is read, which is what the engines got before.
        usleep(100_000)
        let sent = Instant.now()
        let payload = [UInt8](repeating: 7, count: 100)
        _ = try payload.withUnsafeBytes { try Socket.sendDatagram(fd, $0, to: local) }
        usleep(30_000)  // a busy reader
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
        defer { buffer.deallocate() }
        let got = try XCTUnwrap(try Socket.receiveDatagrams(fd, into: buffer))
        let read = Instant.now()
        XCTAssertEqual(got.count, 100)
        let arrival = try XCTUnwrap(got.arrival, "the kernel attached a receive time")
        XCTAssertGreaterThanOrEqual(arrival.milliseconds(since: sent), -1, "arrived before it was sent")
        XCTAssertGreaterThanOrEqual(read.milliseconds(since: arrival), 25, "the arrival is the read time")
    }

    func testWithoutTimestampsThereIsNoArrival() throws {
        let (fd, local) = try Socket.bindUDP(Endpoint(address: Endpoint.loopbackAddress, port: 0))
        defer { Socket.close(fd) }
        let payload = [UInt8](repeating: 7, count: 10)
        _ = try payload.withUnsafeBytes { try Socket.sendDatagram(fd, $0, to: local) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
        defer { buffer.deallocate() }
        var got: (count: Int, from: Endpoint, segmentSize: Int, arrival: Instant?, ecn: ECNCodepoint?)?
        for _ in 0..<100 where got == nil {
            got = try Socket.receiveDatagrams(fd, into: buffer); if got == nil { usleep(1_000) }
        }
        XCTAssertEqual(got?.count, 10)
        XCTAssertNil(got?.arrival)
    }
}
