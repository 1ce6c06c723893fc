import Foundation
import XCTest
@testable import Browsers

/// RFC 6455 framing and handshake as netbench's WebDriver BiDi client uses them: the RFC's own
/// examples (§1.3 accept value, §5.7 frames), every length encoding, fragmentation with control
/// frames between fragments, and the server frames a client must refuse.
final class WebSocketFramingTests: XCTestCase {
    typealias F = WebSocketFraming

    /// A frame as a server sends it (unmasked), for feeding the receiver.
    func serverFrame(_ opcode: F.Opcode, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
        var out: [UInt8] = [(fin ? 0x80 : 0) | opcode.rawValue]
        let n = payload.count
        if n < 126 {
            out.append(UInt8(n))
        } else if n <= 0xFFFF {
            out += [126, UInt8(n >> 8), UInt8(n & 0xFF)]
        } else {
            out.append(127)
            for s in stride(from: 56, through: 0, by: -8) { out.append(UInt8((UInt64(n) >> UInt64(s)) & 0xFF)) }
        }
        return out + payload
    }

    func messages(_ bytes: [UInt8]) throws -> [F.Message] {
        var r = F.Receiver()
        r.feed(bytes)
        var out: [F.Message] = []
        while let m = try r.next() { out.append(m) }
        return out
    }

