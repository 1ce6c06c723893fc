import XCTest
import BenchCore
import BenchModel
import Runner
import TestSupport
@testable import CommandLineKit
@testable import NetbenchCommands

/// `run`'s settings: per group, the suites' values, then the flags over them.
final class RunPlanMergeTests: XCTestCase {
    func run(_ args: [String]) throws -> RunCommand { try ArgumentParser.parse(RunCommand.self, args) }

    func suite(runs: Int = 5) -> Suite {
        var s = Suite(
            name: "s", scenarios: ["a.json"], profiles: ["4G"], transports: [.h1, .h3], runs: runs,
            warmupRuns: 2, baselineTransport: .h3, seed: 7, client: "builtin,chromium")
        s.repeatView = true
        s.tlsRecords = "4KiB"
        return s
    }

    func testWithoutASuiteTheDefaultsOfRunHold() throws {
        let values = SuiteValues()
        let plan = try PlanValues.merge(values, try run([]))
        XCTAssertEqual(plan.profiles, ["loopback"])
        XCTAssertEqual(plan.transports, [.h1, .h2])
        XCTAssertEqual(plan.runs, 10)
        XCTAssertNil(plan.adaptive)
        XCTAssertEqual(plan.baseline, .h1)
        XCTAssertEqual(try run([]).serverOptions.merged(over: values.server), .benchmark)
        XCTAssertEqual(ServerSettings.benchmark.tcpCongestionControl, "cubic")
        XCTAssertEqual(try run([]).pageLoads(over: values.pageLoads), PageLoadSettings())
        XCTAssertEqual(try run([]).emulator, EmulatorSettings(scheduling: .realtime, precise: false))
    }

    func testTheSuitesValuesHoldWhereNoFlagIsGiven() throws {
        var values = SuiteValues()
        values.read(suite())
        let c = try run([])
        let plan = try PlanValues.merge(values, c)
        XCTAssertEqual([plan.runs, plan.warmup], [5, 2])
        XCTAssertEqual(plan.seed, 7)
        XCTAssertEqual(plan.baseline, .h3)
        XCTAssertEqual(c.serverOptions.merged(over: values.server).tlsRecords, .fixed(4096))
        let loads = c.pageLoads(over: values.pageLoads)
        XCTAssertEqual(loads.clients, [.builtin, .chromium])
        XCTAssertTrue(loads.repeatView)
    }

    func testFlagsGoOverTheSuiteGroupByGroup() throws {
        var values = SuiteValues()
        values.read(suite())
        let c = try run([
            "-t", "h2", "-n", "3", "--seed", "9", "--tls-records", "16k", "--tcp-cc", "reno", "--tls", "1.2",
            "--quic-cc", "bbr", "--client", "chromium", "--timeout", "20s", "--emulator-precise",
            "--release-window", "0", "--keylog", "/tmp/k", "--qlog", "/tmp",
        ])
        let plan = try PlanValues.merge(values, c)
        XCTAssertEqual(plan.transports, [.h2])
        XCTAssertEqual(plan.runs, 3)
        XCTAssertEqual(plan.seed, 9)
        XCTAssertEqual(plan.baseline, .h2, "the suite's baseline is not in the plan: the first transport")
        var server = ServerSettings(tlsVersion: .tls12, tcpCongestionControl: "reno")
        server.tlsRecords = .fixed(16_384)
        server.quicCongestionControl = .bbr
        server.clientHelloPadding = 1_650  // run's default (ClientHelloPadding.browser)
        XCTAssertEqual(c.serverOptions.merged(over: values.server), server)
        let loads = c.pageLoads(over: values.pageLoads)
        XCTAssertEqual(loads.clients, [.chromium])
        XCTAssertTrue(loads.repeatView, "the suite's repeat views stay on")
        XCTAssertEqual(loads.timeout, 20_000_000_000)
        XCTAssertTrue(c.emulator.precise)
        XCTAssertEqual(c.emulator.releaseWindow, 0, "--release-window 0 turns the window off")
        XCTAssertNil(try run([]).emulator.releaseWindow, "absent: the emulator's default")
        XCTAssertEqual(c.diagnostics.settings, DiagnosticSettings(keyLogFile: "/tmp/k", qlogDirectory: "/tmp"))
    }

    func testAdaptiveRunsMergeAndTheirUsageError() throws {
        var values = SuiteValues()
        values.auto = true
        values.precision = 0.05
        let auto = try XCTUnwrap(try PlanValues.merge(values, try run(["--max-runs", "12"])).adaptive)
        XCTAssertEqual(auto.precision, 0.05)
        XCTAssertEqual(auto.maxRuns, 12)
        XCTAssertNil(
            try PlanValues.merge(values, try run(["-n", "4"])).adaptive, "--runs N overrides the suite's auto")
        XCTAssertEqual(try PlanValues.merge(values, try run(["-n", "4"])).runs, 4)
        XCTAssertEqual(
            try PlanValues.merge(SuiteValues(), try run(["--runs", "auto"])).runs, 30, "runs: the most a cell makes")
        XCTAssertThrowsError(try PlanValues.merge(SuiteValues(), try run(["--precision", "1%"]))) { e in
            XCTAssertEqual((e as? BenchError)?.message, "--precision, --max-runs and --budget go with --runs auto")
        }
    }

    /// The whole path: a suite file and the flags become one RunRequest.
    func testResolveBuildsTheRequestFromTheSuiteFileAndTheFlags() throws {
        let dir = Program.tempDirectory(self)
        try FileManager.default.copyItem(
            atPath: packageRoot + "/Scenarios/pages/small-page.json",
            toPath: dir + "/page.json")
        let suite =
            #"{"schemaVersion": 1, "name": "merge", "scenarios": ["page.json"], "profiles": ["loopback"], "#
            + #""transports": ["h1", "h3"], "runs": 3, "seed": 5, "tlsRecords": "4KiB", "repeatView": true}"#
        try suite.write(toFile: dir + "/suite.json", atomically: true, encoding: .utf8)
        let r = try RunPlanInput.resolve(
            try run([
                dir + "/suite.json", "-t", "h2,h3", "--late-binding", "off",
                "-o", dir + "/out", "--shard", "1/1",
            ])
        ).request
        XCTAssertEqual(r.suiteName, "merge")
        XCTAssertEqual(r.transports, [.h2, .h3])
        XCTAssertEqual([r.runs, r.warmupRuns], [3, 0])
        XCTAssertEqual(r.seed, 5)
        XCTAssertEqual(r.server.tlsRecords, .fixed(4096))
        XCTAssertEqual(r.server.lateBinding, .off)
        XCTAssertEqual(r.server.tcpCongestionControl, "cubic")
        XCTAssertTrue(r.pageLoads.repeatView)
        XCTAssertEqual(r.outputDirectory, dir + "/out")
        XCTAssertNotNil(r.planDigest)
    }

    /// `--client-hello-pad`: the built-in client's ClientHello padding, run's default a browser's length.
    func testClientHelloPadOption() throws {
        var values = SuiteValues()
        values.read(suite())
        XCTAssertEqual(try run([]).clientOptions.merged(over: values.server).clientHelloPadding, 1_650)
        XCTAssertEqual(
            try run(["--client-hello-pad", "0"]).clientOptions.merged(over: values.server).clientHelloPadding, 0)
        XCTAssertEqual(
            try run(["--client-hello-pad", "512"]).clientOptions.merged(over: values.server).clientHelloPadding, 512)
        XCTAssertThrowsError(try run(["--client-hello-pad", "4097"]))
    }
}
