import BenchCore
import QUIC

/// HTTP/3 past decryption: a real QUIC handshake in memory between a `QUICStreamClient` and an
/// `HTTP3Server` (no sockets), then the input as the client's stream bytes, so that nghttp3 (frames,
/// QPACK decoder, HTTP messaging checks) and the server's own HTTP/3 layer (header limits, held
/// bytes, requests, responses) see fuzzed plaintext.
///
/// Input: records of `[control][length: 2 bytes][payload]` (the rest of the input when it runs
/// short). The control byte's low three bits pick a stream slot: 0 the control stream, 1 the QPACK
/// encoder stream, 2 the QPACK decoder stream (each opened with its type byte, which the harness
/// writes), 3 another unidirectional stream (the payload brings its own type), 4–7 request streams.
/// Bit 3 sends FIN after the payload; bit 4 opens a fresh stream in the slot first (a request slot
/// also does so once its stream is finished); the top three bits advance the clock by 100 ms steps.
/// The server answers every request it reports. Checked: each request is reported once, on a
/// client bidirectional stream, with a header list within the limit; the server never emits an
/// empty or oversized datagram; no connection is left after the idle timeout.
public enum HTTP3StreamEntry {
    /// The outcome, and how many requests the server reported (the tests check seeds reach it).
    public struct Replay: Sendable {
        public var outcome: FuzzOutcome
        public var requests: Int
    }

    static let config = QUICConfiguration().with {
        $0.idleTimeout = .seconds(5); $0.handshakeTimeout = .seconds(3)
    }
    /// Type bytes the harness writes first on the slots 0–2.
    static let streamTypes: [UInt8] = [0x00, 0x02, 0x03]

    public static func run(_ input: [UInt8]) -> FuzzOutcome { replay(input).outcome }

    public static func replay(_ input: [UInt8]) -> Replay {
        guard let pki = QUICServerEntry.pki else {
            return Replay(outcome: .violation("cannot make the test certificates"), requests: 0)
        }
        let link: MemoryLink
        do { link = try MemoryLink(pki: pki, config: config) } catch {
            return Replay(outcome: .violation("the in-memory handshake failed: \(error)"), requests: 0)
        }
        var slots = [Int64?](repeating: nil, count: 8)
        var finished = Set<Int64>()
        var index = 0
        while index < input.count, link.problem == nil {
            let control = input[index]
            let length = index + 2 < input.count ? Int(input[index + 1]) << 8 | Int(input[index + 2]) : 0
            let start = min(input.count, index + 3)
            let end = min(input.count, start + length)
            index = max(end, index + 1)
            let slot = Int(control & 7), fin = control & 8 != 0
            if slots[slot] == nil || control & 0x10 != 0 || (slot >= 4 && finished.contains(slots[slot]!)) {
                slots[slot] = try? link.client.openStream(bidirectional: slot >= 4)
                if let s = slots[slot], slot < 3 { try? link.client.send(stream: s, [streamTypes[slot]]) }
            }
            if let s = slots[slot], !finished.contains(s),
                (try? link.client.send(stream: s, Array(input[start..<end]), fin: fin)) != nil, fin
            {
                finished.insert(s)
            }
            link.exchange()
            link.advance(by: .milliseconds(Double(control >> 5) * 100))
        }
        if let problem = link.problem { return Replay(outcome: .violation(problem), requests: link.requests) }
        return Replay(outcome: link.drain(), requests: link.requests)
    }
}

/// A `QUICStreamClient` and an `HTTP3Server` joined by in-memory datagram queues, on a virtual clock.
final class MemoryLink {
    static let serverAddress = Endpoint(address: 0x0A00_0001, port: 443)
    static let clientAddress = Endpoint(address: 0x0A00_0002, port: 5000)
    let server: HTTP3Server
    let client: QUICStreamClient
    let limit: Int
    var now = Instant(nanoseconds: 1_000_000_000)
    private(set) var requests = 0
    /// The first broken rule, if any.
    private(set) var problem: String?
    private var answered = Set<Int64>()
    private var serverHandshakeDone = false

