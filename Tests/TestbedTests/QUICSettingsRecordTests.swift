import Foundation
import XCTest
import BenchCore
import BenchModel
import QUIC
import TLS
import Runner
@testable import Testbed

extension QUICSettingsRecord {
    func with(_ change: (inout QUICSettingsRecord) -> Void) -> QUICSettingsRecord {
        var copy = self
        change(&copy)
        return copy
    }
}

/// `--quic-udp-payload`, `--quic-client-cid` and `--quic-pacing` reach both QUIC ends, and an h3 run records
/// what applied.
final class QUICSettingsRecordTests: XCTestCase {
    func testDefaultsAreDiscoveryAndZeroLengthClientIDs() {
        let quic = ProfileTestbed.quic(ServerSettings.benchmark, diagnostics: nil, firstPath: nil)
        XCTAssertNil(quic.fixedUDPPayloadSize)
        XCTAssertEqual(quic.clientConnectionIDLength, 0)
        let record = ProfileTestbed.quicRecord(quic, client: .builtin)
        XCTAssertEqual(record.maxUDPPayload, 1452)
        XCTAssertEqual(record.udpPayloadSizing, "pmtud")
        XCTAssertEqual(record.congestionControl, "cubic")
        XCTAssertEqual(record.ackThreshold, 2)
        XCTAssertEqual(record.clientConnectionIDLength, 0)
        XCTAssertEqual(quic.pacing, .standard)
        XCTAssertEqual(record.pacing, "2,1.25")
    }

    /// `run`'s built-in client pads its ClientHellos to a browser's length by default, over QUIC too.
    func testClientHelloPaddingReachesTheQUICConfiguration() {
        XCTAssertEqual(ServerSettings.benchmark.clientHelloPadding, ClientHelloPadding.browser)
        XCTAssertEqual(ServerSettings().clientHelloPadding, 0, "serve's settings: no client of its own")
        var settings = ServerSettings.benchmark
        let padded = ProfileTestbed.quic(settings, diagnostics: nil, firstPath: nil)
        XCTAssertEqual(padded.clientHelloPadding, ClientHelloPadding.browser)
        settings.clientHelloPadding = 0
        XCTAssertEqual(ProfileTestbed.quic(settings, diagnostics: nil, firstPath: nil).clientHelloPadding, 0)
    }

    func testPacingReachesTheConfigurationAndTheRecord() {
        var settings = ServerSettings.benchmark
        settings.quicPacing = QUICPacing(slowStart: 2, congestionAvoidance: .infinity)
        let quic = ProfileTestbed.quic(settings, diagnostics: nil, firstPath: nil)
        XCTAssertEqual(quic.slowStartPacingGain, 2)
        XCTAssertEqual(quic.congestionAvoidancePacingGain, .infinity)
        XCTAssertEqual(ProfileTestbed.quicRecord(quic, client: .builtin).pacing, "2,off")
        XCTAssertEqual(ProfileTestbed.quicRecord(quic, client: .chromium).pacing, "2,off",
            "the server's pacing is recorded whichever client ran")
    }

    func testOptionsReachTheConfigurationAndTheRecord() {
        var settings = ServerSettings.benchmark
        settings.quicUDPPayload = 1472
        settings.quicClientCIDLength = 17
        settings.quicCongestionControl = .bbr
        let quic = ProfileTestbed.quic(settings, diagnostics: nil, firstPath: nil)
        XCTAssertEqual(quic.fixedUDPPayloadSize, 1472)
        XCTAssertEqual(quic.clientConnectionIDLength, 17)
        let builtin = ProfileTestbed.quicRecord(quic, client: .builtin)
        XCTAssertEqual(builtin.maxUDPPayload, 1472)
        XCTAssertEqual(builtin.udpPayloadSizing, "fixed")
        XCTAssertEqual(builtin.congestionControl, "bbr")
        XCTAssertEqual(builtin.clientConnectionIDLength, 17)
        // A browser picks its own connection IDs: not recorded as netbench's.
        XCTAssertNil(ProfileTestbed.quicRecord(quic, client: .chromium).clientConnectionIDLength)
    }

    func testRecordIsAnOptionalKeyOfTheServerRecord() throws {
        var server = ServerRecord(tlsRecords: "dynamic")
        let without = String(decoding: try JSONEncoder().encode(server), as: UTF8.self)
        XCTAssertFalse(without.contains("quic"))
        server.quic = QUICSettingsRecord(maxUDPPayload: 1472, udpPayloadSizing: "fixed", congestionControl: "cubic",
            ackThreshold: 2)
        let decoded = try JSONDecoder().decode(ServerRecord.self, from: JSONEncoder().encode(server))
        XCTAssertEqual(decoded.quic?.maxUDPPayload, 1472)
        XCTAssertNil(decoded.quic?.clientConnectionIDLength)
    }
}
