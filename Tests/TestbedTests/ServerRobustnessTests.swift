import Foundation
import XCTest
import BenchCore
import BenchModel
import Runner
@testable import Testbed
import NetbenchCommands
import SystemIO
import TLS
import TestSupport

/// The replay server answers unknown paths with 404 and malformed requests with 400 (closing that
/// connection), survives garbage that is not TLS at all, and keeps serving everyone else.
final class ServerRobustnessTests: XCTestCase {
    var host: ServerHost!
    var credentials: RunCredentials!
    var scenario: Scenario!

    override func setUpWithError() throws {
        scenario = try Scenario.load(from: Fixture.path("small-page.json"))
        credentials = try RunCredentials(hosts: scenario.origins.map(\.host))
        host = try ServerHost(
            scenarios: [scenario], credentials: credentials, address: 0x7F00_0001, namespace: nil, withQUIC: false)
    }

    override func tearDown() { host?.stop() }

    /// Sends `request` over TLS (ALPN http/1.1) and returns everything received until close or timeout.
    func exchange(_ request: String, serverName: String = "www.shop.test") throws -> String {
        try Self.exchange(request, host: host, credentials: credentials, serverName: serverName)
    }

    /// `exchange` with any server host (RequestMethodLoadTests uses it too).
    static func exchange(
        _ request: String, host: ServerHost, credentials: RunCredentials, serverName: String
    ) throws -> String {
        let ctx = try TLSClientContext(TLSClientConfiguration(trustedRootsPEM: credentials.caPEM, alpn: ["http/1.1"]))
        let tls = try TLSConnection(client: ctx, serverName: serverName)
        let fd = try Socket.connectTCP(to: host.endpoints[0].tcp!)
        defer { Socket.close(fd) }
        let epoll = try Epoll()
        try epoll.add(fd, [.read, .write], token: 1)
        var received = [UInt8]()
        var sent = false
        var buf = [UInt8](repeating: 0, count: 65536)
        let deadline = Instant.now() + .seconds(10)
        var open = true
        while open && Instant.now() < deadline {
            try epoll.wait(timeout: .milliseconds(50)) { _, _ in }
            // Drive the handshake / send / receive.
            while tls.hasPendingCiphertext {
                let out = tls.takeCiphertext(max: 65536)
                _ = try out.withUnsafeBytes { try Socket.write(fd, $0) }
            }
            let st = try buf.withUnsafeMutableBytes { try Socket.read(fd, into: $0) }
            switch st {
            case .endOfFile: open = false
            case .bytes(let n):
                buf.withUnsafeBytes { tls.receiveCiphertext(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            case .wouldBlock: break
            }
            if try tls.handshake() {
                if !sent {
                    sent = true
                    _ = try Array(request.utf8).withUnsafeBytes { try tls.writePlaintext($0) }
                }
                reading: while true {
                    let r = try buf.withUnsafeMutableBytes { try tls.readPlaintext(into: $0) }
                    switch r {
                    case .bytes(let n): received += buf[0..<n]
                    case .wantMore: break reading
                    case .closed: open = false; break reading
                    }
                }
            }
            while tls.hasPendingCiphertext {
                let out = tls.takeCiphertext(max: 65536)
                _ = try out.withUnsafeBytes { try Socket.write(fd, $0) }
            }
        }
        return String(decoding: received, as: UTF8.self)
    }

    func testUnknownPathIs404AndKnownPathServed() throws {
        let notFound = try exchange("GET /nope HTTP/1.1\r\nHost: www.shop.test\r\nConnection: close\r\n\r\n")
        XCTAssertTrue(notFound.hasPrefix("HTTP/1.1 404"), notFound)
        let ok = try exchange("GET /a.css HTTP/1.1\r\nHost: www.shop.test\r\nConnection: close\r\n\r\n")
        XCTAssertTrue(ok.hasPrefix("HTTP/1.1 200"), String(ok.prefix(200)))
        XCTAssertTrue(ok.lowercased().contains("content-length: 20000"))
        // The run's record lists what was not in the scenario (and the list starts again).
        XCTAssertEqual(host.takeNotFound(), ["www.shop.test /nope"])
        XCTAssertEqual(host.takeNotFound(), [])
    }

    func testRangeRequestGets206WithTheRest() throws {
        let partial = try exchange(
            "GET /a.css HTTP/1.1\r\nHost: www.shop.test\r\nRange: bytes=15000-\r\nConnection: close\r\n\r\n")
        XCTAssertTrue(partial.hasPrefix("HTTP/1.1 206"), String(partial.prefix(200)))
        XCTAssertTrue(partial.lowercased().contains("content-range: bytes 15000-19999/20000"), partial)
        XCTAssertTrue(partial.lowercased().contains("content-length: 5000"))
    }

    func testMalformedRequestIs400ThenServerCarriesOn() throws {
        let bad = try exchange("THIS IS NOT HTTP\r\n\r\n")
        XCTAssertTrue(bad.hasPrefix("HTTP/1.1 400"), bad)
        XCTAssertTrue(bad.lowercased().contains("connection: close"))
        // Garbage that is not even TLS.
        let fd = try Socket.connectTCP(to: host.endpoints[0].tcp!)
        usleep(20_000)
        _ = try Array("GET / HTTP/1.1\r\n\r\n".utf8).withUnsafeBytes { try Socket.write(fd, $0) }
        usleep(50_000)
        Socket.close(fd)
        // And the server still serves.
        let ok = try exchange("GET / HTTP/1.1\r\nHost: www.shop.test\r\nConnection: close\r\n\r\n")
        XCTAssertTrue(ok.hasPrefix("HTTP/1.1 200"), String(ok.prefix(200)))
    }

    func testHostNotInScenarioFallsBackToPath() throws {
        let ok = try exchange(
            "GET /app.js HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", serverName: "localhost")
        XCTAssertTrue(ok.hasPrefix("HTTP/1.1 200"), String(ok.prefix(200)))
        XCTAssertTrue(ok.lowercased().contains("content-length: 300000"))
    }
}
