import Foundation
import XCTest
import BenchCore
import BenchModel
import Runner
@testable import Testbed
import NetbenchCommands
import TestSupport

/// Issue 12: over HTTP/2 a response larger than the initial congestion window gets its head one
/// round trip after the request, as over HTTP/1.1, once the server sizes its TLS records
/// dynamically. With fixed 16 KB records the head shares a record with DATA that does not fit
/// the first flight, and arrives a round trip later. Needs root (namespaces, TUN): the machine
/// and CI run as root, so a missing privilege fails.
final class TLSRecordTTFBTests: XCTestCase {
    static let rttMs = 70.0

    /// request sent → response head, per run, over h2 through a 70 ms, 100 Mbit/s link.
    private func headDelays(_ policy: TLSRecordPolicy, runs: Int = 3) throws -> [Double] {
        try requireRoot("emulated loads need root (network namespaces and TUN devices)")
        let dir = NSTemporaryDirectory() + "netbench-tlsrec-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/one-document.json"
        // 300 KB: over twenty 1448-byte segments, twice a 10-segment initial window.
        try Data(
            """
            { "schemaVersion": 1, "name": "one-document",
              "origins": [ {"id": "main", "host": "www.records.test"} ],
              "resources": [ {"id": "doc", "origin": "main", "path": "/", "bytes": 300000, "type": "document"} ] }
            """.utf8
        ).write(to: URL(fileURLWithPath: path))
        let scenario = try Scenario.load(from: path)
        let link = Profile(
            name: "rtt70", rtt: .ms(Self.rttMs), down: BitrateValue(bitsPerSecond: 100e6),
            up: BitrateValue(bitsPerSecond: 100e6))
        var request = RunRequest(
            suiteName: "tls-records", scenarios: [(path, scenario)], profiles: [link],
            transports: [.h2], runs: runs, outputDirectory: dir + "/out")
        request.library = Library(root: packageRoot + "/Scenarios")
        request.pageLoads.timeout = .seconds(30)
        request.server.tlsRecords = policy
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        XCTAssertEqual(results.runs.count, runs)
        return try results.runs.map { run in
            XCTAssertEqual(run.status, .ok, run.error ?? "")
            XCTAssertEqual(run.server?.tlsRecords, policy.description, "the policy is recorded per run")
            XCTAssertEqual(run.metrics.bytes, 300_000)
            let doc = try XCTUnwrap(run.requests.first)
            return try XCTUnwrap(doc.firstByte) - XCTUnwrap(doc.requestSent)
        }
    }

    /// The emulator's release lateness and the scheduling of three processes on two shared cores
    /// only ever add delay (2–7 ms at p99 here, see issue 12), so the fastest of the runs is the
    /// estimate of what the path and the server allow.
    private func fastest(_ xs: [Double]) -> Double { xs.min()! }

    func testDynamicRecordsDeliverTheHeadWithinOneRoundTrip() throws {
        let delays = try headDelays(.dynamic)
        XCTAssertEqual(fastest(delays), Self.rttMs, accuracy: 2, "request → head (ms), runs: \(delays)")
    }

    /// The same load with nginx-like fixed 16 KB records: the head waits for the second flight.
    /// (This is what makes the test above able to fail.)
    func testFixedSixteenKilobyteRecordsDelayTheHead() throws {
        let delays = try headDelays(.fixed(16_384))
        XCTAssertGreaterThan(fastest(delays), Self.rttMs + 2, "request → head (ms), runs: \(delays)")
    }
}
