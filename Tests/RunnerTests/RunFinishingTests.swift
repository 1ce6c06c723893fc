import XCTest
import BenchCore
import BenchModel
@testable import Runner

/// The one step that finishes every executor's record: bounds from what the document connection
/// negotiated, the cross-traffic note, goodput, and the lateness flag.
final class RunFinishingTests: XCTestCase {
    let page = Scenario(
        name: "one", origins: [.init(id: "a", host: "a.example")],
        resources: [.init(id: "doc", origin: "a", path: "/", bytes: 1_000, type: .document)])

    /// A finished run whose document came over one connection with these properties.
    private func run(
        _ transport: TransportKind, tls: String? = nil, resumed: Bool = false,
        zeroRTT: Bool = false
    ) -> RunRecord {
        var r = RunRecord(scenario: "one", profile: "p", transport: transport, index: 0, status: .ok)
        var c = ConnectionRecord(id: 0, origin: "a", transport: transport, connectStart: 0)
        c.tlsVersion = tls; c.resumed = resumed; c.earlyDataAccepted = zeroRTT
        var q = RequestRecord(id: "doc", origin: "a", queued: 0, bytes: 1_000)
        q.connection = 0
        r.connections = [c]; r.requests = [q]
        return r
    }

    private func ttfbBound(_ r: RunRecord, _ f: RunFinishing = RunFinishing(rttMs: 100)) -> Double? {
        var r = r
        f.finish(&r, scenario: page)
        return r.metrics.idealTtfbMs
    }

    func testRoundTripsFollowWhatTheDocumentConnectionNegotiated() throws {
        let tls13 = try XCTUnwrap(ttfbBound(run(.h2, tls: "TLSv1.3")))
        let tls12 = try XCTUnwrap(ttfbBound(run(.h2, tls: "TLSv1.2")))
        let resumed12 = try XCTUnwrap(ttfbBound(run(.h2, tls: "TLSv1.2", resumed: true)))
        let quic = try XCTUnwrap(ttfbBound(run(.h3)))
        let zeroRTT = try XCTUnwrap(ttfbBound(run(.h3, zeroRTT: true)))
        XCTAssertEqual(tls12 - tls13, 100, accuracy: 1e-9, "TLS 1.2 costs one more round trip")
        XCTAssertEqual(tls12 - resumed12, 100, accuracy: 1e-9, "resumed TLS 1.2 saves one")
        XCTAssertEqual(tls13 - quic, 100, accuracy: 1e-9, "QUIC saves TCP's handshake")
        XCTAssertEqual(quic - zeroRTT, 100, accuracy: 1e-9, "0-RTT saves the handshake's round trip")
        // Nothing negotiated on record: the configured TLS version decides.
        var bare = run(.h2)
        bare.connections = []
        let configured12 = try XCTUnwrap(ttfbBound(bare, RunFinishing(rttMs: 100, configuredTLS12: true)))
        XCTAssertEqual(configured12, tls12, accuracy: 1e-9)
    }

    func testAServerThatIsNotNetbenchServeIsBoundWithoutThinkTimes() throws {
        let thinking = Scenario(
            name: "t", origins: [.init(id: "a", host: "a.example")],
            resources: [
                .init(
                    id: "doc", origin: "a", path: "/", bytes: 1_000, type: .document,
                    thinkTimeMs: 50)
            ])
        var served = run(.h2), other = run(.h2)
        RunFinishing(rttMs: 10).finish(&served, scenario: thinking)
        RunFinishing(rttMs: 10, serverThinks: false).finish(&other, scenario: thinking)
        XCTAssertEqual(
            try XCTUnwrap(served.metrics.idealTtfbMs) - (try XCTUnwrap(other.metrics.idealTtfbMs)), 50,
            accuracy: 1e-9)
        XCTAssertEqual(
            try XCTUnwrap(served.metrics.idealPltMs) - (try XCTUnwrap(other.metrics.idealPltMs)), 50,
            accuracy: 1e-9)
        XCTAssertTrue(served.metrics.idealModel?.contains("with the scenario's server think times") == true)
        XCTAssertTrue(other.metrics.idealModel?.contains("without server think times") == true)
        XCTAssertEqual(RunFinishing(rttMs: 10, serverThinks: false).plannedIdeal(.h2)?.thinkTimes, false)
    }

