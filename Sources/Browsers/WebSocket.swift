import Foundation
import BenchCore
import SystemIO
import Transport
import TLS

/// The client side of RFC 6455 framing, without I/O: frames out (always masked, §5.3), frames in
/// (never masked, §5.1), reassembly of fragmented messages (§5.4) with control frames between the
/// fragments, and the protocol errors a client must fail the connection on.
enum WebSocketFraming {
    enum Opcode: UInt8 {
        case continuation = 0, text = 1, binary = 2, close = 8, ping = 9, pong = 10
        var isControl: Bool { rawValue >= 8 }
    }

    struct Frame: Equatable {
        var fin: Bool
        var opcode: Opcode
        var payload: [UInt8]
    }

    struct ProtocolError: Error, CustomStringConvertible, Equatable {
        var description: String
    }

    /// One frame as a client sends it: FIN, opcode, the MASK bit and key, the length in 7, 7+16 or
    /// 7+64 bits, and the payload XORed with the key.
    static func encode(_ opcode: Opcode, _ payload: [UInt8], fin: Bool = true, maskKey: [UInt8]) -> [UInt8] {
        precondition(maskKey.count == 4, "a masking key is 4 bytes")
        var out: [UInt8] = [(fin ? 0x80 : 0) | opcode.rawValue]
        let n = payload.count
        if n < 126 {
            out.append(0x80 | UInt8(n))
        } else if n <= 0xFFFF {
            out += [0x80 | 126, UInt8(n >> 8), UInt8(n & 0xFF)]
        } else {
            out.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((UInt64(n) >> UInt64(shift)) & 0xFF)) }
        }
        out += maskKey
        out.reserveCapacity(out.count + n)
        for (i, b) in payload.enumerated() { out.append(b ^ maskKey[i & 3]) }
        return out
    }

    /// The first whole frame in `bytes` and how many bytes it took, nil while it is incomplete.
    /// Throws on what a server must not send: reserved bits, unknown opcodes, a masked frame, a
    /// fragmented or long control frame, a length that is not minimal or over `maxPayload`.
    static func decode(_ bytes: ArraySlice<UInt8>, maxPayload: Int = 64 << 20) throws -> (Frame, Int)? {
        guard bytes.count >= 2 else { return nil }
        let b0 = bytes[bytes.startIndex], b1 = bytes[bytes.startIndex + 1]
        guard b0 & 0x70 == 0 else { throw ProtocolError(description: "reserved bits set without an extension") }
        guard let opcode = Opcode(rawValue: b0 & 0x0F) else {
            throw ProtocolError(description: "unknown opcode \(b0 & 0x0F)")
        }
        let fin = b0 & 0x80 != 0
        guard b1 & 0x80 == 0 else { throw ProtocolError(description: "a server frame is masked") }
        var length = UInt64(b1 & 0x7F)
        var header = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = UInt64(bytes[bytes.startIndex + 2]) << 8 | UInt64(bytes[bytes.startIndex + 3])
            header = 4
            guard length >= 126 else { throw ProtocolError(description: "16-bit length \(length) is not minimal") }
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = 0
            for i in 2..<10 { length = length << 8 | UInt64(bytes[bytes.startIndex + i]) }
            header = 10
            guard length >> 63 == 0 else { throw ProtocolError(description: "64-bit length has its top bit set") }
            guard length > 0xFFFF else { throw ProtocolError(description: "64-bit length \(length) is not minimal") }
        }
        if opcode.isControl {
            guard fin else { throw ProtocolError(description: "fragmented control frame (opcode \(opcode.rawValue))") }
            guard length <= 125 else { throw ProtocolError(description: "control frame of \(length) bytes (max 125)") }
        }
        guard length <= UInt64(maxPayload) else {
            throw ProtocolError(description: "frame of \(length) bytes exceeds the limit of \(maxPayload)")
        }
        let total = header + Int(length)
        guard bytes.count >= total else { return nil }
        let start = bytes.startIndex + header
        return (Frame(fin: fin, opcode: opcode, payload: Array(bytes[start..<(start + Int(length))])), total)
    }

    /// What arrives, message by message: data messages whole, control frames as they come.
    enum Message: Equatable {
        case text(String)
        case binary([UInt8])
        case ping([UInt8])
        case pong([UInt8])
        /// The status code (nil when the frame had none) and reason.
        case close(UInt16?, String)
    }

    /// Reassembles the byte stream from a server into messages.
    struct Receiver {
        private var buffer: [UInt8] = []
        private var fragments: [UInt8] = []
        private var fragmentOpcode: Opcode?
        var maxMessage = 64 << 20

        mutating func feed(_ bytes: some Sequence<UInt8>) { buffer += bytes }

        /// The next whole message, nil until more bytes arrive.
        mutating func next() throws -> Message? {
            while let (frame, used) = try WebSocketFraming.decode(buffer[...], maxPayload: maxMessage) {
                buffer.removeFirst(used)
                switch frame.opcode {
                case .ping: return .ping(frame.payload)
                case .pong: return .pong(frame.payload)
                case .close: return try Self.close(frame.payload)
                case .text, .binary:
                    guard fragmentOpcode == nil else {
                        throw ProtocolError(description: "a new message began before the fragmented one ended")
                    }
                    if frame.fin { return try Self.message(frame.opcode, frame.payload) }
                    fragmentOpcode = frame.opcode
                    fragments = frame.payload
                case .continuation:
                    guard let opcode = fragmentOpcode else {
                        throw ProtocolError(description: "a continuation frame without a message to continue")
                    }
                    fragments += frame.payload
                    guard fragments.count <= maxMessage else {
                        throw ProtocolError(description: "message exceeds the limit of \(maxMessage) bytes")
                    }
                    if frame.fin {
                        fragmentOpcode = nil
                        defer { fragments = [] }
                        return try Self.message(opcode, fragments)
                    }
                }
            }
            return nil
        }

        private static func message(_ opcode: Opcode, _ payload: [UInt8]) throws -> Message {
            guard opcode == .text else { return .binary(payload) }
            guard let text = String(bytes: payload, encoding: .utf8) else {
                throw ProtocolError(description: "a text message is not UTF-8")
            }
            return .text(text)
        }

        private static func close(_ payload: [UInt8]) throws -> Message {
            if payload.isEmpty { return .close(nil, "") }
            guard payload.count >= 2 else { throw ProtocolError(description: "a close frame of 1 byte") }
            let reason = String(bytes: payload[2...], encoding: .utf8) ?? ""
            return .close(UInt16(payload[0]) << 8 | UInt16(payload[1]), reason)
        }
    }
}

