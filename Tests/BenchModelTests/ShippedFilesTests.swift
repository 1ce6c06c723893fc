import Foundation
import XCTest
import BenchCore
@testable import BenchModel
import TestSupport

/// Everything under Scenarios/ loads and validates, the pages are what their presets generate,
/// and the suites refer to files and profiles that exist.
final class ShippedFilesTests: XCTestCase {
    let scenarios = URL(fileURLWithPath: packageRoot).appendingPathComponent("Scenarios")

    func files(_ dir: String) throws -> [String] {
        let d = scenarios.appendingPathComponent(dir).path
        return try FileManager.default.contentsOfDirectory(atPath: d).filter { $0.hasSuffix(".json") }.sorted().map {
            d + "/" + $0
        }
    }

    func testPagesValidateAndMatchTheirPresets() throws {
        let pages = try files("pages")
        XCTAssertEqual(
            Set(pages.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent }),
            Set(ScenarioPreset.allCases.map(\.rawValue)))
        for path in pages {
            let s = try Scenario.load(from: path)
            for o in s.origins { XCTAssertTrue(o.host.hasSuffix(".test"), "\(path): \(o.host) is not under .test") }
            let preset = try XCTUnwrap(ScenarioPreset(rawValue: s.name), path)
            // Regenerating the preset gives the committed file byte for byte.
            let data = try JSONFile.encode(try preset.scenario())
            XCTAssertEqual(
                data, FileManager.default.contents(atPath: path),
                "\(path) differs from 'netbench scenario generate --preset \(preset.rawValue)'")
        }
    }

    func testKeyFiguresOfTheShippedPages() throws {
        let m = try Scenario.load(from: scenarios.appendingPathComponent("pages/mobile-median.json").path)
        XCTAssertTrue((66...70).contains(m.resources.count))
        XCTAssertEqual(Double(m.totalBytes), 2_311_000, accuracy: 50_000)
        XCTAssertGreaterThanOrEqual(m.origins.count, 4)
        XCTAssertGreaterThanOrEqual(m.depth, 3)
        let d = try Scenario.load(from: scenarios.appendingPathComponent("pages/desktop-median.json").path)
        XCTAssertEqual(d.resources.count, 71)
        XCTAssertEqual(Double(d.totalBytes), 2_652_000, accuracy: 50_000)
        let h = try Scenario.load(from: scenarios.appendingPathComponent("pages/heavy-p90.json").path)
        XCTAssertEqual(h.resources.count, 170)
        let spa = try Scenario.load(from: scenarios.appendingPathComponent("pages/spa-deep-chain.json").path)
        XCTAssertGreaterThanOrEqual(spa.depth, 7)  // ≥ 6 levels below the document
        var chain = 0
        var cur = spa.resources.first {
            $0.type == .script && $0.parent == spa.root?.id && spa.children(of: $0.id).contains { $0.type == .script }
        }
        while let c = cur { chain += 1; cur = spa.children(of: c.id).first { $0.type == .script } }
        XCTAssertGreaterThanOrEqual(chain, 6)
        let api = try Scenario.load(from: scenarios.appendingPathComponent("pages/api-small-json.json").path)
        XCTAssertTrue(api.resources.filter { $0.type == .xhr }.allSatisfy { $0.bytes <= 10_000 })
        for (name, dir, bytes) in [
            ("bulk-10MB-download", Scenario.Bulk.Direction.download, Int64(10_000_000)),
            ("bulk-10MB-upload", .upload, 10_000_000), ("bulk-100MB-download", .download, 100_000_000),
        ] {
            let b = try Scenario.load(from: scenarios.appendingPathComponent("pages/\(name).json").path)
            XCTAssertEqual(b.bulk, .init(direction: dir, bytes: bytes))
        }
    }

    func testProfilesValidate() throws {
        let paths = try files("profiles")
        let names = Set(paths.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent })
        let required = [
            "Cable", "DSL", "3G", "3GFast", "3GSlow", "4G", "LTE", "Edge", "2G", "FIOS", "loopback", "WiFi",
            "ATT-LTE-driving", "TMobile-UMTS-driving", "Verizon-LTE-short", "3G-loss2", "3G-loss5",
            "lossy-high-rtt", "interop", "5G-midband", "5G-mmWave", "FTTH-1G", "datacenter-10G",
        ]
        XCTAssertTrue(Set(required).isSubset(of: names), "missing: \(Set(required).subtracting(names).sorted())")
        let tracesPresent = FileManager.default.fileExists(atPath: scenarios.appendingPathComponent("traces").path)
        let traceFiles = ["ATT-LTE-driving-2016", "TMobile-UMTS-driving", "Verizon-LTE-short"].flatMap {
            ["../traces/\($0).down", "../traces/\($0).up"]
        }
        var bursty = false
        for path in paths {
            let p = try JSONFile.load(Profile.self, from: path)
            try p.validate(file: path)
            XCTAssertEqual(
                p.name, URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent,
                "the file is named after the profile")
            XCTAssertNotNil(p.source, "\(path): every profile states its source")
            XCTAssertEqual(p.schemaVersion, 1)
            for t in [p.downTrace, p.upTrace].compactMap({ $0 }) {
                XCTAssertTrue(traceFiles.contains(t), "\(path): \(t)")
            }
            // With the traces in place (Scenarios/traces), the full load resolves them too.
            if tracesPresent { XCTAssertNoThrow(try Profile.load(from: path)) }
            if p.lossModel?.type == "gilbert-elliott" { bursty = true }
        }
        XCTAssertTrue(bursty, "a bursty Gilbert-Elliott profile")
        let wpt: [String: (Double, Double, Double)] = [
            "Cable": (5e6, 1e6, 28), "DSL": (1.5e6, 384e3, 50), "3GSlow": (400e3, 400e3, 400),
            "3G": (1.6e6, 768e3, 300),
            "3GFast": (1.6e6, 768e3, 150), "4G": (9e6, 9e6, 170), "LTE": (12e6, 12e6, 70), "Edge": (240e3, 200e3, 840),
            "2G": (280e3, 256e3, 800), "FIOS": (20e6, 5e6, 4),
        ]
        for (name, (down, up, rtt)) in wpt {
            let p = try JSONFile.load(
                Profile.self, from: scenarios.appendingPathComponent("profiles/\(name).json").path)
            XCTAssertEqual(p.down?.bitsPerSecond ?? 0, down, accuracy: 1, name)
            XCTAssertEqual(p.up?.bitsPerSecond ?? 0, up, accuracy: 1, name)
            XCTAssertEqual(
                p.rtt?.milliseconds ?? 0, rtt, accuracy: 1e-9, "\(name): WebPageTest's RTT is the round trip")
        }
        // The gigabit profiles carry the figures their sources give (Scenarios/profiles/README.md).
        let fast: [String: (Double, Double, Double)] = [
            "5G-midband": (265e6, 15e6, 47), "5G-mmWave": (1e9, 100e6, 20), "FTTH-1G": (1e9, 1e9, 4),
            "datacenter-10G": (10e9, 10e9, 0.5),
        ]
        for (name, (down, up, rtt)) in fast {
            let p = try JSONFile.load(
                Profile.self, from: scenarios.appendingPathComponent("profiles/\(name).json").path)
            XCTAssertEqual(p.down?.bitsPerSecond ?? 0, down, accuracy: 1, name)
            XCTAssertEqual(p.up?.bitsPerSecond ?? 0, up, accuracy: 1, name)
            XCTAssertEqual(p.rtt?.milliseconds ?? 0, rtt, accuracy: 1e-9, name)
            XCTAssertEqual(p.queue, .bandwidthDelayProduct, name)
        }
        let loop = try JSONFile.load(
            Profile.self, from: scenarios.appendingPathComponent("profiles/loopback.json").path)
        XCTAssertFalse(loop.isEmulated)
        let interop = try JSONFile.load(
            Profile.self, from: scenarios.appendingPathComponent("profiles/interop.json").path)
        XCTAssertEqual(interop.queue, .packets(25))
        XCTAssertEqual(interop.rtt?.milliseconds, 30)
    }

    func testSuitesValidateAndReferToWhatExists() throws {
        let profileNames = Set(
            try files("profiles").map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent })
        let paths = try files("suites")
        XCTAssertEqual(
            Set(paths.map { URL(fileURLWithPath: $0).lastPathComponent }),
            [
                "default.json", "weak-network.json", "throughput.json", "ci-smoke.json", "migration.json",
                "quic-claim.json", "quic-claim-repeat.json", "quic-claim-chromium.json", "quic-claim-firefox.json",
                "interop-goodput.json", "interop-crosstraffic.json", "wolsing2019.json", "cpu-slowdown.json",
            ])
        for path in paths {
            let s = try Suite.load(from: path)
            XCTAssertNotNil(s.seed, "\(path): fixed seed")
            for sc in s.scenarios { XCTAssertNoThrow(try Scenario.load(from: sc), "\(path): \(sc)") }
            for p in s.profiles { XCTAssertTrue(profileNames.contains(p), "\(path): unknown profile \(p)") }
        }
        let smoke = try Suite.load(from: scenarios.appendingPathComponent("suites/ci-smoke.json").path)
        XCTAssertEqual(Set(smoke.transports), [.h1, .h2, .h3])
        XCTAssertTrue(smoke.profiles.contains("loopback"))
        XCTAssertLessThanOrEqual(smoke.runs * smoke.profiles.count * smoke.transports.count, 30)
        let throughput = try Suite.load(from: scenarios.appendingPathComponent("suites/throughput.json").path)
        XCTAssertEqual(throughput.profiles, ["interop"])
        XCTAssertTrue(try throughput.scenarios.map { try Scenario.load(from: $0) }.allSatisfy { $0.bulk != nil })
        // #29: the phone-CPU suite slows only browsers (the built-in client refuses a slowdown).
        let slow = try Suite.load(from: scenarios.appendingPathComponent("suites/cpu-slowdown.json").path)
        XCTAssertEqual(slow.cpuSlowdown, 4)
        XCTAssertEqual(RunClient.parseList(slow.client ?? ""), [.chromium, .firefox])
        XCTAssertEqual(Set(slow.transports), [.h2, .h3])
    }

    /// The default suite is adaptive with a budget of about 10 minutes, and the ideal (lower-bound)
    /// load time of its smallest plan (a warm-up and 6 measured rounds, the fewest a 95% interval of
    /// the median needs) stays well inside that budget, so every cell gets its minimum.
    func testDefaultSuiteIsSized() throws {
        let s = try Suite.load(from: scenarios.appendingPathComponent("suites/default.json").path)
        XCTAssertTrue(s.$runs.isAuto)
        let budget = try XCTUnwrap(s.budget).nanoseconds.inMilliseconds / 1000
        XCTAssertEqual(budget, 600, accuracy: 120, "about 10 minutes")
        var seconds = 0.0
        for sc in s.scenarios {
            let page = try Scenario.load(from: sc)
            for name in s.profiles {
                let p = try JSONFile.load(
                    Profile.self, from: scenarios.appendingPathComponent("profiles/\(name).json").path)
                for t in s.transports {
                    let ideal = IdealPageLoad(
                        rttMs: p.rtt?.milliseconds ?? 0.1, downlinkBitsPerSecond: p.down?.bitsPerSecond, transport: t)
                    seconds += ideal.pltMs(page) / 1000 * Double(6 + (s.warmupRuns ?? 0))
                }
            }
        }
        XCTAssertLessThan(seconds, budget * 0.75, "ideal time of the smallest plan alone is \(seconds) s")
    }
}