    func testAnUnknownRTTLeavesTheBoundsUnknownAndSaysWhy() {
        var r = run(.h2)
        RunFinishing(rttMs: nil, rttProblem: "RTT unknown: probe failed").finish(&r, scenario: page)
        XCTAssertNil(r.metrics.idealPltMs)
        XCTAssertNil(r.metrics.idealTtfbMs)
        XCTAssertNil(r.metrics.rttMs)
        XCTAssertEqual(r.metrics.idealNote, "RTT unknown: probe failed")
    }

    func testCrossTrafficIsNotedBesideTheBound() {
        var r = run(.h2)
        r.crossTraffic = CrossTrafficRecord(binMs: 10, originMs: 0, flows: [])
        RunFinishing(rttMs: 10).finish(&r, scenario: page)
        XCTAssertNil(r.metrics.idealNote, "no flows, no note")
    }

    func testBulkGoodputIsBodyBytesOverTheTransferWindow() {
        let bulk = Scenario(
            name: "bulk", origins: [.init(id: "a", host: "a.example")], resources: [],
            bulk: .init(direction: .download, bytes: 10_000_000))
        var r = run(.h1)
        r.requests[0].firstByte = 100
        r.requests[0].lastByte = 1_100
        RunFinishing(rttMs: 10, downlinkBitsPerSecond: 100e6).finish(&r, scenario: bulk)
        XCTAssertEqual(r.metrics.goodputMbps ?? 0, 80, accuracy: 1e-9, "10 MB in 1 s")
        r.status = .failed
        r.metrics.goodputMbps = nil
        RunFinishing(rttMs: 10).finish(&r, scenario: bulk)
        XCTAssertNil(r.metrics.goodputMbps, "a failed run has no goodput")
    }

    /// With netbench's own server sending, a bulk download's bound counts that server's slow start,
    /// under the congestion control of the run's transport (TCP's for h1/h2, QUIC's for h3); from
    /// another server (`run --server`) it cannot.
    func testABulkBoundCountsTheOwnServersSlowStart() {
        let bulk = Scenario(
            name: "bulk", origins: [.init(id: "a", host: "a.example")], resources: [],
            bulk: .init(direction: .download, bytes: 100_000_000))
        var own = RunFinishing(rttMs: 10, downlinkBitsPerSecond: 1e9)
        own.ownServerCongestionControl = ("cubic", "bbr")
        var h1 = run(.h1), h3 = run(.h3), other = run(.h1)
        own.finish(&h1, scenario: bulk)
        own.finish(&h3, scenario: bulk)
        RunFinishing(rttMs: 10, downlinkBitsPerSecond: 1e9).finish(&other, scenario: bulk)
        XCTAssertEqual(h1.metrics.idealPltMs ?? 0, 30 + 60 + 787.904, accuracy: 1e-6, "cubic: ×2 per round trip")
        XCTAssertEqual(h3.metrics.idealPltMs ?? 0, 20 + 40 + 792.32, accuracy: 1e-6, "bbr: ×3")
        XCTAssertEqual(other.metrics.idealPltMs ?? 0, 30 + 800, accuracy: 1e-6)
        XCTAssertEqual(h1.metrics.idealModel?.contains("slow start (from 24 KB"), true)
        XCTAssertEqual(other.metrics.idealModel?.contains("not counted"), true)
        XCTAssertEqual(own.plannedIdeal(.h1)?.pltMs(bulk) ?? 0, 30 + 60 + 787.904, accuracy: 1e-6, "the ETA's too")
    }

