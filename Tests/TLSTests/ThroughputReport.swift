import XCTest
import TLS

/// Not a speed test: measures in-memory bulk throughput (one thread encrypting, copying the
/// ciphertext and decrypting, as an event loop would) and prints it. Asserts only that every
/// byte arrived. Size: NETBENCH_TLS_BENCH_MB (default 64).
final class ThroughputReport: XCTestCase {
    func testReportBulkThroughput() throws {
        let megabytes = Int(ProcessInfo.processInfo.environment["NETBENCH_TLS_BENCH_MB"] ?? "") ?? 64
        for (label, suites, version) in [
            ("TLS 1.3 AES-128-GCM", "TLS_AES_128_GCM_SHA256", TLSVersion.tls13),
            ("TLS 1.3 AES-256-GCM", "TLS_AES_256_GCM_SHA384", .tls13),
            ("TLS 1.3 CHACHA20-POLY1305", "TLS_CHACHA20_POLY1305_SHA256", .tls13),
            ("TLS 1.2 ECDHE-ECDSA-AES128-GCM", "", .tls12),
        ] {
            let client = try clientContext {
                if version == .tls13 {
                    $0.tls13CipherSuites = suites
                } else {
                    $0.force(.tls12); $0.tls12Ciphers = "ECDHE-ECDSA-AES128-GCM-SHA256"
                }
            }
            let pair = try InMemoryPair(client: client, server: serverContext(), serverName: "origin.test")
            try pair.handshake()
            let seconds = try measure(pair: pair, bytes: megabytes * 1_000_000)
            print(
                String(
                    format: "netbench TLS in-memory bulk, %@ (%@): %d MB in %.3f s = %.0f MB/s",
                    label, pair.client.negotiatedCipher ?? "?", megabytes, seconds, Double(megabytes) / seconds))
        }
    }

    /// Client → server, 256 KiB writes; returns elapsed seconds.
    private func measure(pair: InMemoryPair, bytes total: Int) throws -> Double {
        let chunk = [UInt8](repeating: 0x5a, count: 256 * 1024)
        var wire = [UInt8](repeating: 0, count: 512 * 1024)
        var plain = [UInt8](repeating: 0, count: 256 * 1024)
        var sent = 0, received = 0
        let clock = ContinuousClock()
        let start = clock.now
        while received < total {
            if sent < total {
                sent += try chunk.withUnsafeBytes {
                    try pair.client.writePlaintext(UnsafeRawBufferPointer(rebasing: $0.prefix(total - sent)))
                }
            }
            wire.withUnsafeMutableBytes { wireBuffer in
                while true {
                    let n = pair.client.takeCiphertext(into: wireBuffer)
                    if n == 0 { break }
                    pair.server.receiveCiphertext(UnsafeRawBufferPointer(rebasing: wireBuffer[..<n]))
                }
            }
            while case .bytes(let n) = try plain.withUnsafeMutableBytes({ try pair.server.readPlaintext(into: $0) }) {
                received += n
            }
        }
        let elapsed = clock.now - start
        XCTAssertEqual(received, total)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
