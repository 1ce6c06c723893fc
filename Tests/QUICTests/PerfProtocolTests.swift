import BenchCore
import XCTest

@testable import QUIC

/// The QUIC performance protocol (draft-banks-quic-performance-00) between `QUICPerfClient` and an
/// `HTTP3Server` configured with ALPN "perf", in memory on a virtual clock (10 ms each way).
final class PerfProtocolTests: XCTestCase {
    let clientAddress = Endpoint(address: 0x0a00_0001, port: 50000)
    let serverAddress = Endpoint(address: 0x0a00_0002, port: 443)

    /// Datagrams in flight between one client and the server, delivered in order after `delay`.
    final class Wire {
        var now = Instant(nanoseconds: 1_000_000_000)
        var toServer: [(at: Instant, bytes: [UInt8])] = []
        var toClient: [(at: Instant, bytes: [UInt8])] = []
        let delay: Nanoseconds = 10_000_000
    }

    func perfConfig() -> QUICConfiguration {
        var c = QUICConfiguration()
        c.alpn = QUICPerf.alpn
        return c
    }

    func testSizeHeaderIsEightBytesBigEndian() {
        XCTAssertEqual(QUICPerf.encodeSize(0x0102_0304_0506_0708), [1, 2, 3, 4, 5, 6, 7, 8])
        XCTAssertEqual(QUICPerf.decodeSize([0, 0, 0, 0, 0, 0x0f, 0x42, 0x40]), 1_000_000)
        XCTAssertEqual(QUICPerf.decodeSize(QUICPerf.encodeSize(UInt64.max)), UInt64.max)
    }

    func testDownloadsAndUploadsArriveWithExactCounts() throws {
        let wire = Wire()
        let server = try HTTP3Server(config: perfConfig(), credentials: [TestPKI.shared.credentials], now: wire.now)
        let client = try QUICPerfClient(
            config: QUICConfiguration(), trustedRootsPEM: TestPKI.shared.caPEM, serverName: "localhost",
            local: clientAddress, remote: serverAddress, now: wire.now)
        let sizes: [(download: Int64, upload: Int64)] = [(1_000_000, 0), (0, 300_000), (12_345, 54_321), (0, 0)]
        for s in sizes { client.request(download: s.download, upload: s.upload) }
        var finished: [Int: (Int64, Int64)] = [:]
        var progress: [Int: Int64] = [:]
        var handshake = false
        func record(_ events: [QUICPerfClient.Event]) {
            for e in events {
                switch e {
                case .handshakeCompleted: handshake = true
                case .progress(let t, let n): progress[t, default: 0] += Int64(n)
                case .finished(let t, let received, let expected): finished[t] = (received, expected)
                case .closed(let error): XCTFail("closed: \(error)")
                case .reset(let t, let code): XCTFail("request \(t) reset (\(code))")
                case .started: break
                }
            }
        }
        try run(wire, client: { now, emit in client.write(now: now, emit: emit) }, clientRecord: record,
            clientReceive: { client.receive($0, local: self.clientAddress, remote: self.serverAddress, now: $1) },
            clientExpiry: { (client.expiry, { client.handleExpiry(now: $0) }) },
            server: server, until: { finished.count == sizes.count })
        XCTAssertTrue(handshake)
        for (t, s) in sizes.enumerated() {
            XCTAssertEqual(finished[t]?.0, s.download, "request \(t)")
            XCTAssertEqual(finished[t]?.1, s.download, "request \(t)")
            XCTAssertEqual(progress[t, default: 0] <= s.download, true)
        }
        // The server drained every upload byte: what the client's streams carried past the headers.
        XCTAssertGreaterThanOrEqual(client.statistics.bytesSent, UInt64(300_000 + 54_321))
    }

    /// A stream that ends before its 8-byte size is reset by the server (code 1), and the
    /// connection goes on serving.
    func testStreamEndingBeforeItsSizeIsReset() throws {
        let wire = Wire()
        let server = try HTTP3Server(config: perfConfig(), credentials: [TestPKI.shared.credentials], now: wire.now)
        let client = try QUICStreamClient(
            config: perfConfig(), trustedRootsPEM: TestPKI.shared.caPEM, serverName: "localhost",
            local: clientAddress, remote: serverAddress, now: wire.now)
        var short: Int64?
        var whole: Int64?
        var resets: [Int64: UInt64] = [:]
        var received: [Int64: Int] = [:]
        var fins = Set<Int64>()
        func record(_ events: [QUICStreamClient.Event]) {
            for e in events {
                switch e {
                case .handshakeCompleted:
                    short = try? client.openStream(bidirectional: true)
                    whole = try? client.openStream(bidirectional: true)
                    if let short { try? client.send(stream: short, [0, 0, 1], fin: true) }
                    if let whole { try? client.send(stream: whole, QUICPerf.encodeSize(5000), fin: true) }
                case .streamData(let s, let bytes, let fin):
                    received[s, default: 0] += bytes.count
                    if fin { fins.insert(s) }
                case .streamReset(let s, let code): resets[s] = code
                case .closed(let error): XCTFail("closed: \(error)")
                }
            }
        }
        try run(wire, client: { now, emit in client.write(now: now, emit: emit) }, clientRecord: record,
            clientReceive: { client.receive($0, local: self.clientAddress, remote: self.serverAddress, now: $1) },
            clientExpiry: { (client.expiry, { client.handleExpiry(now: $0) }) },
            server: server,
            until: { short.map { resets[$0] != nil } == true && whole.map { fins.contains($0) } == true })
        XCTAssertEqual(resets[short!], 1)
        XCTAssertEqual(received[whole!], 5000)
    }

    /// Drives one client and the server on the wire's virtual clock until `until` or 30 s.
    private func run<E>(
        _ wire: Wire,
        client write: (Instant, (UnsafeRawBufferPointer, Endpoint, Endpoint) -> Void) -> [E],
        clientRecord: ([E]) -> Void,
        clientReceive: (UnsafeRawBufferPointer, Instant) -> [E],
        clientExpiry: () -> (Instant?, (Instant) -> [E]),
        server: HTTP3Server, until done: () -> Bool
    ) throws {
        let end = wire.now + 30_000_000_000
        while !done() {
            clientRecord(write(wire.now) { bytes, _, _ in wire.toServer.append((wire.now + wire.delay, Array(bytes))) })
            server.write(now: wire.now) { bytes, _, _ in wire.toClient.append((wire.now + wire.delay, Array(bytes))) }
            let (ce, handle) = clientExpiry()
            let candidates = [wire.toServer.first?.at, wire.toClient.first?.at, ce, server.expiry].compactMap { $0 }
            guard let next = candidates.min(), next < end else { return XCTFail("no progress before 30 s") }
            wire.now = max(wire.now, next)
            while let p = wire.toServer.first, p.at <= wire.now {
                wire.toServer.removeFirst()
                _ = p.bytes.withUnsafeBytes {
                    server.receive($0, local: serverAddress, remote: clientAddress, now: wire.now)
                }
            }
            while let p = wire.toClient.first, p.at <= wire.now {
                wire.toClient.removeFirst()
                clientRecord(p.bytes.withUnsafeBytes { clientReceive($0, wire.now) })
            }
            if let ce, ce <= wire.now { clientRecord(handle(wire.now)) }
            if let se = server.expiry, se <= wire.now { server.handleExpiry(now: wire.now) }
        }
    }
}