    /// A run through the emulator with these figures and this release lateness (and, with a release
    /// window, this lateness of the packets it did not hold and of those released while none
    /// streamed), finished.
    private func emulated(
        pltMs: Double, ttfbMs: Double, latenessUs p50: Double, _ p99: Double,
        windowUs: Double? = nil, unheldUs: (Double, Double)? = nil, promptUs: (Double, Double)? = nil
    ) -> RunRecord {
        var r = run(.h2)
        r.metrics.pltMs = pltMs
        r.metrics.ttfbMs = ttfbMs
        r.metrics.bytes = 1_000
        r.emulator = EmulatorRecord(profile: "p", configured: "x", flagged: false)
        r.emulator?.releaseLatenessP50Us = p50
        r.emulator?.releaseLatenessP99Us = p99
        r.emulator?.releaseWindowUs = windowUs
        r.emulator?.unheldLatenessP50Us = unheldUs?.0
        r.emulator?.unheldLatenessP99Us = unheldUs?.1
        r.emulator?.promptLatenessP50Us = promptUs?.0
        r.emulator?.promptLatenessP99Us = promptUs?.1
        RunFinishing(rttMs: 10).finish(&r, scenario: page)
        return r
    }

    /// With a release window, PLT's bound takes the lateness of the packets it did not hold and
    /// TTFB's that of the packets released while no link streamed: the held packets of a streaming
    /// gigabit link (p50 70 µs) and the ACKs that wait to share their passes (unheld p50 40 µs) no
    /// longer flag a 33 ms TTFB whose handshake left on time. The same figures without a window
    /// still flag it, and so do late prompt packets.
    func testAWindowsHeldPacketsDoNotFlagTheRun() throws {
        let held = (p50: 70.0, p99: 180.0)
        let windowed = emulated(
            pltMs: 900, ttfbMs: 33, latenessUs: held.p50, held.p99, windowUs: 100, unheldUs: (40, 150),
            promptUs: (4, 60))
        XCTAssertEqual(windowed.emulator?.flagged, false, windowed.error ?? "")
        // Each bound is that of a run whose every packet was as late as the packets it takes.
        let asPrompt = emulated(pltMs: 900, ttfbMs: 33, latenessUs: 4, 60)
        let asUnheld = emulated(pltMs: 900, ttfbMs: 33, latenessUs: 40, 150)
        XCTAssertEqual(windowed.emulator?.ttfbLatenessBoundMs, asPrompt.emulator?.ttfbLatenessBoundMs)
        XCTAssertEqual(windowed.emulator?.pltLatenessBoundMs, asUnheld.emulator?.pltLatenessBoundMs)
        XCTAssertGreaterThan(try XCTUnwrap(windowed.emulator?.ttfbLatenessBoundMs), 0)
        let plain = emulated(pltMs: 900, ttfbMs: 33, latenessUs: held.p50, held.p99)
        XCTAssertEqual(plain.emulator?.flagged, true)
        XCTAssertTrue(plain.error?.contains("release lateness (p50 0.07 ms") == true, plain.error ?? "")
        // No prompt packet (a link streamed throughout): TTFB takes the unheld ones, and flags.
        let streamedThroughout = emulated(
            pltMs: 900, ttfbMs: 33, latenessUs: held.p50, held.p99, windowUs: 100, unheldUs: (40, 150))
        XCTAssertEqual(streamedThroughout.emulator?.flagged, true)
        XCTAssertTrue(
            streamedThroughout.error?.contains("lateness of packets not held (p50 0.04 ms") == true,
            streamedThroughout.error ?? "")
        let latePrompt = emulated(
            pltMs: 900, ttfbMs: 33, latenessUs: held.p50, held.p99, windowUs: 100, unheldUs: (40, 150),
            promptUs: (90, 400))
        XCTAssertEqual(latePrompt.emulator?.flagged, true)
        XCTAssertTrue(
            latePrompt.error?.contains("lateness while no link streamed (p50 0.09 ms") == true, latePrompt.error ?? "")
    }

    func testLatenessThatCouldMoveAFigureByMoreThanOnePercentFlagsTheRun() {
        let late = emulated(pltMs: 50, ttfbMs: 40, latenessUs: 5_000, 9_000)
        XCTAssertEqual(late.emulator?.flagged, true)
        XCTAssertTrue(late.error?.hasPrefix("emulator lateness: ") == true, late.error ?? "no error")
        let quiet = emulated(pltMs: 50_000, ttfbMs: 40_000, latenessUs: 5, 9)
        XCTAssertEqual(quiet.emulator?.flagged, false)
        XCTAssertNil(quiet.error)
        XCTAssertNotNil(quiet.emulator?.pltLatenessBoundMs, "the bound is recorded either way")
    }
}