    func testAcceptValueOfTheRFCExample() {
        XCTAssertEqual(WebSocketHandshake.accept(for: "dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    func testHandshakeRequestAndResponseChecks() throws {
        let h = WebSocketHandshake(key: "dGhlIHNhbXBsZSBub25jZQ==")
        let request = String(decoding: h.request(host: "127.0.0.1:9222", path: "/session"), as: UTF8.self)
        XCTAssertTrue(request.hasPrefix("GET /session HTTP/1.1\r\nHost: 127.0.0.1:9222\r\n"))
        XCTAssertTrue(request.contains("Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"))
        XCTAssertTrue(request.contains("Sec-WebSocket-Version: 13\r\n"))
        XCTAssertTrue(request.hasSuffix("\r\n\r\n"))
        let good =
            "HTTP/1.1 101 Switching Protocols\r\nupgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\n"
            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"
        XCTAssertNoThrow(try h.validate(responseHead: good))
        XCTAssertEqual(WebSocketHandshake.headLength(Array((good + "\u{81}").utf8)), good.utf8.count)
        XCTAssertNil(WebSocketHandshake.headLength(Array("HTTP/1.1 101 OK\r\nUpgrade: websocket\r\n".utf8)))
        let wrongKey = good.replacingOccurrences(of: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", with: "AAAA")
        XCTAssertThrowsError(try h.validate(responseHead: wrongKey)) {
            XCTAssertTrue("\($0)".contains("Sec-WebSocket-Accept is 'AAAA'"), "\($0)")
        }
        XCTAssertThrowsError(try h.validate(responseHead: "HTTP/1.1 400 Bad Request\r\n\r\n")) {
            XCTAssertTrue("\($0)".contains("not 101"), "\($0)")
        }
        XCTAssertThrowsError(
            try h.validate(responseHead: good.replacingOccurrences(of: "upgrade: WebSocket", with: "upgrade: h2c")))
    }

    func testMaskedFrameOfTheRFCExample() {
        // RFC 6455 §5.7: a single-frame masked text message "Hello".
        XCTAssertEqual(
            F.encode(.text, Array("Hello".utf8), maskKey: [0x37, 0xFA, 0x21, 0x3D]),
            [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    }

    func testLengthEncodingsAtTheirBoundaries() throws {
        let key: [UInt8] = [1, 2, 3, 4]
        for (n, header) in [(125, 2), (126, 4), (65535, 4), (65536, 10)] {
            let payload = (0..<n).map { UInt8($0 & 0xFF) }
            let frame = F.encode(.binary, payload, maskKey: key)
            XCTAssertEqual(frame.count, header + 4 + n, "\(n) bytes")
            XCTAssertEqual(frame[1] & 0x80, 0x80, "client frames are masked")
            // Unmasking gives the payload back.
            let body = frame[(header + 4)...].enumerated().map { $0.element ^ key[$0.offset & 3] }
            XCTAssertEqual(body, payload, "\(n) bytes")
            // And a server's frame of that length decodes to it.
            let (decoded, used) = try XCTUnwrap(try F.decode(serverFrame(.binary, payload)[...]))
            XCTAssertEqual(used, header + n)
            XCTAssertEqual(decoded, F.Frame(fin: true, opcode: .binary, payload: payload))
        }
    }

    func testUnmaskedServerFrameOfTheRFCExampleArrivingByteByByte() throws {
        let bytes: [UInt8] = [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]
        var r = F.Receiver()
        for (i, b) in bytes.enumerated() {
            r.feed([b])
            let m = try r.next()
            if i < bytes.count - 1 {
                XCTAssertNil(m, "complete after \(i + 1) bytes?")
            } else {
                XCTAssertEqual(m, .text("Hello"))
            }
        }
    }

    func testFragmentedMessageWithAPingBetweenItsFragments() throws {
        // RFC 6455 §5.7: "Hel" + "lo" as two frames; a control frame may come between them.
        let bytes =
            [0x01, 0x03, 0x48, 0x65, 0x6C] + serverFrame(.ping, Array("Hello".utf8)) + [0x80, 0x02, 0x6C, 0x6F]
            + serverFrame(.binary, [1, 2, 3], fin: false) + serverFrame(.continuation, [4], fin: false)
            + serverFrame(.continuation, [5], fin: true) + serverFrame(.pong, [])
        XCTAssertEqual(
            try messages(bytes), [.ping(Array("Hello".utf8)), .text("Hello"), .binary([1, 2, 3, 4, 5]), .pong([])])
    }

    func testCloseFrames() throws {
        XCTAssertEqual(try messages(serverFrame(.close, [0x03, 0xE8] + Array("bye".utf8))), [.close(1000, "bye")])
        XCTAssertEqual(try messages(serverFrame(.close, [])), [.close(nil, "")])
        XCTAssertThrowsError(try messages(serverFrame(.close, [0x03])))
    }

    func testWhatAServerMustNotSend() {
        let cases: [(String, [UInt8], String)] = [
            ("masked", [0x81, 0x81, 1, 2, 3, 4, 0x48], "masked"),
            ("reserved bit", [0xC1, 0x00], "reserved bits"),
            ("unknown opcode", [0x83, 0x00], "unknown opcode 3"),
            ("fragmented ping", [0x09, 0x00], "fragmented control"),
            ("long ping", serverFrame(.ping, [UInt8](repeating: 0, count: 126)), "control frame of 126"),
            ("short length in 16 bits", [0x82, 126, 0x00, 0x05] + [UInt8](repeating: 0, count: 5), "not minimal"),
            ("continuation first", serverFrame(.continuation, [1]), "continuation frame without"),
            ("new message mid-fragment", serverFrame(.text, [0x41], fin: false) + serverFrame(.text, [0x42]), "began"),
            ("bad UTF-8", serverFrame(.text, [0xFF, 0xFE]), "not UTF-8"),
        ]
        for (name, bytes, expected) in cases {
            XCTAssertThrowsError(try messages(bytes), name) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(name): \(error)")
            }
        }
    }

    func testAFrameOverTheLimitIsRefusedBeforeItArrives() {
        var r = F.Receiver()
        r.maxMessage = 1000
        r.feed([0x82, 126, 0x10, 0x00])  // 4096 bytes announced, none sent
        XCTAssertThrowsError(try r.next()) { XCTAssertTrue("\($0)".contains("exceeds the limit"), "\($0)") }
    }
}
