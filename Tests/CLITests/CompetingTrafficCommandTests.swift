import XCTest
import BenchCore
@testable import CommandLineKit
@testable import NetbenchCommands

/// `netbench fairness` and `netbench responsiveness`: help, defaults and the exit codes of bad input
/// (no network needed: every check runs before the emulator is built).
final class CompetingTrafficCommandTests: XCTestCase {
    func testHelpAndDefaults() throws {
        let box = Captured()
        let output = CommandOutput(out: { box.append(out: $0) }, err: { box.append(err: $0) })
        XCTAssertEqual(Netbench.main(["fairness", "--help"], output: output), 0)
        let f = box.take().out
        XCTAssertTrue(f.hasPrefix("usage: netbench fairness"), f)
        XCTAssertTrue(f.contains("--pairs") && f.contains("--duration") && f.contains("Jain"), f)
        XCTAssertEqual(Netbench.main(["responsiveness", "--help"], output: output), 0)
        let r = box.take().out
        XCTAssertTrue(r.contains("--queue") && r.contains("draft-ietf-ippm-responsiveness"), r)
        let parsed = try ArgumentParser.parse(FairnessCommand.self, [])
        XCTAssertEqual(parsed.profileNames, ["interop", "fair50"])
        XCTAssertEqual(parsed.duration, .seconds(30))
        XCTAssertEqual(try parsed.pairs().count, 8)
        XCTAssertEqual(
            try ArgumentParser.parse(ResponsivenessCommand.self, ["-p", "interop"]).queues(),
            [.bdp(multiple: 1), .bdp(multiple: 4), .drainTime(.seconds(1))])
    }

    func testBadInputExitCodes() {
        let box = Captured()
        let output = CommandOutput(out: { box.append(out: $0) }, err: { box.append(err: $0) })
        XCTAssertEqual(Netbench.main(["fairness", "--pairs", "h3:vegas/tcp:cubic"], output: output), 64)
        XCTAssertTrue(box.take().err.contains("--pairs 'h3:vegas/tcp:cubic'"))
        XCTAssertEqual(
            Netbench.main(["responsiveness", "--profile", "interop", "--queue", "huge"], output: output), 64)
        XCTAssertTrue(box.take().err.contains("--queue 'huge'"))
        XCTAssertEqual(Netbench.main(["responsiveness"], output: output), 64, "--profile is required")
        _ = box.take()
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("nb-rpm-\(getpid()).json").path
        defer { try? FileManager.default.removeItem(atPath: trace) }
        try? Data(#"{"schemaVersion":1,"name":"t","rtt":"30ms","downTrace":"/dev/null","up":"1Mbit"}"#.utf8).write(
            to: URL(fileURLWithPath: trace))
        XCTAssertEqual(
            Netbench.main(["responsiveness", "--profile", trace], output: output), 65,
            "a trace link has no rate to size queues by")
    }
}
