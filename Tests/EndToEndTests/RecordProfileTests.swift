import Foundation
import XCTest
import TestSupport

/// `netbench record --profile 4G` with the built binary: Chromium records the local nginx site from
/// the emulated client namespace, through the emulator to the host's loopback, so the HAR's timings
/// carry 4G's 170 ms round trip (a loopback recording's connections take about a millisecond); with
/// nginx's gzip on, its CSS and JavaScript are stored gzip-encoded (compression as recorded: the default).
final class RecordProfileEndToEndTests: XCTestCase {
    func testARecordingThroughAProfileHasItsRoundTrip() throws {
        try requireRoot("needs root (network namespaces, TUN devices, nftables in the root namespace)")
        try require(FileManager.default.isExecutableFile(atPath: "/usr/sbin/nft"), "nft (scripts/bootstrap.sh)")
        let chromium = ["/usr/lib/chromium/chromium", "/usr/bin/chromium"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        if chromium == nil && ProcessInfo.processInfo.environment["NETBENCH_CHROMIUM"] == nil {
            try missingPrerequisite("Chromium is not installed (scripts/bootstrap.sh --test)")
        }
        let site = try LocalDocSite(gzip: true)
        defer { site.stop() }
        let dir = NSTemporaryDirectory() + "netbench-record-4g-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let resolve = site.resolve.flatMap { ["--resolve", $0] }
        let r = try execute(
            NetbenchBinary.path,
            ["record", site.url("index.html")] + resolve + ["--insecure", "-p", "4G", "-o", dir],
            timeout: 240)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("recording through profile 4G"), r.stdout)
        let name = "docs.test-\(site.port)-index.html"
        let har = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/\(name).har")))
                as? [String: Any])
        let entries = ((har["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
        XCTAssertGreaterThan(entries.count, 10)
        let timings = try XCTUnwrap(entries.first?["timings"] as? [String: Any])
        // A new TLS connection over 170 ms: the TCP handshake and TLS take at least one round trip,
        // and the response's first byte one more.
        let connect = try XCTUnwrap(timings["connect"] as? Double)
        let wait = try XCTUnwrap(timings["wait"] as? Double)
        XCTAssertGreaterThanOrEqual(connect, 160, "\(timings)")
        XCTAssertGreaterThanOrEqual(wait, 160, "\(timings)")
        XCTAssertLessThan(connect, 2000, "\(timings)")
        XCTAssertTrue(r.stdout.contains("bodies were sent gzip-encoded when recorded: encoded again"), r.stdout)
        let scenario = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/\(name).json")))
                as? [String: Any])
        let encodings = ((scenario["resources"] as? [[String: Any]]) ?? []).compactMap {
            ($0["body"] as? [String: Any])?["contentEncoding"] as? String
        }
        XCTAssertGreaterThan(encodings.filter { $0 == "gzip" }.count, 3, "\(encodings)")
    }
}
