import Foundation
import XCTest
import BenchCore
import SystemIO
import Transport
@testable import Browsers

/// The WebSocket client on a real loopback connection against a scripted server: the handshake,
/// a ping answered with a pong of the same payload, a fragmented message with a ping between its
/// fragments, a masked text from the client, and the server's close ending the connection.
final class WebSocketConnectionTests: XCTestCase {
    /// A minimal server on a nonblocking socket: reads until `predicate` holds or 10 s pass.
    final class ScriptedServer: @unchecked Sendable {
        let listener: FileDescriptor
        let endpoint: Endpoint
        var fd: FileDescriptor?
        var received: [UInt8] = []

        init() throws {
            (listener, endpoint) = try Socket.listenTCP(on: Endpoint(address: Endpoint.loopbackAddress, port: 0))
        }

        func accept() throws {
            let end = Date().addingTimeInterval(10)
            while Date() < end {
                if let (c, _) = try Socket.accept(listener) { fd = c; return }
                Thread.sleep(forTimeInterval: 0.001)
            }
            throw WebSocketFraming.ProtocolError(description: "no client connected")
        }

        func read(until predicate: ([UInt8]) -> Bool) throws {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let end = Date().addingTimeInterval(10)
            while !predicate(received), Date() < end {
                let status = try buffer.withUnsafeMutableBytes { try Socket.read(fd!, into: $0) }
                switch status {
                case .bytes(let n): received += buffer[0..<n]
                case .wouldBlock: Thread.sleep(forTimeInterval: 0.001)
                case .endOfFile: return
                }
            }
        }

        func write(_ bytes: [UInt8]) throws {
            var done = 0
            while done < bytes.count {
                let status = try bytes.withUnsafeBytes {
                    try Socket.write(fd!, UnsafeRawBufferPointer(rebasing: $0[done...]))
                }
                if case .bytes(let n) = status { done += n } else { Thread.sleep(forTimeInterval: 0.001) }
            }
        }

        func close() {
            if let fd { Socket.close(fd) }
            Socket.close(listener)
        }
    }

    /// The client's frames, unmasked: (opcode, payload) of each whole frame in `bytes`.
    static func clientFrames(_ bytes: [UInt8]) -> [(UInt8, [UInt8])] {
        var out: [(UInt8, [UInt8])] = []
        var i = 0
        while i + 6 <= bytes.count {
            let opcode = bytes[i] & 0x0F
            guard bytes[i + 1] & 0x80 != 0 else { return out }  // unmasked: not a client frame
            let n = Int(bytes[i + 1] & 0x7F)  // the test's frames are short
            guard n < 126, i + 6 + n <= bytes.count else { return out }
            let key = Array(bytes[(i + 2)..<(i + 6)])
            out.append((opcode, (0..<n).map { bytes[i + 6 + $0] ^ key[$0 & 3] }))
            i += 6 + n
        }
        return out
    }

    static func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
        [(fin ? 0x80 : 0) | opcode, UInt8(payload.count)] + payload
    }

    func testPingFragmentationTextAndCloseOverLoopback() throws {
        let server = try ScriptedServer()
        defer { server.close() }
        let serverError = LockedBox<String?>(nil)
        let serverDone = DispatchSemaphore(value: 0)
        let script = Thread {
            defer { serverDone.signal() }
            do {
                try server.accept()
                try server.read { WebSocketHandshake.headLength($0) != nil }
                let head = String(decoding: server.received, as: UTF8.self)
                server.received.removeAll()
                guard let line = head.components(separatedBy: "\r\n").first(where: {
                    $0.lowercased().hasPrefix("sec-websocket-key:")
                }) else { throw WebSocketFraming.ProtocolError(description: "no key in \(head)") }
                let key = line.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces)
                try server.write(
                    Array(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Accept: \(WebSocketHandshake.accept(for: key))\r\n\r\n").utf8))
                try server.write(
                    Self.frame(0x9, Array("p1".utf8)) + Self.frame(0x1, Array("Hel".utf8), fin: false)
                        + Self.frame(0x9, Array("p2".utf8)) + Self.frame(0x0, Array("lo".utf8)))
                // Pongs for both pings, then the client's reply to "Hello".
                try server.read { Self.clientFrames($0).count >= 3 }
                try server.write(Self.frame(0x8, [0x03, 0xE8] + Array("done".utf8)))
                try server.read { Self.clientFrames($0).count >= 4 }
            } catch {
                serverError.value = "\(error)"
            }
        }
        script.start()

        let loop = try EventLoop()
        let socket = try WebSocketConnection(
            loop: loop, endpoint: server.endpoint, path: "/session", deadline: Instant.now() + .seconds(10))
        var texts: [String] = []
        socket.onText = { t in
            texts.append(t)
            if t == "Hello" { try? socket.sendText("hi") }
        }
        try loop.run(until: Instant.now() + .seconds(10)) { socket.closedReason != nil }
        serverDone.wait()
        XCTAssertNil(serverError.value)
        XCTAssertEqual(texts, ["Hello"])
        XCTAssertTrue(socket.closedReason?.contains("1000 done") == true, socket.closedReason ?? "open")
        let frames = Self.clientFrames(server.received)
        XCTAssertEqual(frames.map(\.0), [0xA, 0xA, 0x1, 0x8], "pong, pong, text, close")
        XCTAssertEqual(frames.map { String(decoding: $0.1, as: UTF8.self) }.prefix(3), ["p1", "p2", "hi"])
        XCTAssertEqual(frames.last?.1, [0x03, 0xE8], "the close echoes the server's code")
    }

    func testAWrongAcceptValueFailsTheHandshake() throws {
        let server = try ScriptedServer()
        defer { server.close() }
        let serverDone = DispatchSemaphore(value: 0)
        let script = Thread {
            try? server.accept()
            try? server.read { WebSocketHandshake.headLength($0) != nil }
            try? server.write(
                Array(
                    ("HTTP/1.1 101 OK\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Accept: x\r\n\r\n").utf8))
            serverDone.signal()
        }
        script.start()
        defer { serverDone.wait() }
        let loop = try EventLoop()
        XCTAssertThrowsError(
            try WebSocketConnection(
                loop: loop, endpoint: server.endpoint, path: "/session", deadline: Instant.now() + .seconds(10))
        ) { XCTAssertTrue("\($0)".contains("Sec-WebSocket-Accept is 'x'"), "\($0)") }
    }
}

/// A value shared between the test and its server thread.
final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ v: T) { stored = v }
    var value: T {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}
