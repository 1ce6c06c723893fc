import XCTest
import TLS

/// FNV-1a (64-bit), computed incrementally over a byte stream.
struct StreamChecksum: Equatable {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
    private(set) var count = 0

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        var h = value
        for byte in bytes { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
        value = h
        count += bytes.count
    }
}

/// Deterministic pseudo-random bytes (xorshift64).
func patternBytes(count: Int, seed: UInt64) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return UInt8(truncatingIfNeeded: state)
    }
}

final class DataTransferTests: XCTestCase {
    /// Both directions at once, in 100 KB writes interleaved with reads.
    private func transferBothWays(version: TLSVersion) throws {
        let size = 10 * 1024 * 1024
        let upload = patternBytes(count: size, seed: 1)
        let download = patternBytes(count: size, seed: 2)
        var expectedUp = StreamChecksum(), expectedDown = StreamChecksum()
        upload.withUnsafeBytes { expectedUp.add($0) }
        download.withUnsafeBytes { expectedDown.add($0) }

        let pair = try InMemoryPair(
            client: clientContext(), server: serverContext { $0.force(version) },
            serverName: "origin.test")
        try pair.handshake()
        var sentUp = 0, sentDown = 0
        var receivedUp = StreamChecksum(), receivedDown = StreamChecksum()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var rounds = 0
        while receivedUp.count < size || receivedDown.count < size {
            rounds += 1
            XCTAssertLessThan(rounds, 10_000, "transfer stalled")
            if rounds >= 10_000 { return }
            sentUp += try upload[sentUp...].prefix(100_000).withUnsafeBytes { try pair.client.writePlaintext($0) }
            sentDown += try download[sentDown...].prefix(100_000).withUnsafeBytes { try pair.server.writePlaintext($0) }
            pair.pump()
            for (connection, isServer) in [(pair.server, true), (pair.client, false)] {
                while case .bytes(let n) = try buffer.withUnsafeMutableBytes({ try connection.readPlaintext(into: $0) })
                {
                    buffer.withUnsafeBytes {
                        let chunk = UnsafeRawBufferPointer(rebasing: $0[..<n])
                        if isServer { receivedUp.add(chunk) } else { receivedDown.add(chunk) }
                    }
                }
            }
        }
        XCTAssertEqual(receivedUp, expectedUp)
        XCTAssertEqual(receivedDown, expectedDown)
        XCTAssertEqual(receivedUp.count, size)
    }

    func testTenMegabytesBothWaysTLS13() throws { try transferBothWays(version: .tls13) }
    func testTenMegabytesBothWaysTLS12() throws { try transferBothWays(version: .tls12) }

    func testWriteBeforeHandshakeAcceptsNothing() throws {
        let pair = try InMemoryPair(client: clientContext(), server: serverContext(), serverName: "origin.test")
        let accepted = try [UInt8](repeating: 1, count: 10).withUnsafeBytes { try pair.client.writePlaintext($0) }
        XCTAssertEqual(accepted, 0)
        XCTAssertTrue(pair.client.hasPendingCiphertext, "the write started the handshake: ClientHello is pending")
    }

    func testCloseNotifyEndsTheStreamAfterTheData() throws {
        let pair = try InMemoryPair(client: clientContext(), server: serverContext(), serverName: "origin.test")
        try pair.handshake()
        let message = Array("last words".utf8)
        XCTAssertEqual(try message.withUnsafeBytes { try pair.client.writePlaintext($0) }, message.count)
        pair.client.shutdown()
        pair.pump()
        var buffer = [UInt8](repeating: 0, count: 1024)
        XCTAssertEqual(
            try buffer.withUnsafeMutableBytes { try pair.server.readPlaintext(into: $0) }, .bytes(message.count))
        XCTAssertEqual(Array(buffer[..<message.count]), message)
        XCTAssertEqual(try buffer.withUnsafeMutableBytes { try pair.server.readPlaintext(into: $0) }, .closed)
        // The server answers with its own close_notify.
        pair.server.shutdown()
        pair.pump()
        XCTAssertEqual(try buffer.withUnsafeMutableBytes { try pair.client.readPlaintext(into: $0) }, .closed)
    }

