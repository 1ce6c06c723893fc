import Foundation
import XCTest
import TLS

/// `netbench serve --cert --key` (the user's own identity) and `run --server` without `--ca`
/// (the system store): each problem names the file and what is wrong.
final class UserIdentityTests: XCTestCase {
    func testCheckedIdentityNamesTheFileAndTheProblem() throws {
        let good = try testCA.issue(hostNames: ["origin.test"])
        let other = try testCA.issue(hostNames: ["other.test"])
        let id = try PEMIdentity.checked(
            certificateChainPEM: good.certificateChainPEM, certificateFile: "c.pem",
            privateKeyPEM: good.privateKeyPEM, keyFile: "k.pem")
        XCTAssertEqual(id.hostNamesNotCovered(["origin.test", "x.test"]), ["x.test"])
        func problem(_ cert: String, _ key: String) -> PEMIdentity.FileProblem? {
            do {
                _ = try PEMIdentity.checked(
                    certificateChainPEM: cert, certificateFile: "c.pem", privateKeyPEM: key, keyFile: "k.pem");
                return nil
            } catch { return error as? PEMIdentity.FileProblem }
        }
        let mismatch = try XCTUnwrap(problem(good.certificateChainPEM, other.privateKeyPEM))
        XCTAssertEqual(mismatch.file, "k.pem")
        XCTAssertTrue(
            mismatch.problem.contains("does not match the certificate (CN=origin.test) in c.pem"), mismatch.problem)
        XCTAssertEqual(problem(good.privateKeyPEM, good.privateKeyPEM)?.file, "c.pem", "a key is no certificate")
        XCTAssertEqual(
            problem(
                good.certificateChainPEM,
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n")?.problem.contains(
                    "encrypted"), true)
        XCTAssertEqual(
            problem(good.certificateChainPEM, good.certificateChainPEM)?.file, "k.pem", "a certificate is no key")
        let garbled = good.privateKeyPEM.replacingOccurrences(of: "\n", with: "\n!", options: [], range: nil)
        XCTAssertEqual(problem(good.certificateChainPEM, garbled)?.file, "k.pem")
    }

    /// OpenSSL's default verify paths honour SSL_CERT_FILE: without it the test CA is unknown, with it trusted.
    func testSystemRootsFollowOpenSSLDefaultVerifyPaths() throws {
        let file = NSTemporaryDirectory() + "netbench-roots-\(UUID().uuidString).pem"
        try testCA.certificatePEM.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file); unsetenv("SSL_CERT_FILE") }
        unsetenv("SSL_CERT_FILE")
        XCTAssertNotEqual(SystemTrustStore.defaultFile, file)
        let system = {
            try clientContext {
                $0.trustedRootsPEM = ""; $0.systemRoots = true
            }
        }
        let untrusted = try InMemoryPair(client: system(), server: serverContext(), serverName: "origin.test")
        assertTLSError(.certificateVerification, containing: "unable to get local issuer certificate") {
            try untrusted.handshake()
        }
        setenv("SSL_CERT_FILE", file, 1)
        XCTAssertEqual(SystemTrustStore.defaultFile, file)
        XCTAssertEqual(try SystemTrustStore.defaultFilePEM(), testCA.certificatePEM)
        let trusted = try InMemoryPair(client: system(), server: serverContext(), serverName: "origin.test")
        XCTAssertNoThrow(try trusted.handshake())
    }
}
