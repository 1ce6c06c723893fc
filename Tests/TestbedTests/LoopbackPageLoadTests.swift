import Foundation
import TLS
import XCTest
import BenchCore
import BenchModel
import Runner
@testable import Testbed
import NetbenchCommands
import TestSupport

/// Real servers and clients over loopback: every resource arrives with its exact size, every
/// timestamp is ordered, and the connection rules hold (6 per origin for h1, 1 per origin for h2).
final class LoopbackPageLoadTests: XCTestCase {
    func load(_ scenarioPath: String, transports: [TransportKind], runs: Int = 1) throws -> ResultsFile {
        let scenario = try Scenario.load(from: scenarioPath)
        let out = NSTemporaryDirectory() + "netbench-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }
        var request = RunRequest(
            suiteName: "test", scenarios: [(scenarioPath, scenario)], profiles: [.loopback],
            transports: transports, runs: runs, outputDirectory: out)
        request.pageLoads.timeout = .seconds(60)
        let runner = try BenchmarkRunner(request: request, netbenchVersion: "test")
        var persisted = 0
        let results = try runner.execute(observer: QuietObserver()) { r in
            persisted += 1
            try JSONFile.encode(r).write(to: URL(fileURLWithPath: out + "/results.json"))
        }
        XCTAssertEqual(
            persisted, results.runs.count + 1, "results are written before the first run and after every run")
        let reloaded = try ResultsFile.load(from: out + "/results.json")
        XCTAssertEqual(reloaded.runs.count, results.runs.count)
        return results
    }

    func checkExactBytes(_ results: ResultsFile, _ scenario: Scenario) {
        for run in results.runs {
            XCTAssertEqual(run.status, .ok, "\(run.transport.rawValue): \(run.error ?? "")")
            XCTAssertEqual(run.requests.count, scenario.resources.count, run.transport.rawValue)
            for res in scenario.resources {
                guard let req = run.requests.first(where: { $0.id == res.id }) else {
                    XCTFail("\(res.id) not loaded"); continue
                }
                XCTAssertEqual(req.bytes, res.bytes, "\(run.transport.rawValue) \(res.id) size")
                XCTAssertEqual(req.status, 200, "\(run.transport.rawValue) \(res.id) status")
            }
            XCTAssertEqual(run.metrics.bytes, scenario.totalBytes)
            assertOrderedTimestamps(run)
            XCTAssertNotNil(run.metrics.pltMs)
            XCTAssertNotNil(run.metrics.ttfbMs)
            XCTAssertNotNil(run.metrics.handshakeMs)
            if let plt = run.metrics.pltMs, let ideal = run.metrics.idealPltMs {
                XCTAssertGreaterThan(ideal, 0)
                XCTAssertGreaterThanOrEqual(
                    plt, ideal * 0.5, "measured PLT far below its lower bound: the ideal is wrong")
            }
        }
    }

    func testSmallPageOverH1H2AndH3() throws {
        let path = Fixture.path("small-page.json")
        let scenario = try Scenario.load(from: path)
        let results = try load(path, transports: [.h1, .h2, .h3], runs: 2)
        XCTAssertEqual(results.runs.map(\.transport), [.h1, .h2, .h3, .h1, .h2, .h3], "runs are interleaved")
        checkExactBytes(results, scenario)
        for run in results.runs {
            for c in run.connections {
                XCTAssertEqual(c.tlsVersion, "1.3")
                XCTAssertEqual(c.alpn, run.transport == .h1 ? "http/1.1" : run.transport == .h2 ? "h2" : "h3")
                if run.transport == .h3 {
                    XCTAssertEqual(
                        run.server?.quic,
                        QUICSettingsRecord(
                            maxUDPPayload: 1452, udpPayloadSizing: "pmtud", congestionControl: "cubic",
                            ackThreshold: 2
                        ).with {
                            $0.clientConnectionIDLength = 0
                            $0.pacing = "2,1.25"
                        }, "h3 runs record their QUIC settings")
                    XCTAssertNil(c.connectEnd, "QUIC has no separate TCP connect")
                    XCTAssertNotNil(c.quic?.smoothedRttMs, "QUIC statistics recorded")
                    XCTAssertGreaterThan(c.quic?.packetsReceived ?? 0, 0)
                }
            }
            if run.transport != .h3 { XCTAssertNil(run.server?.quic) }
            XCTAssertEqual(run.server?.clientHelloPadding, ClientHelloPadding.browser, "run's default, recorded")
            let perOrigin = Dictionary(grouping: run.connections, by: \.origin).mapValues(\.count)
            if run.transport != .h1 {
                XCTAssertEqual(Set(perOrigin.values), [1], "\(run.transport): one connection per origin")
            } else {
                XCTAssertLessThanOrEqual(perOrigin.values.max() ?? 0, 6, "h1: at most 6 connections per origin")
            }
        }
    }