    func testNoDataMeansWantMore() throws {
        let pair = try InMemoryPair(client: clientContext(), server: serverContext(), serverName: "origin.test")
        try pair.handshake()
        var buffer = [UInt8](repeating: 0, count: 1024)
        XCTAssertEqual(try buffer.withUnsafeMutableBytes { try pair.server.readPlaintext(into: $0) }, .wantMore)
    }

    func testCorruptedRecordIsAConnectionError() throws {
        let pair = try InMemoryPair(client: clientContext(), server: serverContext(), serverName: "origin.test")
        try pair.handshake()
        _ = try [UInt8](repeating: 7, count: 1000).withUnsafeBytes { try pair.client.writePlaintext($0) }
        var record = pair.client.takeCiphertext(max: .max)
        XCTAssertFalse(record.isEmpty)
        XCTAssertTrue(record.count > 1000)
        record[record.count - 1] ^= 0x01  // flips a bit of the AEAD tag
        record.withUnsafeBytes { pair.server.receiveCiphertext($0) }
        assertTLSError(.connection, containing: "bad record mac") {
            var buffer = [UInt8](repeating: 0, count: 2048)
            _ = try buffer.withUnsafeMutableBytes { try pair.server.readPlaintext(into: $0) }
        }
    }

    func testTakeCiphertextHonoursMax() throws {
        let pair = try InMemoryPair(client: clientContext(), server: serverContext(), serverName: "origin.test")
        _ = try pair.client.handshake()
        let pending = pair.client.pendingCiphertextCount
        XCTAssertGreaterThan(pending, 10)
        XCTAssertEqual(pair.client.takeCiphertext(max: 10).count, 10)
        XCTAssertEqual(pair.client.pendingCiphertextCount, pending - 10)
        XCTAssertEqual(pair.client.takeCiphertext(max: .max).count, pending - 10)
        XCTAssertFalse(pair.client.hasPendingCiphertext)
    }
}

final class BufferingTests: XCTestCase {
    func testOneReadFillsALargeBufferFromManyRecords() throws {
        let pair = try InMemoryPair(client: clientContext(), server: serverContext(), serverName: "origin.test")
        try pair.handshake()
        let data = patternBytes(count: 100_000, seed: 3)
        XCTAssertEqual(try data.withUnsafeBytes { try pair.client.writePlaintext($0) }, data.count)
        pair.pump()
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        XCTAssertEqual(
            try buffer.withUnsafeMutableBytes { try pair.server.readPlaintext(into: $0) }, .bytes(data.count))
        XCTAssertEqual(Array(buffer[..<data.count]), data)
    }

    func testWriteStopsAtThePendingCiphertextLimit() throws {
        let pair = try InMemoryPair(client: clientContext(), server: serverContext(), serverName: "origin.test")
        try pair.handshake()
        pair.client.pendingCiphertextLimit = 64 * 1024
        let data = patternBytes(count: 1_000_000, seed: 4)
        let first = try data.withUnsafeBytes { try pair.client.writePlaintext($0) }
        XCTAssertGreaterThanOrEqual(pair.client.pendingCiphertextCount, 64 * 1024)
        XCTAssertLessThan(first, 100_000)
        XCTAssertEqual(
            try data[first...].withUnsafeBytes { try pair.client.writePlaintext($0) }, 0,
            "nothing more until the socket drains")
        var sent = first
        var received: [UInt8] = []
        while received.count < data.count {
            pair.pump()
            received += try pair.readAll(pair.server)
            sent += try data[sent...].withUnsafeBytes { try pair.client.writePlaintext($0) }
        }
        XCTAssertEqual(received, data)
    }

    func testCloseNotifyAfterDataInOneBatchIsReportedByTheNextRead() throws {
        let pair = try InMemoryPair(client: clientContext(), server: serverContext(), serverName: "origin.test")
        try pair.handshake()
        XCTAssertEqual(
            try [UInt8](repeating: 9, count: 40_000).withUnsafeBytes { try pair.client.writePlaintext($0) }, 40_000)
        pair.client.shutdown()
        pair.pump()
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        XCTAssertEqual(try buffer.withUnsafeMutableBytes { try pair.server.readPlaintext(into: $0) }, .bytes(40_000))
        XCTAssertEqual(try buffer.withUnsafeMutableBytes { try pair.server.readPlaintext(into: $0) }, .closed)
    }
}
