import Foundation
import XCTest
import TestSupport
import BenchCore
import BenchModel
import SystemIO
@testable import Runner
@testable import Testbed
@testable import Browsers
import NetbenchCommands

/// `--cpu-slowdown 4` in both real browsers: the runs complete and record how the slowdown was
/// applied — Chromium by DevTools, Firefox by a cgroup quota that held its processes back in some
/// of its periods — and no group is left behind.
final class CPUSlowdownLoadTests: XCTestCase {
    override func setUpWithError() throws {
        if ChromiumBrowser.locate() == nil {
            try missingPrerequisite("Chromium is not installed: " + ChromiumBrowser.installHint)
        }
        if FirefoxBrowser.locate() == nil {
            try missingPrerequisite("Firefox is not installed: " + FirefoxBrowser.installHint)
        }
        try requireRoot("a cgroup cpu quota needs root")
        if case .failure(let why) = CPUQuotaGroup.locate() { try missingPrerequisite(why.message) }
    }

    func netbenchGroups() -> [String] {
        guard case .success(let h) = CPUQuotaGroup.locate() else { return [] }
        let mount: String
        switch h { case .v1(let m), .v2(let m): mount = m }
        let mine = CPUQuotaGroup.prefix + "\(getpid())-"
        return ((try? FileManager.default.contentsOfDirectory(atPath: mount)) ?? []).filter { $0.hasPrefix(mine) }
    }

    func testBothBrowsersRecordTheirSlowdown() throws {
        let path = Fixture.path("paint-page.json")
        let out = NSTemporaryDirectory() + "netbench-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        var request = RunRequest(
            suiteName: "slow", scenarios: [(path, try Scenario.load(from: path))], profiles: [.loopback],
            transports: [.h2], runs: 1, outputDirectory: out)
        request.pageLoads.timeout = .seconds(90)
        request.pageLoads.clients = [.chromium, .firefox]
        request.pageLoads.cpuSlowdown = 4
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        XCTAssertEqual(results.runs.compactMap(\.client), [.chromium, .firefox])
        for run in results.runs {
            let who = run.client?.rawValue ?? "?"
            XCTAssertEqual(run.status, .ok, "\(who): \(run.error ?? "")")
            let s = try XCTUnwrap(run.cpuSlowdown, "\(who): no cpuSlowdown record")
            XCTAssertEqual(s.factor, 4, who)
            if run.client == .chromium {
                XCTAssertTrue(s.mechanism.contains("Emulation.setCPUThrottlingRate 4"), s.mechanism)
                XCTAssertNil(s.throttledPeriods)
            } else {
                XCTAssertTrue(s.mechanism.contains("cgroup"), s.mechanism)
                XCTAssertTrue(s.mechanism.contains("4000"), "period 4 ms: \(s.mechanism)")
                XCTAssertGreaterThan(s.throttledPeriods ?? 0, 0, "the quota held Firefox back: \(s.mechanism)")
            }
        }
        XCTAssertEqual(netbenchGroups(), [], "every run's group is removed")
    }

    /// Chromium's main thread at 4×: its task time (Performance.getMetrics TaskDuration) grows well
    /// beyond the unthrottled load's (median of 3 runs each; ≥ 2× is asked, ~4× is expected).
    func testChromiumMainThreadTimeGrowsWithTheSlowdown() throws {
        let path = Fixture.path("paint-page.json")
        func medianTaskMs(_ slowdown: Double?) throws -> Double {
            let out = NSTemporaryDirectory() + "netbench-test-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: out) }
            var request = RunRequest(
                suiteName: "slow", scenarios: [(path, try Scenario.load(from: path))], profiles: [.loopback],
                transports: [.h2], runs: 3, outputDirectory: out)
            request.pageLoads.timeout = .seconds(90)
            request.pageLoads.clients = [.chromium]
            request.pageLoads.cpuSlowdown = slowdown
            let runs = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly().runs
            XCTAssertEqual(runs.filter { $0.status == .ok }.count, 3, "\(runs.compactMap(\.error))")
            let t = runs.compactMap(\.metrics.mainThreadTaskMs).sorted()
            XCTAssertEqual(t.count, 3, "every run reads TaskDuration")
            return t.isEmpty ? 0 : t[t.count / 2]
        }
        let plain = try medianTaskMs(nil), slowed = try medianTaskMs(4)
        XCTAssertGreaterThan(plain, 0)
        XCTAssertGreaterThan(slowed, 2 * plain, "main-thread task time \(plain) ms at 1×, \(slowed) ms at 4×")
    }
}
