import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import BenchCore
import QUIC

/// A `QUICStreamClient` on a loopback UDP socket, driven synchronously: an HTTP/3 attacker that
/// writes its own stream bytes (QPACK instructions, header blocks) after a real handshake.
final class RawQUICConnection {
    let client: QUICStreamClient
    let socket: UDPSocket
    let port: UInt16
    private(set) var events: [QUICStreamClient.Event] = []

    init?(port: UInt16, caPEM: String) {
        guard let s = UDPSocket(), let local = s.local,
            let c = try? QUICStreamClient(
                config: QUICConfiguration(), trustedRootsPEM: caPEM, serverName: "www.shop.test",
                local: local, remote: Endpoint(address: 0x7F00_0001, port: port), now: .now())
        else { return nil }
        socket = s
        client = c
        self.port = port
        pump(until: Date().addingTimeInterval(5)) { $0.client.isHandshakeComplete || !$0.client.isOpen }
        guard client.isHandshakeComplete && client.isOpen else { return nil }
    }

    /// Sends, receives and runs timers until `done` holds or `deadline` passes.
    func pump(until deadline: Date, _ done: (RawQUICConnection) -> Bool = { _ in false }) {
        var buf = [UInt8](repeating: 0, count: 65536)
        let local = socket.local ?? Endpoint(address: 0x7F00_0001, port: 0)
        let remote = Endpoint(address: 0x7F00_0001, port: port)
        while Date() < deadline && !done(self) && !client.isClosed {
            events += client.write(now: .now()) { bytes, _, _ in socket.send(Array(bytes), to: port) }
            var wait = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            if let e = client.expiry {
                let now = Instant.now().nanoseconds
                wait = min(wait, e.nanoseconds <= now ? 0 : Int32(clamping: (e.nanoseconds - now) / 1_000_000 + 1))
            }
            var p = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, min(wait, 50)) == 1 {
                while true {
                    let n = buf.withUnsafeMutableBytes { recv(socket.fd, $0.baseAddress, $0.count, 0) }
                    if n <= 0 { break }
                    events += buf.withUnsafeBytes {
                        client.receive(
                            UnsafeRawBufferPointer(rebasing: $0[0..<n]), local: local, remote: remote, now: .now())
                    }
                }
            }
            if let e = client.expiry, e <= .now() { events += client.handleExpiry(now: .now()) }
        }
    }

    /// How the peer closed the connection, if it did.
    var closeReason: QUICCloseReason? {
        for case .closed(.closedByPeer(let r)) in events { return r }
        return nil
    }

    /// Whether the peer sent anything on `stream` (a response).
    func answered(_ stream: Int64) -> Bool {
        events.contains { if case .streamData(stream, let b, _) = $0 { !b.isEmpty } else { false } }
    }

    /// Opens the control stream (empty SETTINGS) and the QPACK encoder stream with `instructions`;
    /// returns the encoder stream.
    @discardableResult
    func startHTTP3(encoderInstructions: [UInt8] = []) throws -> Int64 {
        let control = try client.openStream(bidirectional: false)
        try client.send(stream: control, [0x00] + H3.frame(type: 0x04, []))
        let encoder = try client.openStream(bidirectional: false)
        try client.send(stream: encoder, [0x02] + encoderInstructions)
        return encoder
    }

    /// Sends one request (a HEADERS frame holding `fieldSection`) on a new stream, FIN after it.
    func request(_ fieldSection: [UInt8]) throws -> Int64 {
        let stream = try client.openStream(bidirectional: true)
        try client.send(stream: stream, H3.frame(type: 0x01, fieldSection), fin: true)
        return stream
    }
}

/// HTTP/3 frames and QPACK (RFC 9204) representations, encoded by hand.
enum H3 {
    /// A QUIC variable-length integer (RFC 9000 §16).
    static func varint(_ v: Int) -> [UInt8] {
        switch v {
        case ..<64: return [UInt8(v)]
        case ..<16384: return [0x40 | UInt8(v >> 8), UInt8(v & 0xFF)]
        default: return [0x80 | UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
    }

    static func frame(type: Int, _ payload: [UInt8]) -> [UInt8] { varint(type) + varint(payload.count) + payload }

    /// A QPACK/HPACK prefixed integer (RFC 7541 §5.1) with `flags` in the first byte's high bits.
    static func int(_ v: Int, prefixBits: Int, flags: UInt8) -> [UInt8] {
        let max = (1 << prefixBits) - 1
        if v < max { return [flags | UInt8(v)] }
        var out = [flags | UInt8(max)]
        var rest = v - max
        while rest >= 128 { out.append(UInt8(rest & 0x7F) | 0x80); rest >>= 7 }
        return out + [UInt8(rest)]
    }

    static func string(_ s: String, prefixBits: Int = 7, flags: UInt8 = 0) -> [UInt8] {
        int(s.utf8.count, prefixBits: prefixBits, flags: flags) + Array(s.utf8)
    }

    /// Encoder stream: Set Dynamic Table Capacity.
    static func setCapacity(_ n: Int) -> [UInt8] { int(n, prefixBits: 5, flags: 0x20) }
    /// Encoder stream: Insert with Literal Name.
    static func insert(_ name: String, _ value: String) -> [UInt8] {
        string(name, prefixBits: 5, flags: 0x40) + string(value)
    }

    /// Field section prefix for `insertCount` required inserts (table of `capacity`), Base = that count.
    static func prefix(requiredInserts: Int, capacity: Int = 4096) -> [UInt8] {
        let encoded = requiredInserts == 0 ? 0 : requiredInserts % (2 * (capacity / 32)) + 1
        return int(encoded, prefixBits: 8, flags: 0) + [0x00]
    }

    /// `GET https://www.shop.test/` from the static table (`:method GET` 17, `:scheme https` 23,
    /// `:path /` 1, `:authority` 0 with a literal value).
    static let getRoot: [UInt8] = [0xD1, 0xD7, 0xC1, 0x50] + string("www.shop.test")

    /// A field line with a literal name and value (never from a table).
    static func literal(_ name: String, _ value: String) -> [UInt8] {
        string(name, prefixBits: 3, flags: 0x20) + string(value)
    }

    /// An indexed field line for the newest dynamic entry (relative index 0 from Base).
    static let newestEntry: UInt8 = 0x80
}
