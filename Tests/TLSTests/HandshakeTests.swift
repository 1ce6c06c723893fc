import XCTest
import TLS

final class HandshakeTests: XCTestCase {
    func testTLS13IsTheDefault() throws {
        let pair = try InMemoryPair(client: clientContext(), server: serverContext(), serverName: "origin.test")
        XCTAssertNil(pair.client.negotiatedVersion, "no version before the handshake")
        try pair.handshake()
        XCTAssertEqual(pair.client.negotiatedVersion, .tls13)
        XCTAssertEqual(pair.server.negotiatedVersion, .tls13)
        XCTAssertEqual(pair.client.negotiatedCipher, pair.server.negotiatedCipher)
        XCTAssertFalse(pair.client.sessionResumed)
        XCTAssertEqual(pair.server.serverName, "origin.test")
    }

    func testForcedTLS12WithECDHEECDSAAES128GCM() throws {
        let suite = "ECDHE-ECDSA-AES128-GCM-SHA256"
        let client = try clientContext {
            $0.force(.tls12); $0.tls12Ciphers = suite
        }
        let pair = try InMemoryPair(client: client, server: serverContext(), serverName: "origin.test")
        try pair.handshake()
        XCTAssertEqual(pair.client.negotiatedVersion, .tls12)
        XCTAssertEqual(pair.server.negotiatedVersion, .tls12)
        XCTAssertEqual(pair.client.negotiatedCipher, suite)
        XCTAssertEqual(pair.server.negotiatedCipher, suite)
    }

    func testServerForcedToTLS12() throws {
        let server = try serverContext { $0.force(.tls12) }
        let pair = try InMemoryPair(client: clientContext(), server: server, serverName: "origin.test")
        try pair.handshake()
        XCTAssertEqual(pair.client.negotiatedVersion, .tls12)
    }

    func testNoCommonVersionFails() throws {
        let server = try serverContext { $0.force(.tls13) }
        let client = try clientContext { $0.force(.tls12) }
        let pair = try InMemoryPair(client: client, server: server, serverName: "origin.test")
        assertTLSError(.handshake, containing: "protocol") { try pair.handshake() }
    }

    func testALPNPicksServerPreference() throws {
        let server = try serverContext { $0.alpn = ["h2", "http/1.1"] }
        for (offered, expected) in [
            (["h2", "http/1.1"], "h2"), (["http/1.1", "h2"], "h2"),
            (["http/1.1"], "http/1.1"), (["h2"], "h2"),
        ] {
            let client = try clientContext { $0.alpn = offered }
            let pair = try InMemoryPair(client: client, server: server, serverName: "origin.test")
            try pair.handshake()
            XCTAssertEqual(pair.client.negotiatedALPN, expected, "client offered \(offered)")
            XCTAssertEqual(pair.server.negotiatedALPN, expected, "client offered \(offered)")
        }
    }

    func testALPNOverTLS12() throws {
        let server = try serverContext {
            $0.alpn = ["http/1.1"]; $0.force(.tls12)
        }
        let pair = try InMemoryPair(
            client: clientContext { $0.alpn = ["h2", "http/1.1"] }, server: server,
            serverName: "origin.test")
        try pair.handshake()
        XCTAssertEqual(pair.client.negotiatedALPN, "http/1.1")
    }

    func testNoALPNOfferedMeansNoProtocol() throws {
        let server = try serverContext { $0.alpn = ["h2", "http/1.1"] }
        let pair = try InMemoryPair(client: clientContext(), server: server, serverName: "origin.test")
        try pair.handshake()
        XCTAssertNil(pair.client.negotiatedALPN)
        XCTAssertNil(pair.server.negotiatedALPN)
    }

    func testALPNWithoutOverlapFailsWithNoApplicationProtocol() throws {
        let server = try serverContext { $0.alpn = ["h2"] }
        let pair = try InMemoryPair(
            client: clientContext { $0.alpn = ["http/1.1"] }, server: server,
            serverName: "origin.test")
        assertTLSError(.handshake, containing: "no application protocol") { try pair.handshake() }
        assertTLSError(.handshake, containing: "no application protocol") { _ = try pair.client.handshake() }
    }

    func testSNIChoosesTheMatchingIdentity() throws {
        let server = try serverContext(names: [["a.example"], ["b.example", "*.cdn.example"]])
        let client = try clientContext()
        for (name, commonName) in [
            ("a.example", "a.example"), ("b.example", "b.example"),
            ("img.cdn.example", "b.example"),
        ] {
            let pair = try InMemoryPair(client: client, server: server, serverName: name)
            try pair.handshake()
            XCTAssertEqual(pair.client.peerCertificateCommonName, commonName, "SNI \(name)")
            XCTAssertEqual(pair.server.serverName, name)
        }
    }

    func testSNIWorksOverTLS12() throws {
        let server = try serverContext(names: [["a.example"], ["b.example"]]) { $0.force(.tls12) }
        let pair = try InMemoryPair(client: clientContext(), server: server, serverName: "b.example")
        try pair.handshake()
        XCTAssertEqual(pair.client.peerCertificateCommonName, "b.example")
    }

    func testIPLiteralIsVerifiedAgainstIPSubjectAltName() throws {
        let server = try serverContext(names: [["10.0.0.1", "origin.test"]])
        let pair = try InMemoryPair(client: clientContext(), server: server, serverName: "10.0.0.1")
        try pair.handshake()
        XCTAssertNil(pair.server.serverName, "no SNI for an IP literal")
        let wrong = try InMemoryPair(client: clientContext(), server: server, serverName: "10.0.0.2")
        assertTLSError(.certificateVerification, containing: "IP address mismatch") { try wrong.handshake() }
    }
}
