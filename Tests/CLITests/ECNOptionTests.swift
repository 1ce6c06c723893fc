import Foundation
import XCTest
import BenchCore
import Runner
import TestSupport
@testable import CommandLineKit
@testable import NetbenchCommands

/// `run --ecn` reaches the server settings; with BBR (which ignores CE) it is refused before the
/// first run (exit 64) naming the option; `responsiveness --direction/--mode` parse into cells.
final class ECNOptionTests: XCTestCase {
    let page = packageRoot + "/Scenarios/pages/small-page.json"

    func resolve(_ args: [String]) throws -> RunPlanInput {
        try RunPlanInput.resolve(try ArgumentParser.parse(RunCommand.self, [page, "-n", "1", "-p", "loopback"] + args))
    }

    func testECNReachesTheServerSettings() throws {
        let dir = NSTemporaryDirectory() + "netbench-ecn-cli-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        XCTAssertTrue(try resolve(["--ecn", "-o", dir]).request.server.ecn)
        XCTAssertFalse(try resolve(["-o", dir]).request.server.ecn)
        XCTAssertTrue(try resolve(["--ecn", "--tcp-cc", "reno", "-o", dir]).request.server.ecn)
    }

    func testECNWithBBRIsAUsageError() {
        for args in [["--ecn", "--tcp-cc", "bbr"], ["--ecn", "--quic-cc", "bbr", "-t", "h3"]] {
            do {
                _ = try resolve(args)
                XCTFail("\(args) was accepted")
            } catch let e as BenchError {
                XCTAssertEqual(e.exitCode.rawValue, 64, e.message)
                XCTAssertTrue(e.message.contains("--ecn"), e.message)
                XCTAssertTrue(e.message.contains("bbr"), e.message)
            } catch {
                XCTFail("\(error)")
            }
        }
    }

    func testHelpNamesTheOptions() {
        let run = HelpFormatter.help(for: RunCommand.self, path: ["netbench", "run"])
        XCTAssertTrue(run.contains("--ecn"), run)
        let rpm = HelpFormatter.help(for: ResponsivenessCommand.self, path: ["netbench", "responsiveness"])
        XCTAssertTrue(rpm.contains("--direction LIST"), rpm)
        XCTAssertTrue(rpm.contains("--mode LIST"), rpm)
        XCTAssertTrue(rpm.contains("--output FILE.json"), rpm)
        XCTAssertTrue(rpm.contains("--ecn"), rpm)
    }

    func testDirectionsAndModesMakeCells() throws {
        let c = try ArgumentParser.parse(
            ResponsivenessCommand.self,
            ["-p", "interop", "--direction", "down,bidir", "--mode", "parallel,sequential"])
        XCTAssertEqual(c.loads.map { "\($0.0)\($0.1.map { " \($0)" } ?? "")" }, [
            "down", "bidir parallel", "bidir sequential",
        ])
        XCTAssertThrowsError(
            try ArgumentParser.parse(ResponsivenessCommand.self, ["-p", "x", "--direction", "sideways"]))
    }
}
