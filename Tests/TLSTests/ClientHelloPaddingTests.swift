import XCTest
import TLS

/// `clientHelloPadding` lengthens every ClientHello by exactly its bytes plus the extension's
/// 4-byte header, with an extension of a GREASE type that the server ignores.
final class ClientHelloPaddingTests: XCTestCase {
    /// The client's first flight (its ClientHello record) as bytes, and whether the handshake completes.
    private func firstFlight(padding: Int) throws -> [UInt8] {
        let client = try clientContext { $0.clientHelloPadding = padding }
        let pair = try InMemoryPair(client: client, server: try serverContext(), serverName: "origin.test")
        XCTAssertFalse(try pair.client.handshake())
        var flight: [UInt8] = []
        while pair.client.hasPendingCiphertext { flight += pair.client.takeCiphertext(max: 16 * 1024) }
        flight.withUnsafeBytes { pair.server.receiveCiphertext($0) }
        try pair.handshake()
        XCTAssertTrue(pair.client.isHandshakeComplete && pair.server.isHandshakeComplete)
        return flight
    }

    func testPaddingLengthensTheClientHelloByItsBytesAndTheHandshakeCompletes() throws {
        let plain = try firstFlight(padding: 0)
        let padded = try firstFlight(padding: ClientHelloPadding.browser)
        XCTAssertEqual(plain[0], 22, "a handshake record")
        XCTAssertEqual(padded.count, plain.count + ClientHelloPadding.browser + 4)
        // Type 0x1A1A, then the length, then zeros.
        let pad = ClientHelloPadding.browser
        let header: [UInt8] = [0x1A, 0x1A, UInt8(pad >> 8), UInt8(pad & 0xFF)]
        func find(_ bytes: [UInt8]) -> Int? { (0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == header } }
        let start = try XCTUnwrap(find(padded), "no GREASE extension of the padding's length") + 4
        XCTAssertEqual(Array(padded[start..<(start + pad)]), [UInt8](repeating: 0, count: pad))
        XCTAssertNil(find(plain), "an unpadded ClientHello has no such extension")
        // As long as Chromium 156's measured records (1,921-2,026 bytes) for a name of this length.
        XCTAssertTrue((1_900...2_050).contains(padded.count), "\(padded.count)")
    }

    func testPaddingOutOfRangeIsAConfigurationError() {
        XCTAssertThrowsError(try clientContext { $0.clientHelloPadding = ClientHelloPadding.maximum + 1 })
    }
}
