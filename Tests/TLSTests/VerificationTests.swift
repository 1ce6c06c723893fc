import XCTest
import TLS

final class VerificationTests: XCTestCase {
    func testWrongHostNameFailsWithHostnameMismatch() throws {
        let pair = try InMemoryPair(
            client: clientContext(), server: serverContext(names: [["origin.test"]]),
            serverName: "other.test")
        assertTLSError(.certificateVerification, containing: "hostname mismatch") { try pair.handshake() }
        // The client's alert reached the server, which names it.
        assertTLSError(.handshake, containing: "alert bad certificate") { _ = try pair.server.handshake() }
        // Failures are terminal: later calls report the same cause, not OpenSSL's "unexpected EOF".
        assertTLSError(.certificateVerification, containing: "hostname mismatch") { _ = try pair.client.handshake() }
        assertTLSError(.handshake, containing: "alert bad certificate") {
            var buffer = [UInt8](repeating: 0, count: 16)
            _ = try buffer.withUnsafeMutableBytes { try pair.server.readPlaintext(into: $0) }
        }
    }

    func testWildcardDoesNotMatchTwoLabels() throws {
        let server = try serverContext(names: [["*.example"]])
        let pair = try InMemoryPair(client: clientContext(), server: server, serverName: "a.b.example")
        assertTLSError(.certificateVerification, containing: "hostname mismatch") { try pair.handshake() }
    }

    func testClientTrustingAnotherCAFails() throws {
        let otherCA = try CertificateAuthority(commonName: "someone else's CA")
        let pair = try InMemoryPair(
            client: clientContext(trusting: otherCA), server: serverContext(),
            serverName: "origin.test")
        assertTLSError(.certificateVerification, containing: "unable to get local issuer certificate") {
            try pair.handshake()
        }
        assertTLSError(.handshake, containing: "unknown ca") { _ = try pair.server.handshake() }
    }

    func testTLS12VerificationFailureIsReportedToo() throws {
        let client = try clientContext { $0.force(.tls12) }
        let pair = try InMemoryPair(client: client, server: serverContext(), serverName: "wrong.test")
        assertTLSError(.certificateVerification, containing: "hostname mismatch") { try pair.handshake() }
    }

    func testErrorDescriptionNamesTheOperationAndTheName() throws {
        let pair = try InMemoryPair(client: clientContext(), server: serverContext(), serverName: "other.test")
        do {
            try pair.handshake()
            XCTFail("expected failure")
        } catch let error as TLSError {
            XCTAssertTrue(
                error.description.hasPrefix("TLS handshake with other.test: certificate verification failed"),
                error.description)
            XCTAssertTrue(error.description.contains("certificate verify failed"), error.description)
        }
    }

    func testBadConfigurationIsReported() throws {
        assertTLSError(.configuration, containing: "no PEM certificate found") {
            _ = try TLSClientContext(TLSClientConfiguration(trustedRootsPEM: "not a certificate"))
        }
        let a = try testCA.issue(hostNames: ["a.test"])
        let b = try testCA.issue(hostNames: ["b.test"])
        let mismatched = PEMIdentity(certificateChainPEM: a.certificateChainPEM, privateKeyPEM: b.privateKeyPEM)
        assertTLSError(.configuration, containing: "values mismatch") {
            _ = try TLSServerContext(TLSServerConfiguration(identities: [mismatched]))
        }
        assertTLSError(.configuration, containing: "above maxVersion") {
            _ = try clientContext {
                $0.minVersion = .tls13; $0.maxVersion = .tls12
            }
        }
        assertTLSError(.configuration, containing: "1 to 255 bytes") { _ = try clientContext { $0.alpn = [""] } }
        assertTLSError(.configuration, containing: "no cipher match") {
            _ = try clientContext { $0.tls12Ciphers = "NO-SUCH-CIPHER" }
        }
    }

    func testCertificateAuthorityRejectsNamesThatAreNotHostNames() {
        assertTLSError(.configuration, containing: "neither a host name") {
            _ = try testCA.issue(hostNames: ["a.test,DNS:evil.test"])
        }
        assertTLSError(.configuration, containing: "no host names") { _ = try testCA.issue(hostNames: []) }
    }

    func testIssuedIdentityIsPEM() throws {
        let identity = try testCA.issue(hostNames: ["origin.test", "192.0.2.1", "::1"])
        XCTAssertTrue(identity.certificateChainPEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        XCTAssertTrue(identity.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        XCTAssertTrue(testCA.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
    }
}