/// The opening handshake of RFC 6455 §4, client side: a GET with Upgrade and a random 16-byte
/// Sec-WebSocket-Key; the server must answer 101 with base64(SHA-1(key + the protocol's GUID)).
struct WebSocketHandshake {
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    let key: String

    init(key: String) { self.key = key }

    /// A handshake with a fresh random key.
    static func random() -> WebSocketHandshake {
        var g = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &g) }
        return WebSocketHandshake(key: Data(bytes).base64EncodedString())
    }

    static func accept(for key: String) -> String {
        Data(Digest.sha1(Array((key + guid).utf8))).base64EncodedString()
    }

    func request(host: String, path: String) -> [UInt8] {
        Array(
            ("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)
    }

    /// The length of the response head (through the blank line), nil while incomplete.
    static func headLength(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4)
        where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i + 4
        }
        return nil
    }

    /// Checks the server's answer (§4.1): status 101, `Upgrade: websocket`, `Connection: Upgrade`
    /// and the accept value of this key.
    func validate(responseHead: String) throws {
        let lines = responseHead.components(separatedBy: "\r\n")
        let status = lines.first ?? ""
        let parts = status.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1] == "101" else {
            throw WebSocketFraming.ProtocolError(description: "handshake answered '\(status)', not 101")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        guard headers["upgrade"]?.lowercased() == "websocket" else {
            throw WebSocketFraming.ProtocolError(
                description: "handshake: Upgrade is '\(headers["upgrade"] ?? "")', not websocket")
        }
        guard headers["connection"]?.lowercased().split(separator: ",")
            .contains(where: { $0.trimmingCharacters(in: .whitespaces) == "upgrade" }) == true
        else {
            throw WebSocketFraming.ProtocolError(
                description: "handshake: Connection is '\(headers["connection"] ?? "")', not Upgrade")
        }
        let want = Self.accept(for: key)
        guard headers["sec-websocket-accept"] == want else {
            throw WebSocketFraming.ProtocolError(
                description: "handshake: Sec-WebSocket-Accept is '\(headers["sec-websocket-accept"] ?? "")', "
                    + "expected '\(want)'")
        }
    }
}