    init(pki: (caPEM: String, identity: QUICServerCredentials), config: QUICConfiguration) throws {
        limit = config.maxHeaderListSize
        server = try HTTP3Server(config: config, credentials: [pki.identity], now: now)
        client = try QUICStreamClient(
            config: config, trustedRootsPEM: pki.caPEM, serverName: "localhost",
            local: Self.clientAddress, remote: Self.serverAddress, now: now)
        exchange()
        guard client.isHandshakeComplete && serverHandshakeDone else {
            throw QUICError.invalidState("no handshake in memory")
        }
    }

    /// Passes datagrams both ways until neither side has anything to send (at most 64 rounds),
    /// moving the clock to timers due within 30 ms meanwhile (pacing, ACK delay), as the time a
    /// real link takes would.
    func exchange() {
        for _ in 0..<64 {
            var toServer: [[UInt8]] = []
            client.write(now: now) { bytes, _, _ in toServer.append(Array(bytes)) }
            for d in toServer {
                handle(
                    d.withUnsafeBytes {
                        server.receive($0, local: Self.serverAddress, remote: Self.clientAddress, now: now)
                    })
            }
            let toClient = serverWrite()
            for d in toClient {
                _ = d.withUnsafeBytes {
                    client.receive($0, local: Self.clientAddress, remote: Self.serverAddress, now: now)
                }
            }
            if toServer.isEmpty && toClient.isEmpty {
                let soon = [client.expiry, server.expiry].compactMap { $0 }.filter { $0 <= now + .milliseconds(30) }
                    .min()
                guard let soon else { return }
                if soon > now { now = soon }
                if let e = client.expiry, e <= now { client.handleExpiry(now: now) }
                handle(server.handleExpiry(now: now))
            }
        }
    }

    /// Moves the clock on and runs both sides' timers.
    func advance(by step: Nanoseconds) {
        guard step > 0 else { return }
        now = now + step
        if let e = client.expiry, e <= now { client.handleExpiry(now: now) }
        handle(server.handleExpiry(now: now))
        exchange()
    }

    /// The client falls silent: after 20 s (idle timeout 5 s) the server must hold no connection.
    func drain() -> FuzzOutcome {
        for _ in 0..<20 {
            now = now + .seconds(1)
            handle(server.handleExpiry(now: now))
            _ = serverWrite()
            if let problem { return .violation(problem) }
        }
        return server.connectionCount == 0
            ? .accepted
            : .violation(
                "\(server.connectionCount) connection(s) still held 20 s after the client fell silent (idle timeout 5 "
                    + "s)"
            )
    }

    private func serverWrite() -> [[UInt8]] {
        var out: [[UInt8]] = []
        handle(
            server.write(now: now) { bytes, _, _ in
                if bytes.isEmpty || bytes.count > 65_507 {
                    problem = problem ?? "the server emitted a datagram of \(bytes.count) bytes"
                }
                out.append(Array(bytes))
            })
        return out
    }

    private func handle(_ events: [HTTP3ServerEvent]) {
        if events.contains(where: { if case .handshakeCompleted = $0 { true } else { false } }) {
            serverHandshakeDone = true
        }
        for case .request(let conn, let stream, let method, let authority, let path, let headers, _) in events {
            requests += 1
            guard stream % 4 == 0 else {
                problem = problem ?? "a request on stream \(stream), not a client bidirectional one"; continue
            }
            guard answered.insert(stream).inserted else {
                problem = problem ?? "stream \(stream) reported as a request twice"; continue
            }
            let size =
                [(":method", method), (":authority", authority), (":path", path)].reduce(0) {
                    $0 + $1.0.utf8.count + $1.1.utf8.count + 32
                }
                + headers.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 32 }
            if size > limit {
                problem =
                    problem ?? "a request on stream \(stream) with \(size) bytes of header fields (limit \(limit))"
            }
            try? server.submitResponse(
                connection: conn, stream: stream, status: 200, headers: [("content-type", "text/plain")],
                bodyLength: Int64(min(path.utf8.count * 64, 20_000)))
        }
    }
}