    /// Each run records the CPU it cost: the client's and the server's thread clocks, and the whole
    /// process, which contains both (a little slack for the clocks being read at different instants).
    func testEveryRunRecordsItsCPUCost() throws {
        let results = try load(Fixture.path("small-page.json"), transports: [.h2, .h3])
        for run in results.runs {
            let m = run.metrics
            let client = try XCTUnwrap(m.clientCPUMs, run.transport.rawValue)
            let server = try XCTUnwrap(m.serverCPUMs, run.transport.rawValue)
            let process = try XCTUnwrap(m.processCPUMs, run.transport.rawValue)
            XCTAssertGreaterThan(client, 0)
            XCTAssertGreaterThan(server, 0)
            XCTAssertLessThanOrEqual(
                client + server, process + 2, "\(run.transport): threads cannot outspend their process")
            XCTAssertLessThan(process, 10_000, "a small page cannot take 10 s of CPU")
        }
    }

    func testShippedMobilePageOverH1H2AndH3() throws {
        let path = packageRoot + "/Scenarios/pages/mobile-median.json"
        let scenario = try Scenario.load(from: path)
        XCTAssertGreaterThanOrEqual(scenario.resources.count, 60)
        let results = try load(path, transports: [.h1, .h2, .h3])
        checkExactBytes(results, scenario)
        let h1 = results.runs.first { $0.transport == .h1 }!
        let perOrigin = Dictionary(grouping: h1.connections, by: \.origin).mapValues(\.count)
        XCTAssertGreaterThan(perOrigin.values.max() ?? 0, 1, "h1 opens parallel connections for a busy origin")
    }

    /// Regression: a request sent while the client handled a received datagram used to leave
    /// ngtcp2's pacer waiting with no timer (stale timestamps), so about one h3 load in ten hung.
    func testManyConsecutiveH3LoadsAllComplete() throws {
        let path = packageRoot + "/Scenarios/pages/mobile-median.json"
        let results = try load(path, transports: [.h3], runs: 15)
        let failed = results.runs.filter { $0.status != .ok }
        XCTAssertEqual(failed.count, 0, failed.map { $0.error ?? "" }.joined(separator: "; "))
    }