/// A WebSocket client connection on an event loop: connect, handshake, text messages both ways;
/// pings answered with pongs, a close answered with a close. The socket is created in the
/// calling thread's network namespace.
final class WebSocketConnection {
    let loop: EventLoop
    private let fd: FileDescriptor
    private var receiver = WebSocketFraming.Receiver()
    private var outbox: [UInt8] = []
    private var inbox: [UInt8] = []
    private var open = false
    private(set) var closedReason: String?
    private var registered = false
    /// Each text message from the server, in order. Messages that came with the handshake's answer
    /// wait for this to be set, and are handed over then.
    var onText: (String) -> Void = { _ in } {
        didSet {
            guard isOpen else { return }
            do { try drain() } catch { fail("\(error)") }
        }
    }

    /// Connects to `endpoint`, sends the handshake for `path` and waits (running the loop) for the
    /// server's 101 until `deadline`.
    init(loop: EventLoop, endpoint: Endpoint, path: String, deadline: Instant) throws {
        self.loop = loop
        fd = try Socket.connectTCP(to: endpoint)
        do {
            try loop.register(fd, [.read, .write]) { [weak self] ready in self?.ready(ready) }
            registered = true
            let handshake = WebSocketHandshake.random()
            outbox = handshake.request(host: endpoint.description, path: path)
            var head: String?
            try loop.run(until: deadline) {
                if head == nil, let n = WebSocketHandshake.headLength(inbox) {
                    head = String(decoding: inbox[0..<n], as: UTF8.self)
                    inbox.removeFirst(n)
                }
                return head != nil || closedReason != nil
            }
            guard let head else {
                throw WebSocketFraming.ProtocolError(
                    description: closedReason ?? (loop.stopper.isSet ? "interrupted" : "no handshake answer in time"))
            }
            try handshake.validate(responseHead: head)
            open = true
            receiver.feed(inbox)
            inbox = []
        } catch {
            shutdown()
            throw error
        }
    }

    deinit { shutdown() }

    var isOpen: Bool { open && closedReason == nil }

    func sendText(_ text: String) throws {
        guard isOpen else { throw WebSocketFraming.ProtocolError(description: closedReason ?? "not open") }
        queue(.text, Array(text.utf8))
    }

    /// Sends a close frame (1000) and releases the socket.
    func close() {
        if isOpen {
            queue(.close, [0x03, 0xE8])
            flush()
        }
        closedReason = closedReason ?? "closed by netbench"
        shutdown()
    }

    private func shutdown() {
        if registered {
            loop.unregister(fd)
            registered = false
            Socket.close(fd)
        }
    }

    private func queue(_ opcode: WebSocketFraming.Opcode, _ payload: [UInt8]) {
        var g = SystemRandomNumberGenerator()
        let key = (0..<4).map { _ in UInt8.random(in: 0...255, using: &g) }
        outbox += WebSocketFraming.encode(opcode, payload, maskKey: key)
        flush()
    }

    private func flush() {
        guard registered else { return }
        while !outbox.isEmpty {
            let status = outbox.withUnsafeBytes { (try? Socket.write(fd, $0)) }
            guard let status else { return fail("write failed") }
            guard case .bytes(let n) = status, n > 0 else { break }
            outbox.removeFirst(n)
        }
        loop.update(fd, outbox.isEmpty ? .read : [.read, .write])
    }

    private func fail(_ why: String) {
        closedReason = closedReason ?? why
        shutdown()
    }

    private func ready(_ ready: IOInterest) {
        if ready.contains(.write) {
            if !open, let e = try? Socket.connectResult(fd) { return fail("connect: \(e)") }
            flush()
        }
        guard registered, ready.contains(.read) || !ready.isDisjoint(with: .hangup) else { return }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while registered {
            let status = buffer.withUnsafeMutableBytes { (try? Socket.read(fd, into: $0)) ?? .endOfFile }
            switch status {
            case .bytes(let n):
                if open { receiver.feed(buffer[0..<n]) } else { inbox += buffer[0..<n] }
            case .wouldBlock:
                if open { do { try drain() } catch { fail("\(error)") } }
                return
            case .endOfFile:
                if open { try? drain() }
                return fail("the server closed the connection")
            }
        }
    }

    /// Hands out every whole message; answers pings and a close.
    private func drain() throws {
        while let m = try receiver.next() {
            switch m {
            case .text(let s): onText(s)
            case .binary: break
            case .ping(let p): queue(.pong, p)
            case .pong: break
            case .close(let code, let reason):
                if isOpen { queue(.close, code.map { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } ?? []) }
                return fail("the server closed the WebSocket (\(code.map(String.init) ?? "no code") \(reason))")
            }
        }
    }
}
