import Foundation
import XCTest
import BenchCore
@testable import BenchModel

final class ProfileSuiteValidationTests: XCTestCase {
    func profile(_ json: String, file: String = "p.json") throws -> Profile {
        let p = try JSONFile.decode(Profile.self, from: Data(json.utf8), file: file)
        try p.validate(file: file)
        return p
    }

    func testValidProfileUnits() throws {
        let p = try profile(
            #"{"schemaVersion": 1, "name": "x", "rtt": "150ms", "down": "1.6Mbit", "up": "768kbit", "loss": "2%", "#
                + #""queue": "25 packets"}"#
        )
        XCTAssertEqual(p.rtt?.milliseconds, 150)
        XCTAssertEqual(p.down?.bitsPerSecond, 1.6e6)
        XCTAssertEqual(p.loss?.value ?? 0, 0.02, accuracy: 1e-12)
        XCTAssertEqual(p.queue, .packets(25))
        XCTAssertEqual(
            try profile(
                #"{"schemaVersion": 1, "name": "x", "rtt": 40, "down": 1e7, "up": 1e6, "loss": 0.02, "queue": "64KB"}"#
            ).queue, .bytes(64_000))
    }

    func testMissingRateAndRTT() {
        let m = errorMessage { _ = try profile(#"{"schemaVersion": 1, "name": "x"}"#) }
        XCTAssertEqual(
            m,
            """
            p.json: rtt: missing: an emulated profile needs a round-trip time (e.g. "40ms")
            p.json: down: missing: give a rate (e.g. "10Mbit") or a downTrace file
            p.json: up: missing: give a rate (e.g. "5Mbit") or an upTrace file
            """)
        XCTAssertNoThrow(try profile(#"{"schemaVersion": 1, "name": "lo", "emulated": false}"#))
    }

    func testProfileSchemaVersionAndName() {
        let m = errorMessage { _ = try profile(#"{"schemaVersion": 3, "name": "a,b", "emulated": false}"#) }
        assertContains(
            m, "p.json: schemaVersion: is 3; this netbench reads version 1",
            "p.json: name: 'a,b' must be non-empty without ',' or '/'")
    }

    func testBadUnitsNameKeyAndValue() {
        assertContains(
            errorMessage {
                _ = try profile(#"{"schemaVersion": 1, "name": "x", "rtt": "fast", "down": "1Mbit", "up": "1Mbit"}"#)
            },
            "p.json: rtt:", "'fast' is not a duration")
        assertContains(
            errorMessage {
                _ = try profile(#"{"schemaVersion": 1, "name": "x", "rtt": 10, "down": "1 Mflop", "up": "1Mbit"}"#)
            },
            "p.json: down:", "'1 Mflop' is not a rate")
        assertContains(
            errorMessage {
                _ = try profile(
                    #"{"schemaVersion": 1, "name": "x", "rtt": 10, "down": "1Mbit", "up": "1Mbit", "loss": "150%"}"#)
            },
            "p.json: loss:", "outside [0, 1]")
        assertContains(
            errorMessage {
                _ = try profile(
                    #"{"schemaVersion": 1, "name": "x", "rtt": 10, "down": "1Mbit", "up": "1Mbit", "queue": "deep"}"#)
            },
            "p.json: queue:", "'deep' is not a queue limit")
    }

    func testGilbertElliottAndOutages() {
        let m = errorMessage {
            _ = try profile(
                #"""
                {"schemaVersion": 1, "name": "x", "rtt": 10, "down": "1Mbit", "up": "1Mbit",
                 "lossModel": {"type": "markov", "p": 1.5, "r": 0.2},
                 "outages": [{"start": "2s", "end": "1s"}]}
                """#)
        }
        assertContains(
            m, "p.json: lossModel.type: 'markov' is not 'gilbert-elliott'",
            "p.json: lossModel.p: 1.5 is outside [0, 1]",
            "p.json: outages[0].end: 1000 ms is not after start 2000 ms")
    }

    func testMissingTraceFileIsNamed() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nb-profile-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("t.json").path
        try Data(
            #"{"schemaVersion": 1, "name": "t", "rtt": 70, "downTrace": "../traces/none.down", "up": "1Mbit"}"#.utf8
        ).write(to: URL(fileURLWithPath: path))
        assertContains(
            errorMessage { _ = try Profile.load(from: path) }, path,
            "downTrace: trace file '../traces/none.down' not found")
    }

    func suite(_ json: String) throws -> Suite {
        let s = try JSONFile.decode(Suite.self, from: Data(json.utf8), file: "s.json")
        try s.validate(file: "s.json")
        return s
    }

    func testSuiteErrors() {
        let m = errorMessage {
            _ = try suite(
                #"{"schemaVersion": 1, "name": "", "scenarios": [], "profiles": [], "transports": [], "runs": 0, "#
                    + #""warmupRuns": -1, "client": "lynx"}"#
            )
        }
        XCTAssertEqual(
            m,
            """
            s.json: name: must not be empty
            s.json: scenarios: must list at least one scenario file
            s.json: profiles: must list at least one profile
            s.json: transports: must list at least one of h1, h2, h3
            s.json: runs: 0 must be between 1 and 100000
            s.json: warmupRuns: -1 must be between 0 and 1000
            s.json: client: 'lynx' is not a list of 'builtin', 'chromium' and 'firefox' (e.g. 'builtin,chromium')
            """)
    }

    func testSuiteBaselineMustBeOneOfItsTransports() {
        let m = errorMessage {
            _ = try suite(
                #"{"schemaVersion": 1, "name": "s", "scenarios": ["a.json"], "profiles": ["LTE"], "transports": "#
                    + #"["h1", "h3"], "runs": 3, "baselineTransport": "h2"}"#
            )
        }
        XCTAssertEqual(m, "s.json: baselineTransport: 'h2' is not one of the suite's transports (h1, h3)")
    }

    func testSuiteUnknownTransportNamesTheIndex() {
        let m = errorMessage {
            _ = try suite(
                #"{"schemaVersion": 1, "name": "s", "scenarios": ["a.json"], "profiles": ["LTE"], "transports": "#
                    + #"["h2", "quic"], "runs": 3}"#
            )
        }
        assertContains(m, "s.json: transports[1]:", "quic")
    }

    func testSuiteWrongVersion() {
        let m = errorMessage {
            _ = try suite(
                #"{"schemaVersion": 0, "name": "s", "scenarios": ["a.json"], "profiles": ["LTE"], "transports": "#
                    + #"["h2"], "runs": 3}"#
            )
        }
        XCTAssertEqual(m, "s.json: schemaVersion: is 0; this netbench reads version 1")
    }
}

/// Adaptive settings in suites: checked like every other key, and only with `"runs": "auto"`.
final class SuiteAdaptiveSettingsTests: XCTestCase {
    func suite(_ extra: String, runs: String = "\"auto\"") throws -> Suite {
        let text =
            #"{"schemaVersion": 1, "name": "s", "scenarios": ["a.json"], "profiles": ["loopback"], "transports": "#
                + #"["h2"], "runs": "#
            + runs + (extra.isEmpty ? "" : ", " + extra) + "}"
        let s = try JSONFile.decode(Suite.self, from: Data(text.utf8), file: "s.json")
        try s.validate(file: "s.json")
        return s
    }

    func testAcceptedSettings() throws {
        let s = try suite(#""precision": 0.05, "maxRuns": 12, "budget": "600s""#)
        XCTAssertEqual(s.precision, 0.05)
        XCTAssertEqual(s.maxRuns, 12)
        XCTAssertEqual(s.budget?.nanoseconds, 600_000_000_000)
    }

    func testRefusedSettingsNameFileKeyAndValue() {
        assertContains(
            errorMessage { _ = try self.suite(#""precision": 2"#) }, "s.json: precision: 2.0 must be a fraction")
        assertContains(
            errorMessage { _ = try self.suite(#""maxRuns": 3"#) }, "s.json: maxRuns: 3 must be between 5 and 100000")
        assertContains(
            errorMessage { _ = try self.suite(#""budget": "600s""#, runs: "5") },
            "s.json: runs: precision, maxRuns and budget need \"runs\": \"auto\"")
    }
}

/// A profile that is not emulated says what it is: loopback, or the real path of `run --server`.
final class ProfileSummaryTests: XCTestCase {
    func testNotEmulatedProfilesNameThemselves() {
        XCTAssertEqual(Profile.loopback.summary, "loopback (no emulation)")
        var network = Profile.loopback
        network.name = "network"
        network.description = "the real network to --server"
        XCTAssertEqual(network.summary, "the real network to --server")
    }
}
