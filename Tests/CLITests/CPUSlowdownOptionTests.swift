import Foundation
import XCTest
import BenchCore
import BenchModel
import Runner
import TestSupport
@testable import CommandLineKit
@testable import NetbenchCommands

/// `run --cpu-slowdown N` and a suite's "cpuSlowdown": below 1 (or not a number) is a usage error
/// (64), as is the built-in client (it shares its process with the server and the emulator); a
/// browser's plan carries the factor.
final class CPUSlowdownOptionTests: XCTestCase {
    let page = packageRoot + "/Scenarios/pages/small-page.json"

    func parse(_ args: [String]) throws -> RunCommand {
        try ArgumentParser.parse(RunCommand.self, [page, "-n", "1", "-p", "loopback", "-q"] + args)
    }

    func testBelowOneIsAUsageError() {
        for bad in ["0.5", "0", "-2", "four", "101"] {
            XCTAssertThrowsError(try parse(["--cpu-slowdown", bad, "--client", "chromium"]), bad) {
                let e = $0 as? BenchError
                XCTAssertEqual(e?.exitCode.rawValue, 64, "\($0)")
                XCTAssertTrue(e?.message.contains("--cpu-slowdown") == true, "\($0)")
            }
        }
        XCTAssertThrowsError(try RunCommand.checkCPUSlowdown(settings(0.5, [.chromium]))) {
            XCTAssertEqual(($0 as? BenchError)?.exitCode.rawValue, 64)
        }
    }

    func settings(_ n: Double, _ clients: [RunClient]) -> PageLoadSettings {
        var p = PageLoadSettings(clients: clients)
        p.cpuSlowdown = n
        return p
    }

    func testTheBuiltInClientIsRefused() throws {
        let dir = NSTemporaryDirectory() + "netbench-slowdown-cli-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        XCTAssertThrowsError(try parse(["--cpu-slowdown", "4", "-o", dir]).run()) {
            let e = $0 as? BenchError
            XCTAssertEqual(e?.exitCode.rawValue, 64, "\($0)")
            XCTAssertTrue(e?.message.contains("built-in client") == true, "\($0)")
        }
        XCTAssertThrowsError(try RunCommand.checkCPUSlowdown(settings(4, [.builtin, .chromium])))
        XCTAssertNoThrow(try RunCommand.checkCPUSlowdown(settings(4, [.chromium])))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/results.json"), "no run was made")
    }

    func testTheFactorReachesThePlan() throws {
        let dir = NSTemporaryDirectory() + "netbench-slowdown-cli-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let plan = try RunPlanInput.resolve(try parse(["--cpu-slowdown", "4", "--client", "chromium", "-o", dir]))
        XCTAssertEqual(plan.request.pageLoads.cpuSlowdown, 4)
        let plain = try RunPlanInput.resolve(try parse(["--client", "chromium", "-o", dir]))
        XCTAssertNil(plain.request.pageLoads.cpuSlowdown)
    }

    func testASuiteSlowdownBelowOneIsBadData() throws {
        var suite = Suite(name: "s", scenarios: ["a.json"], profiles: ["loopback"], transports: [.h2], runs: 1)
        suite.cpuSlowdown = 0.5
        XCTAssertThrowsError(try suite.validate(file: "s.json")) {
            let e = $0 as? BenchError
            XCTAssertEqual(e?.exitCode.rawValue, 65, "\($0)")
            XCTAssertTrue(e?.message.contains("cpuSlowdown") == true, "\($0)")
        }
        suite.cpuSlowdown = 4
        XCTAssertNoThrow(try suite.validate(file: "s.json"))
    }
}
