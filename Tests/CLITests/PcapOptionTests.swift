import Foundation
import XCTest
import BenchCore
import Runner
import TestSupport
@testable import CommandLineKit
@testable import NetbenchCommands

/// `run --pcap DIR`: parsed into the diagnostics, and refused before the first run (exit 64) when
/// DIR is missing or no profile of the plan is emulated.
final class PcapOptionTests: XCTestCase {
    let page = packageRoot + "/Scenarios/pages/small-page.json"
    let cable = packageRoot + "/Scenarios/profiles/Cable.json"

    func resolve(_ args: [String]) throws -> RunPlanInput {
        try RunPlanInput.resolve(try ArgumentParser.parse(RunCommand.self, [page, "-n", "1"] + args))
    }

    func usageError(_ args: [String], file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try resolve(args)
            XCTFail("\(args) was accepted", file: file, line: line)
            return ""
        } catch let e as BenchError {
            XCTAssertEqual(e.exitCode, .usage, e.message, file: file, line: line)
            XCTAssertEqual(e.exitCode.rawValue, 64, file: file, line: line)
            return e.message
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return ""
        }
    }

    func tempDirectory() throws -> String {
        let d = NSTemporaryDirectory() + "netbench-pcap-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: d) }
        return d
    }

    func testAnEmulatedPlanTakesAnExistingDirectory() throws {
        let dir = try tempDirectory()
        let request = try resolve(["-p", cable, "--pcap", dir, "-o", dir + "/out"]).request
        XCTAssertEqual(request.diagnostics.pcapDirectory, dir)
        XCTAssertNil(try resolve(["-p", cable, "-o", dir + "/out"]).request.diagnostics.pcapDirectory)
    }

    func testAMissingDirectoryIsAUsageErrorNamingIt() throws {
        let missing = try tempDirectory() + "/nowhere"
        let message = usageError(["-p", cable, "--pcap", missing])
        XCTAssertTrue(message.contains("--pcap \(missing)"), message)
        XCTAssertTrue(message.contains("does not exist"), message)
        let file = try tempDirectory() + "/file"
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        XCTAssertTrue(usageError(["-p", cable, "--pcap", file]).contains("not a directory"))
    }

    func testALoopbackOnlyPlanRefusesPcap() throws {
        let dir = try tempDirectory()
        let message = usageError(["-p", "loopback", "--pcap", dir])
        XCTAssertTrue(message.contains("--pcap \(dir)"), message)
        XCTAssertTrue(message.contains("only the emulator of an emulated profile captures packets"), message)
        XCTAssertNoThrow(try resolve(["-p", "loopback,\(cable)", "--pcap", dir, "-o", dir + "/out"]))
    }

    func testRunHelpExplainsPcap() throws {
        let help = HelpFormatter.help(for: RunCommand.self, path: ["netbench", "run"])
        XCTAssertTrue(help.contains("--pcap DIR"), help)
        XCTAssertTrue(help.contains("LINKTYPE_RAW"), help)
    }

    func testLinkLogTakesAnExistingDirectoryOfAnEmulatedPlan() throws {
        let dir = try tempDirectory()
        let request = try resolve(["-p", cable, "--link-log", dir, "-o", dir + "/out"]).request
        XCTAssertEqual(request.diagnostics.linkLogDirectory, dir)
        XCTAssertNil(request.diagnostics.pcapDirectory)
        let missing = dir + "/nowhere"
        let message = usageError(["-p", cable, "--link-log", missing])
        XCTAssertTrue(message.contains("--link-log \(missing)") && message.contains("does not exist"), message)
        let loopback = usageError(["-p", "loopback", "--link-log", dir])
        XCTAssertTrue(loopback.contains("--link-log \(dir): only the emulator"), loopback)
    }

    func testRunHelpExplainsTheLinkLog() throws {
        let help = HelpFormatter.help(for: RunCommand.self, path: ["netbench", "run"])
        XCTAssertTrue(help.contains("--link-log DIR"), help)
        XCTAssertTrue(help.contains("mm-throughput-graph"), help)
    }
}
