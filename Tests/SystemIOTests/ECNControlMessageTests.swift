import XCTest
import BenchCore
import SystemIO

/// The IP_TOS control messages that carry ECN: their layout against the kernel's ABI (x86-64 and
/// arm64: a 16-byte cmsghdr, data padded to 8 bytes), and a real loopback socket marking and
/// reading codepoints.
final class ECNControlMessageTests: XCTestCase {
    /// One cmsghdr as Linux lays it out on 64-bit: cmsg_len (size_t), cmsg_level, cmsg_type (int).
    private func header(length: Int, level: Int32, type: Int32) -> [UInt8] {
        withUnsafeBytes(of: UInt64(length).littleEndian, Array.init)
            + withUnsafeBytes(of: level.littleEndian, Array.init) + withUnsafeBytes(of: type.littleEndian, Array.init)
    }

    func testTheTOSMessageIsAnIntAtLevelIP() {
        let control = ControlMessages.encode(ecn: .ect0)
        // CMSG_SPACE(sizeof(int)) = 16 + 8; IPPROTO_IP = 0, IP_TOS = 1; the int 2 (ECT(0)).
        XCTAssertEqual(control, header(length: 20, level: 0, type: 1) + [2, 0, 0, 0] + [0, 0, 0, 0])
        XCTAssertEqual(ControlMessages.encode(ecn: nil), [])
    }

    func testSegmentAndTOSTravelTogether() {
        let control = ControlMessages.encode(segmentSize: 1200, ecn: .ce)
        // UDP_SEGMENT (SOL_UDP 17, type 103): a u16, padded to 24 bytes; then the TOS message.
        XCTAssertEqual(control.count, 48)
        XCTAssertEqual(Array(control.prefix(18)), header(length: 18, level: 17, type: 103) + [0xB0, 0x04])
        XCTAssertEqual(Array(control[24..<44]), header(length: 20, level: 0, type: 1) + [3, 0, 0, 0])
    }

    func testTheReceivedTOSByteGivesTheCodepoint() {
        // What the kernel sends for IP_RECVTOS: one byte (CMSG_LEN(1) = 17), here DSCP 0x28 + CE.
        let control = header(length: 17, level: 0, type: 1) + [0xA3] + [UInt8](repeating: 0, count: 7)
        let got = ControlMessages.decode(control)
        XCTAssertEqual(got.tos, 0xA3)
        XCTAssertEqual(got.ecn, .ce)
        XCTAssertNil(got.segmentSize)
        XCTAssertNil(got.realtimeStamp)
        XCTAssertEqual(ControlMessages.decode([]), ControlMessages.Received())
    }

    func testEncodedMessagesDecode() {
        for codepoint in ECNCodepoint.allCases {
            XCTAssertEqual(ControlMessages.decode(ControlMessages.encode(ecn: codepoint)).ecn, codepoint)
        }
        XCTAssertEqual(ControlMessages.decode(ControlMessages.encode(segmentSize: 1200, ecn: .ect1)).ecn, .ect1)
    }

    func testCodepointsOfTOSBytes() {
        XCTAssertEqual(ECNCodepoint(tos: 0x00), .notECT)
        XCTAssertEqual(ECNCodepoint(tos: 0x01), .ect1)
        XCTAssertEqual(ECNCodepoint(tos: 0xB8 | 0x02), .ect0)
        XCTAssertEqual(ECNCodepoint(tos: 0xFF), .ce)
    }

    /// A datagram sent with each codepoint arrives with it; one sent without a mark arrives Not-ECT.
    func testALoopbackSocketMarksAndReadsCodepoints() throws {
        let (fd, local) = try Socket.bindUDP(Endpoint(address: Endpoint.loopbackAddress, port: 0))
        defer { Socket.close(fd) }
        try Socket.enableReceiveECN(fd)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
        defer { buffer.deallocate() }
        let payload = [UInt8](repeating: 7, count: 100)
        for codepoint in [ECNCodepoint.ect0, .ect1, .ce, .notECT] {
            XCTAssertTrue(try payload.withUnsafeBytes { try Socket.sendDatagram(fd, $0, to: local, ecn: codepoint) })
            let got = try XCTUnwrap(try receive(fd, buffer))
            XCTAssertEqual(got.count, 100)
            XCTAssertEqual(got.ecn, codepoint)
        }
        _ = try payload.withUnsafeBytes { try Socket.sendDatagram(fd, $0, to: local) }
        XCTAssertEqual(try XCTUnwrap(try receive(fd, buffer)).ecn, .notECT)
        // GSO: every segment carries the mark.
        let two = [UInt8](repeating: 1, count: 2400)
        XCTAssertTrue(
            try two.withUnsafeBytes { try Socket.sendDatagrams(fd, $0, segmentSize: 1200, to: local, ecn: .ect0) })
        var marked = 0
        for _ in 0..<2 {
            let got = try XCTUnwrap(try receive(fd, buffer))
            XCTAssertEqual(got.ecn, .ect0)
            marked += got.count / 1200
        }
        XCTAssertEqual(marked, 2)
    }

    private func receive(_ fd: FileDescriptor, _ buffer: UnsafeMutableRawBufferPointer) throws
        -> (count: Int, from: Endpoint, segmentSize: Int, arrival: Instant?, ecn: ECNCodepoint?)?
    {
        for _ in 0..<100 {
            if let got = try Socket.receiveDatagrams(fd, into: buffer) { return got }
            usleep(1_000)
        }
        return nil
    }
}
