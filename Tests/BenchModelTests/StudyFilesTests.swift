import Foundation
import XCTest
import BenchCore
@testable import BenchModel
import TestSupport

/// The pages, profiles and suites of the studies: percentile pages reproducible and at the
/// published request quantiles, claims validated with errors that name the key path.
final class StudyFilesTests: XCTestCase {
    let scenarios = URL(fileURLWithPath: packageRoot).appendingPathComponent("Scenarios")

    func testPercentilePagesAreThePublishedRequestQuantilesAndRegenerate() throws {
        var previousBytes: Int64 = 0
        for (p, requests) in [(10, 22), (25, 39), (50, 66), (75, 109), (90, 170)] {
            let page = try PercentilePage(percentile: p)
            XCTAssertEqual(page.requests, requests, "p\(p)")
            XCTAssertGreaterThan(page.bytes, previousBytes, "p\(p) heavier than the percentile below")
            previousBytes = page.bytes
            let path = scenarios.appendingPathComponent("pages/percentiles/mobile-p\(p).json").path
            let s = try Scenario.load(from: path)
            XCTAssertEqual(s.resources.count, requests)
            XCTAssertEqual(s.totalBytes, page.bytes)
            XCTAssertEqual(
                try JSONFile.encode(try page.scenario()), FileManager.default.contents(atPath: path),
                "\(path) differs from 'netbench scenario generate --percentile \(p)'")
        }
        // The model's median weight lies within 2% of the published median page (2,311 KB).
        XCTAssertEqual(Double(try PercentilePage(percentile: 50).bytes), 2_311_000, accuracy: 0.02 * 2_311_000)
        XCTAssertEqual(try PercentilePage(distribution: .desktop2024, percentile: 90).requests, 176)
        assertContains(
            errorMessage { _ = try PercentilePage(percentile: 100) }, "percentile 100 must be between 1 and 99")
    }

    func testStudySuitesDeclareValidClaims() throws {
        let claim = try Suite.load(from: scenarios.appendingPathComponent("suites/quic-claim.json").path)
        XCTAssertEqual(claim.claims?.map(\.minSpeedup), [1.15, 1.20])
        XCTAssertEqual(claim.claims?.first?.profiles, ["WiFi", "4G"])
        XCTAssertTrue(claim.$runs.isAuto)
        XCTAssertEqual(claim.scenarios.count, 5)
        XCTAssertEqual(
            try Suite.load(from: scenarios.appendingPathComponent("suites/quic-claim-repeat.json").path).repeatView,
            true)
        let wolsing = try Suite.load(from: scenarios.appendingPathComponent("suites/wolsing2019.json").path)
        XCTAssertEqual(wolsing.claims?.first?.profiles, ["wolsing2019-satellite"])
        let sat = try Profile.load(from: scenarios.appendingPathComponent("profiles/wolsing2019-satellite.json").path)
        XCTAssertEqual(sat.rtt?.milliseconds, 760)
        let interop = try Suite.load(from: scenarios.appendingPathComponent("suites/interop-goodput.json").path)
        XCTAssertEqual(
            try Scenario.load(from: interop.scenarios[0]).bulk, .init(direction: .download, bytes: 10 * 1024 * 1024))
        // The runner's cross-traffic measurement: 25 MiB against one TCP cubic flow on the same link.
        let cross = try Suite.load(from: scenarios.appendingPathComponent("suites/interop-crosstraffic.json").path)
        XCTAssertEqual(
            try Scenario.load(from: cross.scenarios[0]).bulk, .init(direction: .download, bytes: 25 * 1024 * 1024))
        XCTAssertEqual(cross.runs, 5)
        let link = try Profile.load(from: scenarios.appendingPathComponent("profiles/interop-crosstraffic.json").path)
        XCTAssertEqual(link.queue, .packets(25))
        XCTAssertEqual(link.rtt?.milliseconds, 30)
        XCTAssertEqual(link.crossTraffic?.map(\.transport), [.h2])
        XCTAssertEqual(link.crossTraffic?.first?.congestionControl, "cubic")
        XCTAssertEqual(link.crossTraffic?.first?.direction ?? .download, .download)
    }

    func suite(claims: String) throws -> Suite {
        let text =
            #"{"schemaVersion": 1, "name": "s", "scenarios": ["a.json"], "profiles": ["WiFi", "x/3G.json"], "#
                + #""transports": ["h2", "h3"], "runs": 3, "claims": "#
            + claims + "}"
        let s = try JSONFile.decode(Suite.self, from: Data(text.utf8), file: "s.json")
        try s.validate(file: "s.json")
        return s
    }

    func testClaimErrorsNameTheKeyPath() throws {
        XCTAssertEqual(
            try suite(
                claims: #"[{"name": "n", "baseline": "h2", "candidate": "h3", "minSpeedup": 1.15, "profiles": ["3G"]}]"#
            ).claims?.count, 1)
        let m = errorMessage {
            _ = try suite(
                claims:
                    #"[{"name": "", "baseline": "h1", "candidate": "h3", "minSpeedup": 0, "profiles": ["LTE"], "#
                        + #""metric": "speed"}]"#
            )
        }
        XCTAssertEqual(
            m,
            """
            s.json: claims[0].name: must not be empty
            s.json: claims[0].baseline: 'h1' is not one of the suite's transports (h2, h3)
            s.json: claims[0].minSpeedup: 0.0 must be a ratio above 0 (1.15 is 15% faster)
            s.json: claims[0].profiles[0]: 'LTE' is not one of the suite's profiles (3G, WiFi)
            s.json: claims[0].metric: 'speed' is not one of pltMs, ttfbMs, handshakeMs, goodputMbps, bytes, requests, \
            connections
            """)
        assertContains(
            errorMessage {
                _ = try suite(claims: #"[{"name": "n", "baseline": "h3", "candidate": "h3", "minSpeedup": 1.2}]"#)
            },
            "claims[0].candidate: 'h3' is also the baseline")
        assertContains(
            errorMessage {
                _ = try suite(
                    claims:
                        #"[{"name": "n", "baseline": "h2", "candidate": "h3", "minSpeedup": 1.2, "client": "#
                            + #""chromium"}]"#
                )
            },
            "claims[0].client: 'chromium' is not one of the suite's clients (builtin)")
        assertContains(
            errorMessage {
                _ = try suite(claims: #"[{"name": "n", "baseline": "h2", "candidate": "h4", "minSpeedup": 1.2}]"#)
            },
            "claims[0].candidate")
    }
}
