import Dispatch
import Foundation
import Synchronization
import XCTest
import TLS

final class ConcurrencyTests: XCTestCase {
    /// Contexts are shared by event loops on several threads: handshakes, the session cache
    /// and the key-log file are used concurrently here.
    func testContextsAreSharedAcrossThreads() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("netbench-keylog-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try serverContext(names: [["a.example", "b.example"]]) { $0.keyLogFile = path }
        let client = try clientContext { $0.keyLogFile = path }
        let failures = Mutex<[String]>([])
        let resumed = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            do {
                let pair = try InMemoryPair(
                    client: client, server: server, serverName: i % 2 == 0 ? "a.example" : "b.example")
                try pair.handshake()
                if pair.client.sessionResumed { resumed.withLock { $0 += 1 } }
            } catch {
                failures.withLock { $0.append("\(i): \(error)") }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertGreaterThan(resumed.withLock { $0 }, 0, "later connections resume sessions stored by earlier ones")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.last, "", "file ends with a newline")
        let entries = lines.dropLast()
        XCTAssertEqual(entries.count, 16 * 5 * 2, "5 secrets per TLS 1.3 handshake, logged by both sides")
        XCTAssertTrue(entries.allSatisfy { $0.split(separator: " ").count == 3 }, "no interleaved lines")
    }
}
