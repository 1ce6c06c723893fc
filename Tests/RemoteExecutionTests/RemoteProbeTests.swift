#if canImport(Glibc)
    import Glibc
#endif
import XCTest
import BenchCore
@testable import Runner
@testable import Testbed
@testable import RemoteExecution

final class RemoteProbeTests: XCTestCase {
    func testEndpointParsing() throws {
        XCTAssertEqual(try RemoteEndpoint(parsing: "example.org:8443"), RemoteEndpoint(host: "example.org", port: 8443))
        XCTAssertEqual(try RemoteEndpoint(parsing: "[::1]:443"), RemoteEndpoint(host: "::1", port: 443))
        XCTAssertEqual(RemoteEndpoint(host: "::1", port: 443).description, "[::1]:443")
        for bad in ["example.org", ":443", "host:0", "host:70000", "::1:443", "[::1]443"] {
            XCTAssertThrowsError(try RemoteEndpoint(parsing: bad), bad) { e in
                XCTAssertTrue("\(e)".contains(bad), "\(e) names \(bad)")
            }
        }
    }

    /// A listening loopback socket: the minimum of 5 connects is positive and far below a second.
    func testRTTOfLoopbackListener() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, len) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &len) == 0
            }
        }
        XCTAssertTrue(bound)
        let port = UInt16(bigEndian: addr.sin_port)
        let rtt = try RemoteRTTProbe.measure(RemoteEndpoint(host: "127.0.0.1", port: port), samples: 5)
        XCTAssertGreaterThan(rtt, 0)
        XCTAssertLessThan(rtt, 1_000_000_000)
    }

    /// A port nobody listens on: the error names the endpoint and the reason.
    func testRefusedConnectNamesEndpoint() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0
            }
        }
        let port = UInt16(bigEndian: addr.sin_port)
        close(fd)  // bound, never listening, now closed: connects are refused
        XCTAssertThrowsError(try RemoteRTTProbe.measure(RemoteEndpoint(host: "127.0.0.1", port: port))) { e in
            XCTAssertTrue("\(e)".contains("127.0.0.1:\(port)") && "\(e)".contains("refused"), "\(e)")
        }
    }
}
