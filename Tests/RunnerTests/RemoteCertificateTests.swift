#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
import TLS
@testable import Runner

/// A real TLS server on loopback (one handshake per accepted connection, in a thread) and the
/// pre-flight check of `run --server` against it.
final class RemoteCertificateTests: XCTestCase {
    private func startServer(identity: PEMIdentity, connections: Int) throws -> (port: UInt16, thread: Thread, fd: Int32) {
        let server = try TLSServerContext(TLSServerConfiguration(identities: [identity]))
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && listen(fd, 8) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        XCTAssertTrue(ok)
        let thread = Thread {
            for _ in 0..<connections {
                let c = accept(fd, nil, nil)
                guard c >= 0 else { return }
                defer { close(c) }
                guard let tls = try? TLSConnection(server: server) else { return }
                var buf = [UInt8](repeating: 0, count: 16_384)
                var finished = false
                while !finished {
                    let done = (try? tls.handshake()) ?? true
                    while tls.hasPendingCiphertext {
                        let out = tls.takeCiphertext(max: 16_384)
                        _ = out.withUnsafeBytes { send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    }
                    if done { finished = true; break }
                    var pfd = pollfd(fd: c, events: Int16(POLLIN), revents: 0)
                    guard poll(&pfd, 1, 5000) == 1 else { break }
                    let n = buf.withUnsafeMutableBytes { recv(c, $0.baseAddress, $0.count, 0) }
                    guard n > 0 else { break }
                    buf.withUnsafeBytes { tls.receiveCiphertext(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                }
                // Let the client read the last flight before the socket closes.
                var pfd = pollfd(fd: c, events: Int16(POLLIN), revents: 0)
                _ = poll(&pfd, 1, 2000)
            }
        }
        thread.start()
        return (UInt16(bigEndian: addr.sin_port), thread, fd)
    }

    func testVerifiesAgainstGivenCAAndNamesFailures() throws {
        let ca = try CertificateAuthority()
        let other = try CertificateAuthority(commonName: "someone else")
        let (port, _, fd) = try startServer(identity: try ca.issue(hostNames: ["a.example"]), connections: 3)
        defer { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }
        let endpoint = RemoteEndpoint(host: "127.0.0.1", port: port)
        let good = try TLSClientContext(TLSClientConfiguration(trustedRootsPEM: ca.certificatePEM))
        XCTAssertNoThrow(try RemoteCertificateCheck.verify(hostName: "a.example", at: endpoint, context: good))

        XCTAssertThrowsError(try RemoteCertificateCheck.verify(hostName: "b.example", at: endpoint, context: good)) { e in
            XCTAssertTrue("\(e)".contains("'b.example'") && "\(e)".contains("verif"), "\(e)")
        }
        let wrongCA = try TLSClientContext(TLSClientConfiguration(trustedRootsPEM: other.certificatePEM))
        XCTAssertThrowsError(try RemoteCertificateCheck.verify(hostName: "a.example", at: endpoint, context: wrongCA)) { e in
            XCTAssertTrue("\(e)".contains("'a.example'") && "\(e)".contains("127.0.0.1:\(port)"), "\(e)")
        }
    }
}