    func testForcedTLS12() throws {
        let path = Fixture.path("small-page.json")
        let scenario = try Scenario.load(from: path)
        let out = NSTemporaryDirectory() + "netbench-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        var request = RunRequest(
            suiteName: "tls12", scenarios: [(path, scenario)], profiles: [.loopback],
            transports: [.h2], runs: 1, outputDirectory: out)
        request.server.tlsVersion = .tls12
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        XCTAssertEqual(results.runs.first?.status, .ok, results.runs.first?.error ?? "")
        XCTAssertEqual(results.runs.first?.connections.first?.tlsVersion, "1.2")
    }

    /// An h3-only loopback block of the built-in client opens no TCP socket: no TCP listener (so no
    /// TCP_CONGESTION, which an unprivileged user may be refused), and the RTT of the ideal comes from
    /// UDP echoes, which every run records as its source. A plan with h2 keeps the listener and TCP connects.
    func testH3OnlyLoopbackBlockBindsNoTCPListenerAndStillHasAnIdeal() throws {
        let path = Fixture.path("small-page.json")
        let scenario = try Scenario.load(from: path)
        func testbed(_ transports: [TransportKind]) throws -> ProfileTestbed {
            let request = RunRequest(
                suiteName: "h3only", scenarios: [(path, scenario)], profiles: [.loopback], transports: transports,
                runs: 1, outputDirectory: NSTemporaryDirectory())
            let executor = try TestbedFactory(request: request).makeExecutor(profile: .loopback, profileIndex: 0)
            return try XCTUnwrap(executor as? ProfileTestbed)
        }
        let h3 = try testbed([.h3])
        defer { h3.close() }
        XCTAssertNil(h3.servers.endpoints[0].tcp, "no TCP listener for an h3-only block")
        XCTAssertNotNil(h3.servers.endpoints[0].udp)
        XCTAssertNil(h3.servers.tcpCongestionControl)
        let rtt = try XCTUnwrap(h3.rttMs, "the loopback RTT is measured without TCP")
        XCTAssertGreaterThan(rtt, 0)
        XCTAssertLessThan(rtt, 50, "a loopback round trip")
        XCTAssertEqual(h3.rttSource, ProfileTestbed.udpEchoSource)
        let run = h3.runOnce(RunSpec(scenarioIndex: 0, transport: .h3, index: 0), register: { _ in })
        XCTAssertEqual(run.status, .ok, run.error ?? "")
        XCTAssertEqual(run.metrics.rttMs, rtt)
        XCTAssertEqual(run.metrics.rttSource, ProfileTestbed.udpEchoSource)
        XCTAssertNotNil(run.metrics.idealPltMs, run.metrics.idealNote ?? "")
        XCTAssertNotNil(run.metrics.idealTtfbMs)

        let mixed = try testbed([.h2, .h3])
        defer { mixed.close() }
        XCTAssertNotNil(mixed.servers.endpoints[0].tcp, "h2 in the plan: the TCP listener stays")
        XCTAssertNotNil(mixed.rttMs)
        XCTAssertNil(mixed.rttSource, "TCP connects measure the RTT when there is a TCP listener")
    }

    /// Which plans need a TCP listener, and which open TCP sockets at all (the congestion control check).
    func testWhichPlansNeedTCP() {
        func request(_ transports: [TransportKind], _ clients: [RunClient] = [.builtin]) -> RunRequest {
            var r = RunRequest(
                suiteName: "t", scenarios: [], profiles: [.loopback], transports: transports, runs: 1,
                outputDirectory: "/tmp")
            r.pageLoads.clients = clients
            return r
        }
        XCTAssertFalse(request([.h3]).serversNeedTCP)
        XCTAssertFalse(request([.h3]).opensTCPSockets)
        XCTAssertTrue(request([.h2, .h3]).serversNeedTCP)
        XCTAssertTrue(request([.h1]).opensTCPSockets)
        XCTAssertTrue(request([.h3], [.chromium]).serversNeedTCP, "Chromium keeps the TCP listener")
        XCTAssertTrue(request([.h3], [.builtin, .chromium]).opensTCPSockets)
        var tcpCross = request([.h3]), quicCross = request([.h3])
        tcpCross.profiles[0].crossTraffic = [CrossFlowSpec(transport: .h2)]
        quicCross.profiles[0].crossTraffic = [CrossFlowSpec(transport: .h3)]
        XCTAssertFalse(tcpCross.serversNeedTCP, "cross traffic has listeners of its own")
        XCTAssertTrue(tcpCross.opensTCPSockets, "TCP cross traffic sets the run's congestion control")
        XCTAssertFalse(quicCross.opensTCPSockets)
    }
}
