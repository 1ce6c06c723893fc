import Foundation
import XCTest
import BenchCore
import BenchModel
import Runner
@testable import Testbed
@testable import Workloads
import NetbenchCommands
import TestSupport

/// A page load under cross traffic: two bulk downloads (TCP cubic and QUIC cubic) share the
/// interop link (10 Mbit/s, 30 ms, 25-packet queue) from 2 s before the page to 3 s after its
/// start. Together they must fill the link (≥ 85% of its rate) and neither may exceed it.
final class CrossTrafficTests: XCTestCase {
    let library = Library(root: packageRoot + "/Scenarios")

    /// One h2 load of a 20 KB page through `profile` (validated first), with its cross traffic.
    private func loadTinyPage(under profile: Profile) throws -> RunRecord {
        try profile.validate(file: "test")
        let page = Scenario(
            name: "tiny", origins: [.init(id: "a", host: "a.netbench.test")],
            resources: [.init(id: "doc", origin: "a", path: "/", bytes: 20_000, type: .document)])
        let out = NSTemporaryDirectory() + "netbench-cross-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        var request = RunRequest(
            suiteName: "cross-test", scenarios: [("inline", page)], profiles: [profile],
            transports: [.h2], runs: 1, outputDirectory: out)
        request.library = library
        request.pageLoads.timeout = .seconds(30)
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        return try XCTUnwrap(results.runs.first)
    }

    func testTwoCompetingBulkFlowsFillTheLinkWithoutExceedingIt() throws {
        try requireRoot("emulated runs need root (network namespaces and TUN devices)")
        var profile = try library.profile("interop")
        profile.name = "interop-cross"
        profile.crossTraffic = [
            CrossFlowSpec(name: "tcp", transport: .h2, congestionControl: "cubic", stopAfter: .ms(3000)),
            CrossFlowSpec(name: "quic", transport: .h3, congestionControl: "cubic", stopAfter: .ms(3000)),
        ]
        let run = try loadTinyPage(under: profile)
        XCTAssertEqual(run.status, .ok, run.error ?? "")
        XCTAssertNotNil(run.metrics.pltMs, "the page loaded under cross traffic")
        XCTAssertTrue(run.metrics.idealNote?.contains("whole link") == true, run.metrics.idealNote ?? "no note")
        let cross = try XCTUnwrap(run.crossTraffic)
        XCTAssertEqual(cross.flows.count, 2)
        // Times count from the page's own navigation start, which follows the planned one by the
        // client's setup (more on a busy machine): the flows' planned life is what is fixed.
        XCTAssertEqual(cross.originMs, cross.flows[0].startMs)
        XCTAssertLessThanOrEqual(cross.originMs, -1500)
        let link = 10.0  // Mbit/s
        for f in cross.flows {
            XCTAssertNil(f.error, "\(f.name): \(f.error ?? "")")
            XCTAssertEqual(f.stopMs - f.startMs, 5000, accuracy: 150, f.name)
            let g = try XCTUnwrap(f.goodputMbps, f.name)
            XCTAssertLessThanOrEqual(g, link, "\(f.name) above the link rate")
            XCTAssertGreaterThan(f.bins.count, 40, f.name)
            // (Single 100 ms bins are not bounded by the link: they count arrivals at the application,
            // which a busy machine delivers in bursts.)
        }
        XCTAssertEqual(cross.flows[0].congestionControlReadBack, "cubic", "read back from the server's accepted socket")
        let combined = cross.flows.compactMap(\.goodputMbps).reduce(0, +)
        XCTAssertGreaterThanOrEqual(combined, 0.85 * link, "combined goodput \(combined) Mbit/s")
        XCTAssertLessThanOrEqual(combined, link)
        XCTAssertNotNil(cross.jainIndex)
        let shares = cross.flows.compactMap(\.share)
        XCTAssertEqual(shares.reduce(0, +), 1, accuracy: 1e-9)
    }

    /// Uploads queue on the uplink, downloads on the downlink: on a 10 Mbit/s down, 4 Mbit/s up
    /// link, two uploads (TCP cubic from the client's socket, QUIC cubic) fill the uplink between
    /// them (≥ 85%, neither above it) while a download runs on the downlink, below its rate; each
    /// direction has its own shares and fairness index.
    func testUploadsShareTheUplinkWhileADownloadUsesTheDownlink() throws {
        try requireRoot("emulated runs need root (network namespaces and TUN devices)")
        var profile = try library.profile("interop")
        profile.name = "asymmetric-cross"
        profile.up = BitrateValue(bitsPerSecond: 4e6)
        profile.crossTraffic = [
            CrossFlowSpec(name: "down-tcp", transport: .h2, congestionControl: "cubic", stopAfter: .ms(3000)),
            CrossFlowSpec(
                name: "up-tcp", transport: .h2, direction: .upload, congestionControl: "cubic", stopAfter: .ms(3000)),
            CrossFlowSpec(
                name: "up-quic", transport: .h3, direction: .upload, congestionControl: "cubic", stopAfter: .ms(3000)),
        ]
        let run = try loadTinyPage(under: profile)
        XCTAssertEqual(run.status, .ok, run.error ?? "")
        let cross = try XCTUnwrap(run.crossTraffic)
        XCTAssertEqual(cross.flows.map(\.direction), [.download, .upload, .upload])
        for f in cross.flows {
            XCTAssertNil(f.error, "\(f.name): \(f.error ?? "")")
            XCTAssertGreaterThan(f.bins.count, 40, f.name)
        }
        let down = cross.flows[0], ups = Array(cross.flows[1...])
        let downRate = try XCTUnwrap(down.goodputMbps)
        XCTAssertLessThanOrEqual(downRate, 10, "download above the downlink")
        // Its ACKs wait behind the uploads on the uplink: it need not fill the downlink, but it runs.
        XCTAssertGreaterThan(downRate, 2, "download \(downRate) Mbit/s")
        let upRates = try ups.map { try XCTUnwrap($0.goodputMbps, $0.name) }
        for (f, g) in zip(ups, upRates) { XCTAssertLessThanOrEqual(g, 4, "\(f.name) above the uplink") }
        XCTAssertGreaterThanOrEqual(upRates.reduce(0, +), 0.85 * 4, "uploads together \(upRates) Mbit/s")
        XCTAssertLessThanOrEqual(upRates.reduce(0, +), 4)
        XCTAssertEqual(ups[0].congestionControlReadBack, "cubic", "read back from the client's socket")
        XCTAssertNil(down.share, "a lone download has no share")
        XCTAssertNil(cross.jainIndex)
        XCTAssertNotNil(cross.uploadJainIndex)
        XCTAssertEqual(ups.compactMap(\.share).reduce(0, +), 1, accuracy: 1e-9)
    }
}
