import BenchCore
import Glibc
import SystemIO
import XCTest

/// UDP GSO and GRO as the QUIC endpoints use them: one `sendDatagrams` call becomes separate
/// datagrams of the segment size with the exact bytes, whether the receiver reads them one by one
/// or coalesced.
final class SegmentedUDPTests: XCTestCase {
    private func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 251) } }

    private func roundTrip(coalescing: Bool) throws -> (datagrams: [[UInt8]], largestReceive: Int) {
        let (rx, rxEnd) = try Socket.bindUDP(Endpoint(address: 0x7F00_0001, port: 0))
        let (tx, _) = try Socket.bindUDP(Endpoint(address: 0x7F00_0001, port: 0))
        defer { Socket.close(rx); Socket.close(tx) }
        if coalescing { XCTAssertTrue(Socket.enableReceiveCoalescing(rx), "UDP_GRO") }
        let bytes = pattern(10 * 1200 + 345)  // ten full segments and a short last one
        let sent = try bytes.withUnsafeBytes { try Socket.sendDatagrams(tx, $0, segmentSize: 1200, to: rxEnd) }
        XCTAssertTrue(sent)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
        defer { buffer.deallocate() }
        var datagrams: [[UInt8]] = []
        var largest = 0
        let deadline = Instant.now() + .seconds(2)
        while datagrams.reduce(0, { $0 + $1.count }) < bytes.count && Instant.now() < deadline {
            guard let got = try Socket.receiveDatagrams(rx, into: buffer) else { usleep(1000); continue }
            largest = max(largest, got.count)
            var offset = 0
            while offset < got.count {
                let n = min(got.segmentSize, got.count - offset)
                datagrams.append(Array(buffer[offset..<(offset + n)]))
                offset += n
            }
        }
        XCTAssertEqual(Array(datagrams.joined()), bytes, "every byte once, in order")
        return (datagrams, largest)
    }

    func testSegmentedSendArrivesAsSeparateDatagrams() throws {
        let (datagrams, largest) = try roundTrip(coalescing: false)
        XCTAssertEqual(datagrams.map(\.count), Array(repeating: 1200, count: 10) + [345])
        XCTAssertEqual(largest, 1200, "without UDP_GRO the kernel hands over one datagram per receive")
    }

    func testCoalescedReceiveSplitsBackIntoTheSameDatagrams() throws {
        let (datagrams, largest) = try roundTrip(coalescing: true)
        XCTAssertEqual(datagrams.map(\.count), Array(repeating: 1200, count: 10) + [345])
        XCTAssertGreaterThan(largest, 1200, "UDP_GRO on loopback hands the GSO send over in one receive")
    }
}
