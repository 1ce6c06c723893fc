import Foundation
import XCTest
import TestSupport
import BenchCore
import BenchModel
import Runner
@testable import Testbed
import NetbenchCommands

/// Page loads through the link emulator (namespaces + TUN, created and removed by the run): every
/// byte arrives over h1, h2 and h3, the emulator's accuracy is recorded, and the measured load is
/// never faster than its physical lower bound.
final class EmulatedPageLoadTests: XCTestCase {
    override func setUpWithError() throws {
        try requireRoot("needs root (network namespaces and TUN devices)")
    }

    func testSmallPageOverCableOnEveryTransport() throws {
        let library = Library(root: packageRoot + "/Scenarios")
        let path = packageRoot + "/Scenarios/pages/small-page.json"
        let scenario = try Scenario.load(from: path)
        let cable = try library.profile("Cable")
        let out = NSTemporaryDirectory() + "netbench-emu-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        var request = RunRequest(
            suiteName: "emulated-test", scenarios: [(path, scenario)], profiles: [cable],
            transports: [.h1, .h2, .h3], runs: 1, outputDirectory: out)
        request.library = library
        request.pageLoads.timeout = .seconds(60)
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        XCTAssertEqual(results.runs.count, 3)
        for run in results.runs {
            XCTAssertEqual(run.status, .ok, "\(run.transport): \(run.error ?? "")")
            XCTAssertEqual(run.metrics.bytes, scenario.totalBytes, run.transport.rawValue)
            assertOrderedTimestamps(run)
            let e = try XCTUnwrap(run.emulator, "emulator block recorded")
            XCTAssertNotNil(e.releaseLatenessP99Us)
            XCTAssertNotNil(e.tunDrops)
            XCTAssertGreaterThan(e.packetsForwarded ?? 0, 100)
            XCTAssertEqual(e.tcpCongestionControl, "cubic")
            // Per direction: the measured one-way delay (never below the configured one) and no reordering.
            let directions = try XCTUnwrap(e.linkDirections)
            XCTAssertEqual(directions.map { "\($0.path) \($0.direction)" }, ["wifi up", "wifi down"])
            XCTAssertEqual(directions.reduce(0) { $0 + $1.packets }, e.packetsForwarded)
            let oneWayMs = (cable.rtt?.milliseconds ?? 0) / 2
            for d in directions {
                XCTAssertGreaterThanOrEqual(try XCTUnwrap(d.oneWayDelayMs?.min), oneWayMs, d.direction)
                XCTAssertEqual(d.reorderedPackets, 0, d.direction)
            }
            let plt = try XCTUnwrap(run.metrics.pltMs), ideal = try XCTUnwrap(run.metrics.idealPltMs)
            XCTAssertGreaterThanOrEqual(
                plt, ideal, "\(run.transport): measured \(plt) ms below the lower bound \(ideal) ms")
            let ttfb = try XCTUnwrap(run.metrics.ttfbMs), idealTTFB = try XCTUnwrap(run.metrics.idealTtfbMs)
            XCTAssertGreaterThanOrEqual(ttfb, idealTTFB * 0.98, "\(run.transport): TTFB below its handshake bound")
            XCTAssertTrue(
                run.connections.allSatisfy { $0.localAddress?.hasPrefix("198.18.") ?? false },
                "client on the emulated path")
        }
    }
}
