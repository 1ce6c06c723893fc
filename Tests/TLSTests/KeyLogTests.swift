import Foundation
import XCTest
import TLS

final class KeyLogTests: XCTestCase {
    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("netbench-keylog-\(UUID().uuidString).txt").path
    }

    func testTLS13HandshakeSecretsAreLoggedInNSSFormat() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let pair = try InMemoryPair(
            client: clientContext { $0.keyLogFile = path }, server: serverContext(),
            serverName: "origin.test")
        try pair.handshake()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let labels = Set(lines.map { $0.split(separator: " ")[0] })
        XCTAssertEqual(
            labels,
            [
                "CLIENT_HANDSHAKE_TRAFFIC_SECRET", "SERVER_HANDSHAKE_TRAFFIC_SECRET",
                "CLIENT_TRAFFIC_SECRET_0", "SERVER_TRAFFIC_SECRET_0", "EXPORTER_SECRET",
            ])
        for line in lines {
            let fields = line.split(separator: " ")
            XCTAssertEqual(fields.count, 3, String(line))
            XCTAssertEqual(fields[1].count, 64, "client random in hex: \(line)")
        }
    }

    func testServerAndClientAppendToTheSameFile() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let pair = try InMemoryPair(
            client: clientContext { $0.keyLogFile = path },
            server: serverContext {
                $0.keyLogFile = path; $0.force(.tls12)
            },
            serverName: "origin.test")
        try pair.handshake()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 2, "one CLIENT_RANDOM line from each side")
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("CLIENT_RANDOM ") })
        XCTAssertEqual(lines[0], lines[1])
    }

    func testUnwritableKeyLogPathIsAConfigurationError() {
        assertTLSError(.configuration, containing: "no such file") {
            _ = try clientContext { $0.keyLogFile = "/nonexistent-dir/keys.txt" }
        }
    }
}
